// Rays against every shape: the first crossing RayDistance gives against
// the first sign change of the shape's signed distance φ(p + t d), marched
// in small steps and bisected (an independent reference), for rays from
// outside aimed through the shape, from inside, and aimed away from it.
#include "coulomb/geometry/ray_cast.h"

#include <limits>

#include <random>

#include <gtest/gtest.h>

#include "coulomb/geometry/convex_mesh.h"
#include "coulomb/geometry/shape_signed_distance.h"

namespace coulomb {
namespace {

double Phi(const Shape& shape, const Eigen::Vector3d& x) {
  Eigen::Vector3d gradient;
  return ShapeSignedDistance(shape, x, &gradient);
}

// The first t in [0, 4] where φ changes sign along the ray, to 1e-12.
std::optional<double> MarchedCrossing(const Shape& shape, const Eigen::Vector3d& p,
                                      const Eigen::Vector3d& d) {
  const bool inside = Phi(shape, p) < 0.0;
  const auto crossed = [&](double t) { return (Phi(shape, p + t * d) < 0.0) != inside; };
  constexpr double kStep = 1e-3;
  for (double t = kStep; t <= 4.0; t += kStep) {
    if (!crossed(t)) continue;
    double low = t - kStep, high = t;
    while (high - low > 1e-12)
      (crossed(0.5 * (low + high)) ? high : low) = 0.5 * (low + high);
    return high;
  }
  return std::nullopt;
}

std::vector<Eigen::Vector3d> OctahedronPoints() {
  return {{0.3, 0, 0}, {-0.2, 0, 0},       {0, 0.25, 0},   {0, -0.35, 0},
          {0, 0, 0.4}, {0.05, 0.05, -0.3}, {0.1, 0.1, 0.1}};
}

// The shapes, each with a radius within which points are inside it.
std::vector<std::pair<Shape, double>> ShapesAndInnerRadii() {
  return {{Sphere{0.3}, 0.15},
          {Box{Eigen::Vector3d(0.4, 0.6, 0.2)}, 0.08},
          {Capsule{0.1, 0.5}, 0.04},
          {Cylinder{0.2, 0.3}, 0.1},
          {Ellipsoid{Eigen::Vector3d(0.3, 0.15, 0.4)}, 0.07},
          {MakeConvexMesh(OctahedronPoints(), "octahedron"), 0.05}};
}

TEST(RayCastTest, MeetsEachShapeWhereItsSignedDistanceChangesSign) {
  std::mt19937 random(7);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  const auto random_unit = [&] {
    return Eigen::Vector3d(unit(random), unit(random), unit(random)).normalized();
  };
  for (const auto& [shape, interior] : ShapesAndInnerRadii()) {
    int hits = 0;
    for (int trial = 0; trial < 200; ++trial) {
      const Eigen::Vector3d target = interior * unit(random) * random_unit();
      // From outside, through the point; from inside it, anywhere.
      const Eigen::Vector3d from_outside = target + 1.5 * random_unit();
      const Eigen::Vector3d d = (target - from_outside).normalized();
      const Eigen::Vector3d d_inside = random_unit();
      for (const auto& [p, direction] :
           {std::pair{from_outside, d}, std::pair{target, d_inside}}) {
        const std::optional<double> expected = MarchedCrossing(shape, p, direction);
        const std::optional<double> t = RayDistance(shape, p, direction);
        ASSERT_TRUE(expected.has_value()) << ShapeName(shape);
        ASSERT_TRUE(t.has_value()) << ShapeName(shape) << " trial " << trial;
        EXPECT_NEAR(*t, *expected, 1e-9) << ShapeName(shape) << " trial " << trial;
        ++hits;
      }
      // Aimed away from the shape's bounding sphere: nothing.
      const Eigen::Vector3d away = from_outside.normalized();
      const Eigen::Vector3d outside = (BoundingRadius(shape) + 0.1) * away;
      EXPECT_FALSE(RayDistance(shape, outside, away).has_value()) << ShapeName(shape);
    }
    EXPECT_EQ(hits, 400);
  }
}

TEST(RayCastTest, AMeshSurfaceIsMetWhereItsHullIs) {
  // The SDF shape's triangles (Möller–Trumbore) against the convex mesh's
  // face planes (its hull's half-spaces): two algorithms, one surface.
  const ConvexMesh mesh = MakeConvexMesh(OctahedronPoints(), "octahedron");
  const SdfShape surface{"octahedron", nullptr,
                         std::make_shared<const TriangleMesh>(*mesh.hull)};
  std::mt19937 random(11);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  int hits = 0;
  for (int trial = 0; trial < 500; ++trial) {
    const Eigen::Vector3d p(unit(random), unit(random), unit(random));
    const Eigen::Vector3d d =
        (0.1 * Eigen::Vector3d(unit(random), unit(random), unit(random)) - p)
            .normalized();
    const std::optional<double> by_planes = RayDistance(mesh, p, d);
    const std::optional<double> by_triangles = RayDistance(surface, p, d);
    ASSERT_EQ(by_planes.has_value(), by_triangles.has_value()) << trial;
    if (!by_planes) continue;
    EXPECT_NEAR(*by_planes, *by_triangles, 1e-12) << trial;
    ++hits;
  }
  EXPECT_GT(hits, 200);
}

TEST(RayCastTest, AHalfSpaceIsMetFromAboveOnly) {
  const Eigen::Vector3d down = Eigen::Vector3d(0.6, 0.0, -0.8);
  ASSERT_TRUE(RayDistance(HalfSpace{}, Eigen::Vector3d(1, 2, 0.4), down).has_value());
  EXPECT_NEAR(*RayDistance(HalfSpace{}, Eigen::Vector3d(1, 2, 0.4), down), 0.5, 1e-15);
  EXPECT_FALSE(RayDistance(HalfSpace{}, Eigen::Vector3d(1, 2, 0.4), -down).has_value());
  EXPECT_FALSE(RayDistance(HalfSpace{}, Eigen::Vector3d(1, 2, -0.4), -down).has_value());
  EXPECT_FALSE(
      RayDistance(HalfSpace{}, Eigen::Vector3d(1, 2, 0.4), Eigen::Vector3d::UnitX())
          .has_value());
}

TEST(RayCastTest, AHalfSpacesRayExtentBoundsWhereRaysMeetIt) {
  // The ray from (1, 2, 0.4) along (0.6, 0, −0.8) meets z = 0 at (1.3, 2).
  const Eigen::Vector3d p(1, 2, 0.4), down(0.6, 0.0, -0.8);
  const auto met = [&](double half_x, double half_y) {
    return RayDistance(HalfSpace{Eigen::Vector2d(half_x, half_y)}, p, down).has_value();
  };
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_TRUE(met(1.31, 2.01));
  EXPECT_FALSE(met(1.29, 2.01));
  EXPECT_FALSE(met(1.31, 1.99));
  EXPECT_TRUE(met(inf, 2.01));
  EXPECT_FALSE(met(inf, 1.99));
}

}  // namespace
}  // namespace coulomb
