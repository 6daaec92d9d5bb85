#include "coulomb/sim/scene_checks.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <set>
#include <stdexcept>

namespace coulomb {
namespace {

// A simulated geometry's bounding sphere in world and the tree it moves with.
struct Ball {
  Eigen::Vector3d center;
  double radius;
  int tree;
};

std::vector<Ball> SimulatedBalls(const MultibodySystem& system) {
  const CollisionWorld& world = system.collision_world();
  std::vector<Eigen::Isometry3d> X_WG;
  system.CalcGeometryPoses(&X_WG);
  std::vector<Ball> balls;
  for (int g = 0; g < world.num_geometries(); ++g) {
    if (world.tree(g) < 0) continue;  // static and kinematic geometry
    balls.push_back({X_WG[g].translation(), world.bounding_radius(g), world.tree(g)});
  }
  return balls;
}

std::string Format(const char* format, double a, double b, double c) {
  char text[256];
  std::snprintf(text, sizeof(text), format, a, b, c);
  return text;
}

}  // namespace

void CheckNoCrowd(const MultibodySystem& system) {
  std::vector<Ball> balls = SimulatedBalls(system);
  // Sweep along x: only balls within the largest radius can be that close.
  std::sort(balls.begin(), balls.end(),
            [](const Ball& a, const Ball& b) { return a.center.x() < b.center.x(); });
  double largest = 0.0;
  for (const Ball& ball : balls) largest = std::max(largest, ball.radius);
  // Per tree, the other trees that have a geometry that close to one of its own.
  std::vector<std::set<int>> crowd(system.num_trees());
  for (size_t i = 0; i < balls.size(); ++i) {
    for (size_t j = i + 1; j < balls.size(); ++j) {
      if (balls[j].center.x() - balls[i].center.x() > largest) break;
      const int a = balls[i].tree, b = balls[j].tree;
      if (a == b) continue;
      const double reach = 0.5 * (balls[i].radius + balls[j].radius);
      if ((balls[i].center - balls[j].center).norm() >= reach) continue;
      crowd[a].insert(b);
      crowd[b].insert(a);
      for (const Ball& ball : {balls[i], balls[j]}) {
        if (static_cast<int>(crowd[ball.tree].size()) <= kMaxCrowd) continue;
        throw std::invalid_argument(
            system.tree(ball.tree).name + " starts inside more than " +
            std::to_string(kMaxCrowd) + " other bodies" +
            Format(" (around [%.3g, %.3g, %.3g] m)", ball.center.x(), ball.center.y(),
                   ball.center.z()) +
            ": bodies placed in one spot cannot be separated; spread them out");
      }
    }
  }
}

std::vector<std::string> TimeStepWarnings(const MultibodySystem& system,
                                          double time_step) {
  const std::vector<Ball> balls = SimulatedBalls(system);
  if (balls.empty()) return {};
  double smallest = std::numeric_limits<double>::infinity();
  for (const Ball& ball : balls) smallest = std::min(smallest, ball.radius);
  double fastest = 0.0;
  for (int t = 0; t < system.num_trees(); ++t)
    fastest = std::max(fastest, system.tree(t).v.cwiseAbs().maxCoeff());
  std::vector<std::string> warnings;
  const double g = system.gravity().norm();
  if (0.5 * g * time_step * time_step > smallest) {
    warnings.push_back(
        Format("a body falls %.3g m in one step of %.3g s, more than the smallest body's "
               "radius "
               "(%.3g m): contacts may be missed",
               0.5 * g * time_step * time_step, time_step, smallest) +
        Format(" (δt ≤ %.2g s resolves it)", std::sqrt(2 * smallest / g), 0, 0));
  }
  if (fastest * time_step > smallest) {
    warnings.push_back(
        Format("a body starts at %.3g m/s and moves %.3g m in one step, more than the "
               "smallest body's radius (%.3g m): contacts may be missed",
               fastest, fastest * time_step, smallest));
  }
  return warnings;
}

std::vector<std::string> PenetrationWarnings(const MultibodySystem& system,
                                             ContactModel model, double penetration_max,
                                             double lookahead, double default_lookahead) {
  double largest = 0.0;
  for (const Ball& ball : SimulatedBalls(system))
    largest = std::max(largest, ball.radius);
  if (largest == 0.0 || !(penetration_max > largest)) return {};
  const bool lagged =
      model == ContactModel::kLagged || model == ContactModel::kRegularizedLagged;
  std::string warning = Format(
      "bodies sank %.3g m into each other, deeper than the largest body's "
      "radius (%.3g m): they passed through each other; ",
      penetration_max, largest, 0);
  warning += lagged ? "a shorter time step resolves it (the Lagged model's friction is "
                      "bounded by the impulse of each step's starting overlap, which "
                      "impacts too fast for the step make far larger than the contact's "
                      "normal impulse)"
                    : "a shorter time step (or stiffer contact) resolves it";
  if (lookahead < default_lookahead) {
    warning += Format(
        ", and so may the default look-ahead of %.3g s (contact.lookahead, "
        "--lookahead; %.3g s here: fast bodies then meet overlapping)",
        default_lookahead, lookahead, 0);
  }
  return {warning};
}

}  // namespace coulomb
