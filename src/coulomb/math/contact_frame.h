#pragma once

#include <cmath>

#include <Eigen/Dense>

namespace coulomb {

// The contact frame C of a contact with unit normal n: R_WC = [t1, t2, n], a
// right-handed orthonormal frame whose z axis is n. Impulses γ = [t1, t2, n]
// of a contact are in C: γ_W = R_WC γ. The geometry's contact-plane
// coordinates use the same tangents.
//
// With s = sign(n_z) (+1 for n_z = 0), a = −1/(s + n_z) and b = n_x n_y a:
//   t1 = [1 + s n_x² a, s b, −s n_x],   t2 = [b, s + n_y² a, −n_y],
// the branch-free construction of Duff et al., "Building an Orthonormal
// Basis, Revisited" (JCGT 6(1), 2017): one division, no square root, and
// s + n_z ≥ 1 in magnitude, so no cancellation for any n. Every contact
// builds its frame at every step.
inline Eigen::Matrix3d ContactFrame(const Eigen::Vector3d& n) {
  const double s = std::copysign(1.0, n.z());
  const double a = -1.0 / (s + n.z());
  const double b = n.x() * n.y() * a;
  Eigen::Matrix3d frame;
  frame << 1.0 + s * n.x() * n.x() * a, b, n.x(),  //
      s * b, s + n.y() * n.y() * a, n.y(),         //
      -s * n.x(), -n.y(), n.z();
  return frame;
}

}  // namespace coulomb
