#pragma once

#include <cmath>

#include <Eigen/Dense>

namespace coulomb {

// The contact frame C of a contact with unit normal n: R_WC, whose z axis is
// n and whose x axis t1 = n × h / ‖n × h‖ for the helper h = x̂ (ŷ when n is
// within 26° of x̂, so that the cross product stays long); y = n × t1
// completes a right-handed frame. Impulses γ = [t1, t2, n] of a contact are
// in C: γ_W = R_WC γ. The geometry's contact-plane coordinates use the same
// tangents.
inline Eigen::Matrix3d ContactFrame(const Eigen::Vector3d& normal) {
  const Eigen::Vector3d helper =
      std::abs(normal.x()) < 0.9 ? Eigen::Vector3d::UnitX() : Eigen::Vector3d::UnitY();
  const Eigen::Vector3d t1 = normal.cross(helper).normalized();
  Eigen::Matrix3d frame;
  frame << t1, normal.cross(t1), normal;
  return frame;
}

}  // namespace coulomb
