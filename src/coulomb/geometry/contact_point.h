#pragma once

#include <Eigen/Dense>

namespace coulomb {

// A contact point between geometries A and B (A's index < B's).
// normal_W: unit normal pointing from A into B; p_W: the midpoint between
// the two surfaces; phi: signed distance [m], negative when they overlap.
struct ContactPoint {
  int geometry_a = -1;
  int geometry_b = -1;
  Eigen::Vector3d p_W = Eigen::Vector3d::Zero();
  Eigen::Vector3d normal_W = Eigen::Vector3d::UnitZ();
  double phi = 0.0;
  // How many surface samples this point stands for: 1, or the size of the
  // cluster it represents (contact_clustering.h). A compliant contact's
  // stiffness is multiplied by it, so clustering keeps the pair's total.
  double weight = 1.0;
};

}  // namespace coulomb
