// The distance between two segments, against an independent minimum of
// ‖p + s d_p − q − u d_q‖ over a fine grid of (s, u) and against closed forms.
#include "coulomb/geometry/segment_distance.h"

#include <random>

#include <gtest/gtest.h>

namespace coulomb {
namespace {

// The minimum over a (n + 1)² grid of (s, u) ∈ [0, 1]², then over a finer
// grid around the best cell: within ~1e-9 of the distance.
double GridDistance(const Eigen::Vector3d& p, const Eigen::Vector3d& d_p,
                    const Eigen::Vector3d& q, const Eigen::Vector3d& d_q) {
  const auto distance = [&](double s, double u) {
    return (p + s * d_p - q - u * d_q).norm();
  };
  double best = distance(0.0, 0.0), s0 = 0.0, u0 = 0.0;
  double width = 1.0;
  for (int level = 0; level < 6; ++level) {
    const int n = 40;
    const double s_low = std::max(0.0, s0 - width), u_low = std::max(0.0, u0 - width);
    const double s_high = std::min(1.0, s0 + width), u_high = std::min(1.0, u0 + width);
    double next_s = s0, next_u = u0;
    for (int i = 0; i <= n; ++i) {
      for (int j = 0; j <= n; ++j) {
        const double s = s_low + (s_high - s_low) * i / n;
        const double u = u_low + (u_high - u_low) * j / n;
        const double d = distance(s, u);
        if (d < best) best = d, next_s = s, next_u = u;
      }
    }
    s0 = next_s, u0 = next_u;
    width = 2.0 * std::max(s_high - s_low, u_high - u_low) / n;
  }
  return best;
}

TEST(SegmentDistance, MatchesAGridMinimumOnRandomSegments) {
  std::mt19937 random(7);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  // Braces: x, y, z drawn in order (a call's arguments are not).
  const auto vector = [&] {
    return Eigen::Vector3d{unit(random), unit(random), unit(random)};
  };
  for (int trial = 0; trial < 300; ++trial) {
    const Eigen::Vector3d p = vector(), q = vector();
    // Some segments parallel, some points, the rest in general position.
    Eigen::Vector3d d_p = vector(), d_q = vector();
    if (trial % 5 == 1) d_q = -0.7 * d_p;
    if (trial % 5 == 2) d_p.setZero();
    if (trial % 5 == 3) d_q.setZero();
    const double expected = GridDistance(p, d_p, q, d_q);
    const double distance = SegmentDistance(p, d_p, q, d_q);
    // Never above the minimum (a pair of points of the segments is that
    // far), never below it.
    EXPECT_NEAR(distance, expected, 1e-8) << "trial " << trial;
  }
}

TEST(SegmentDistance, ClosedForms) {
  const Eigen::Vector3d x = Eigen::Vector3d::UnitX(), y = Eigen::Vector3d::UnitY();
  const Eigen::Vector3d z = Eigen::Vector3d::UnitZ();
  // Crossing segments at height 2: distance 2.
  EXPECT_NEAR(SegmentDistance(-x, 2 * x, 2 * z - y, 2 * y), 2.0, 1e-15);
  // Collinear, 0.5 apart end to end.
  EXPECT_NEAR(SegmentDistance(Eigen::Vector3d::Zero(), x, 1.5 * x, x), 0.5, 1e-15);
  // Parallel side by side, overlapping in x: their separation.
  EXPECT_NEAR(SegmentDistance(Eigen::Vector3d::Zero(), 2 * x, 0.3 * y + x, 2 * x), 0.3,
              1e-15);
  // Two bodies falling side by side in parallel columns 0.4 m apart.
  EXPECT_NEAR(SegmentDistance(Eigen::Vector3d::Zero(), -0.2 * z, 0.4 * x, -0.2 * z), 0.4,
              1e-15);
  // A point above a falling segment's end: the segment reaches up to it.
  EXPECT_NEAR(
      SegmentDistance(z, Eigen::Vector3d::Zero(), Eigen::Vector3d::Zero(), 0.6 * z), 0.4,
      1e-15);
}

}  // namespace
}  // namespace coulomb
