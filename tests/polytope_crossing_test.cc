// A patch's crossings of a convex polytope, walked over its triangles,
// against the minimum (maximum) over every face of the hull.
#include "coulomb/geometry/polytope_crossing.h"

#include <cmath>
#include <limits>
#include <random>

#include <gtest/gtest.h>

#include "coulomb/geometry/convex_mesh.h"
#include "test_polytopes.h"

namespace coulomb {
namespace {

// t_exit (leaving) or t_enter of the line p + t n, over every face of the
// hull within 60° of ±n.
double CrossingOverAllFaces(const ConvexHull& hull, const Eigen::Vector3d& n,
                            bool leaving, const Eigen::Vector3d& p) {
  const double side = leaving ? 1.0 : -1.0;
  double crossing = side * std::numeric_limits<double>::infinity();
  for (size_t f = 0; f < hull.face_normals.size(); ++f) {
    const double slope = hull.face_normals[f].dot(n);
    if (side * slope < 0.5) continue;
    const double t = (hull.face_offsets[f] - hull.face_normals[f].dot(p)) / slope;
    crossing = leaving ? std::min(crossing, t) : std::max(crossing, t);
  }
  return crossing;
}

Eigen::Vector3d RandomUnitVector(std::mt19937* random) {
  std::normal_distribution<double> normal;
  return Eigen::Vector3d(normal(*random), normal(*random), normal(*random)).normalized();
}

TEST(PatchPolytopeCrossing, EqualsTheCrossingOverEveryFaceAtEachPointOfThePatch) {
  // A rounded hull of 300 points on an ellipsoid (about 600 triangles);
  // patches of 8 points within up to 2 cm of their centre, inside the hull,
  // lines leaving and entering along random normals. The walks, not the
  // pass over every face, find nearly all crossings.
  std::mt19937 random(11);
  std::vector<Eigen::Vector3d> points;
  for (int k = 0; k < 300; ++k)
    points.push_back(
        RandomUnitVector(&random).cwiseProduct(Eigen::Vector3d(0.1, 0.06, 0.04)));
  const ConvexMesh mesh = MakeConvexMesh(points, "ellipsoid");
  const ConvexHull& hull = *mesh.hull;
  ASSERT_GT(hull.triangles.size(), 500u);
  ASSERT_EQ(hull.neighbors.size(), hull.triangles.size());
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  PatchPolytopeCrossing crossing;
  int compared = 0, start_face = 0;
  for (int patch = 0; patch < 400; ++patch) {
    const Eigen::Vector3d n = RandomUnitVector(&random);
    const bool leaving = patch % 2 == 0;
    const Eigen::Vector3d center = 0.02 * uniform(random) * RandomUnitVector(&random);
    crossing.Prepare(hull, n, leaving, start_face);
    for (int i = 0; i < 8; ++i) {
      const Eigen::Vector3d p =
          center + 0.02 * uniform(random) * RandomUnitVector(&random);
      const double expected = CrossingOverAllFaces(hull, n, leaving, p);
      EXPECT_NEAR(crossing.At(p), expected, 1e-14 * (1.0 + std::abs(expected)))
          << "patch " << patch << " point " << i;
      ++compared;
    }
    start_face = crossing.face();
  }
  EXPECT_EQ(compared, 3200);
  // Lines through the hull's middle cross it through a steep face (beyond
  // 60° of the line) in a few per cent of the cases.
  EXPECT_LT(crossing.num_passes(), compared / 10);
}

TEST(PatchPolytopeCrossing, ALineMissingTheHullGetsThePassOverEveryFace) {
  // A line beside the box [−0.1, 0.1]³, along z: no triangle's plane is
  // met within it, and the crossing is that of the top face's plane.
  const ConvexMesh box =
      MakeConvexMesh(testing::BoxCorners(Eigen::Vector3d::Constant(0.1)), "box");
  const Eigen::Vector3d n = Eigen::Vector3d::UnitZ();
  const Eigen::Vector3d beside(0.3, 0.0, 0.05);
  PatchPolytopeCrossing crossing;
  for (const int start : {0, 5, 11}) {
    crossing.Prepare(*box.hull, n, /*leaving=*/true, start);
    EXPECT_DOUBLE_EQ(crossing.At(beside), 0.05);
  }
  EXPECT_EQ(crossing.num_passes(), 3);
  // Through the box, a tilted line leaves by the top face's plane and
  // enters by the bottom's, from any start.
  const Eigen::Vector3d tilted = Eigen::Vector3d(0.2, -0.1, 1.0).normalized();
  const Eigen::Vector3d p(0.01, 0.02, -0.03);
  for (int start = 0; start < 12; ++start) {
    crossing.Prepare(*box.hull, tilted, /*leaving=*/true, start);
    EXPECT_NEAR(crossing.At(p), (0.1 - p.z()) / tilted.z(), 1e-14);
    crossing.Prepare(*box.hull, tilted, /*leaving=*/false, start);
    EXPECT_NEAR(crossing.At(p), (-0.1 - p.z()) / tilted.z(), 1e-14);
  }
  EXPECT_EQ(crossing.num_passes(), 3);
}

TEST(PatchPolytopeCrossing, EachTrianglesNeighboursShareItsEdges) {
  // The box's 12 triangles: across each edge lies a triangle that holds
  // the same two corners, in the opposite order (outward orientation).
  const ConvexMesh box =
      MakeConvexMesh(testing::BoxCorners(Eigen::Vector3d::Ones()), "box");
  const ConvexHull& hull = *box.hull;
  ASSERT_EQ(hull.neighbors.size(), 12u);
  for (size_t f = 0; f < 12; ++f) {
    for (int k = 0; k < 3; ++k) {
      const int from = hull.triangles[f][k], to = hull.triangles[f][(k + 1) % 3];
      const std::array<int, 3>& other = hull.triangles[hull.neighbors[f][k]];
      bool reversed = false;
      for (int m = 0; m < 3; ++m)
        reversed = reversed || (other[m] == to && other[(m + 1) % 3] == from);
      EXPECT_TRUE(reversed) << "triangle " << f << " edge " << k;
    }
  }
}

}  // namespace
}  // namespace coulomb
