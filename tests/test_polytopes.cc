#include "test_polytopes.h"

#include <cmath>

#include "coulomb/geometry/convex_mesh.h"

namespace coulomb::testing {

std::vector<Eigen::Vector3d> BoxCorners(const Eigen::Vector3d& half_extents) {
  std::vector<Eigen::Vector3d> corners;
  for (int k = 0; k < 8; ++k) {
    corners.emplace_back(k & 1 ? half_extents.x() : -half_extents.x(),
                         k & 2 ? half_extents.y() : -half_extents.y(),
                         k & 4 ? half_extents.z() : -half_extents.z());
  }
  return corners;
}

ConvexMesh TwelveGonPrism() {
  std::vector<Eigen::Vector3d> points;
  for (int k = 0; k < 12; ++k) {
    for (const double z : {-0.05, 0.05})
      points.emplace_back(0.1 * std::cos(k * M_PI / 6), 0.1 * std::sin(k * M_PI / 6), z);
  }
  return MakeConvexMesh(points, "12-gon");
}

}  // namespace coulomb::testing
