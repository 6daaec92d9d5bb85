#include "coulomb/geometry/box_separation.h"

#include <cmath>

namespace coulomb {

BoxSeparation BoxSeparatingAxis(const Eigen::Isometry3d& X_WA,
                                const Eigen::Vector3d& half_extents_a,
                                const Eigen::Isometry3d& X_WB,
                                const Eigen::Vector3d& half_extents_b,
                                double edge_axis_bias, double stop_above) {
  // In A's frame: B's axes are the columns of R, its center c.
  const Eigen::Matrix3d R = X_WA.linear().transpose() * X_WB.linear();
  const Eigen::Vector3d c =
      X_WA.linear().transpose() * (X_WB.translation() - X_WA.translation());
  const Eigen::Matrix3d abs_r = R.cwiseAbs();
  BoxSeparation best;
  Eigen::Vector3d axis_A = Eigen::Vector3d::UnitZ();  // best.axis_W, in A's frame
  const auto consider = [&](double separation, const Eigen::Vector3d& unit_axis_A) {
    if (separation <= best.separation) return;
    best.separation = separation;
    axis_A = unit_axis_A;
  };
  for (int i = 0; i < 3; ++i) {  // A's face normals
    consider(std::abs(c(i)) - half_extents_a(i) - abs_r.row(i).dot(half_extents_b),
             Eigen::Vector3d::Unit(i));
  }
  for (int j = 0; j < 3; ++j) {  // B's face normals
    consider(
        std::abs(R.col(j).dot(c)) - abs_r.col(j).dot(half_extents_a) - half_extents_b(j),
        R.col(j));
  }
  const double best_face = best.separation;
  for (int i = 0; i < 3 && best.separation <= stop_above; ++i) {  // a_i × b_j
    for (int j = 0; j < 3 && best.separation <= stop_above; ++j) {
      const Eigen::Vector3d axis = Eigen::Vector3d::Unit(i).cross(R.col(j));
      const double length = axis.norm();
      if (length < BoxSeparation::kParallelEdges) continue;
      const double projected_b = half_extents_b.dot((R.transpose() * axis).cwiseAbs());
      const double projected_a = half_extents_a.dot(axis.cwiseAbs());
      const double separation =
          (std::abs(axis.dot(c)) - projected_a - projected_b) / length;
      if (separation > best_face + edge_axis_bias) consider(separation, axis / length);
    }
  }
  best.axis_W = X_WA.linear() * (axis_A.dot(c) < 0.0 ? -axis_A : axis_A);
  return best;
}

}  // namespace coulomb
