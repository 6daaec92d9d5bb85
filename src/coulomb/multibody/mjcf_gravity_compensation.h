#pragma once

#include <string>
#include <vector>

#include <Eigen/Dense>

namespace coulomb {

// A body's gravity compensation (MuJoCo's `gravcomp`): a force −c m g at its
// centre of mass, c its gravcomp (1: weightless), m its mass.
struct MjcfGravityCompensation {
  std::string body;
  double mass = 0.0;                                 // c m [kg]
  Eigen::Vector3d center = Eigen::Vector3d::Zero();  // in the body's frame [m]
};

// The bodies of the MJCF file at `path` with a gravcomp other than 0 and a
// mass (their <inertial>'s, or their geoms': ReadMjcfRoot), in file order.
// Throws std::runtime_error naming the body for a gravcomp that is not a
// finite number.
std::vector<MjcfGravityCompensation> ReadMjcfGravityCompensations(
    const std::string& path);

}  // namespace coulomb
