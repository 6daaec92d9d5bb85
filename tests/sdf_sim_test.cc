// Non-convex shapes through their signed distance fields: a sampled mesh
// keeps a ring's hole (it drops over a peg where its convex hull lands on
// top; at rest its contacts carry its weight), and the AL paper's revolved
// dishes nest and come to rest.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <numbers>

#include "coulomb/geometry/convex_mesh.h"
#include "coulomb/geometry/sampled_mesh_sdf.h"
#include "coulomb/scenes/builtin_scenes.h"
#include "coulomb/sim/simulation.h"

namespace coulomb {
namespace {

constexpr double kPi = std::numbers::pi;
constexpr double kMajor = 0.05, kMinor = 0.012;  // the ring's radii [m]

// A torus about z, 32 × 12 quads as outward triangles.
TriangleMesh Torus() {
  TriangleMesh mesh;
  const int n = 32, m = 12;
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < m; ++j) {
      const double u = 2 * kPi * i / n, v = 2 * kPi * j / m;
      const double rho = kMajor + kMinor * std::cos(v);
      mesh.vertices.emplace_back(rho * std::cos(u), rho * std::sin(u),
                                 kMinor * std::sin(v));
    }
  }
  const auto at = [&](int i, int j) { return (i % n) * m + (j % m); };
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < m; ++j) {
      mesh.triangles.push_back({at(i, j), at(i + 1, j), at(i + 1, j + 1)});
      mesh.triangles.push_back({at(i, j), at(i + 1, j + 1), at(i, j + 1)});
    }
  }
  return mesh;
}

// The ring (1 kg) 26 cm up, 6 mm off the axis of a peg (r = 2 cm, 20 cm
// tall) whose top its hole (r = 3.8 cm) clears; μ = 0.3, δt = 1 ms.
Simulation RingOverPeg(const Shape& ring) {
  Scene scene;
  scene.duration = 0.6;
  scene.parameters.time_step = 1e-3;
  ContactMaterial material;
  material.friction = 0.3;
  scene.system.AddStaticGeometry(HalfSpace{}, Eigen::Isometry3d::Identity(), material);
  scene.system.AddStaticGeometry(Cylinder{0.02, 0.2}, Pose(Eigen::Vector3d(0, 0, 0.1)),
                                 material);
  scene.system.AddFreeBody("ring", ring, 1.0, Pose(Eigen::Vector3d(0.006, 0, 0.26)),
                           Eigen::Vector3d::Zero(), Eigen::Vector3d::Zero(), material);
  return Simulation(std::move(scene));
}

TEST(SampledMeshSdf, RingDropsOverThePegWhereItsConvexHullLandsOnTop) {
  Simulation ring = RingOverPeg(MakeSampledMeshSdf(Torus(), "torus", 32));
  const SimulationSummary summary = ring.Run();
  ASSERT_EQ(summary.failed_steps, 0);
  const BodyState rest = ring.body_state("ring");
  // On the ground around the peg: the tube's radius up, within the grid's
  // interpolation error (spacing 3.9 mm, curvature radius 12 mm: 0.6 mm).
  EXPECT_NEAR(rest.pose.translation().z(), kMinor, 6e-4);
  EXPECT_LT(rest.pose.translation().head<2>().norm(), kMajor - kMinor - 0.02);
  EXPECT_LT(rest.linear_velocity.norm(), 1e-3);
  // At rest the ground carries m g δt (the peg nothing: the ring is around it).
  double carried = 0.0;
  for (const Contact& contact : ring.contacts()) carried += contact.impulse.z();
  EXPECT_NEAR(carried, 9.81 * 1e-3, 1e-6);

  Simulation hull = RingOverPeg(MakeConvexMesh(Torus().vertices, "torus hull"));
  hull.RunFor(0.3);  // it reaches the peg's top (0.2 m) and stays above it
  EXPECT_GT(hull.body_state("ring").pose.translation().z(), 0.15);
}

TEST(RevolvedShellDishes, BowlsNestAndThePileComesToRestCarryingItsWeight) {
  Simulation pile(MakeBuiltinScene("dish_pile", {{"dishes", "sdf"}}));
  const SimulationSummary summary = pile.RunFor(2.0);
  ASSERT_EQ(summary.failed_steps, 0);
  EXPECT_LT(summary.penetration_max, 1e-3);
  // The second bowl dropped 3 cm into the first: their centroids about a
  // centimetre apart, where stacked cylinders would be 4 cm apart.
  const double rise = pile.body_state("bowl_2").pose.translation().z() -
                      pile.body_state("bowl_1").pose.translation().z();
  EXPECT_GT(rise, 0.0);
  EXPECT_LT(rise, 0.02);
  const std::array<std::pair<const char*, double>, 4> dishes = {
      {{"bowl_1", 0.1}, {"bowl_2", 0.1}, {"plate", 0.1}, {"pot", 5.0}}};  // [kg]
  double total_mass = 0.0, momentum_before = 0.0;
  for (const auto& [dish, mass] : dishes) {
    EXPECT_LT(pile.body_state(dish).linear_velocity.norm(), 2e-3) << dish;
    total_mass += mass;
    momentum_before += mass * pile.body_state(dish).linear_velocity.z();
  }
  // Over 0.2 s more the impulses from the world change the pile's momentum
  // by exactly what gravity does not, Σ λ_z = n m g δt + Δp_z; at rest Δp_z
  // is a small part of n m g δt, so the ground carries the whole pile. (A
  // pile of sampled surfaces rests with a tremor: one step's λ_z strays up
  // to about 1 % from m g δt.)
  const int steps = static_cast<int>(std::lround(0.2 / pile.time_step()));
  double carried = 0.0, momentum_after = 0.0;
  for (int n = 0; n < steps; ++n) {
    ASSERT_TRUE(pile.Step().converged);
    for (const Contact& contact : pile.contacts()) {
      if (contact.body_a == "world") carried += contact.impulse.z();
    }
  }
  for (const auto& [dish, mass] : dishes)
    momentum_after += mass * pile.body_state(dish).linear_velocity.z();
  const double weight = steps * total_mass * 9.81 * pile.time_step();
  EXPECT_NEAR(carried, weight + momentum_after - momentum_before, 1e-6 * weight);
  EXPECT_NEAR(carried, weight, 1e-3 * weight);
}

}  // namespace
}  // namespace coulomb
