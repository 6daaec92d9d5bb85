#include "coulomb/geometry/box_separation.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace coulomb {

double BoxSeparationLowerBound(const Eigen::Isometry3d& X_WA,
                               const Eigen::Vector3d& half_extents_a,
                               const Eigen::Isometry3d& X_WB,
                               const Eigen::Vector3d& half_extents_b, double stop_above) {
  // In A's frame: B's axes are the columns of R, its center c.
  const Eigen::Matrix3d R = X_WA.linear().transpose() * X_WB.linear();
  const Eigen::Vector3d c =
      X_WA.linear().transpose() * (X_WB.translation() - X_WA.translation());
  const Eigen::Matrix3d abs_r = R.cwiseAbs();
  double best = -std::numeric_limits<double>::infinity();
  for (int i = 0; i < 3; ++i) {  // A's face normals
    best = std::max(
        best, std::abs(c(i)) - half_extents_a(i) - abs_r.row(i).dot(half_extents_b));
  }
  for (int j = 0; j < 3; ++j) {  // B's face normals
    best = std::max(best, std::abs(R.col(j).dot(c)) - abs_r.col(j).dot(half_extents_a) -
                              half_extents_b(j));
  }
  if (best > stop_above) return best;
  for (int i = 0; i < 3; ++i) {  // a_i × b_j
    for (int j = 0; j < 3; ++j) {
      const Eigen::Vector3d axis = Eigen::Vector3d::Unit(i).cross(R.col(j));
      const double length = axis.norm();
      if (length < 1e-9) continue;
      const double projected_b = half_extents_b.dot((R.transpose() * axis).cwiseAbs());
      const double projected_a = half_extents_a.dot(axis.cwiseAbs());
      best = std::max(best, (std::abs(axis.dot(c)) - projected_a - projected_b) / length);
      if (best > stop_above) return best;
    }
  }
  return best;
}

}  // namespace coulomb
