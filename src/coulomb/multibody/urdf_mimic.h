#pragma once

#include <string>
#include <vector>

namespace coulomb {

// A URDF mimic joint: <joint name="j"><mimic joint="r" multiplier="m"
// offset="c"/></joint> drives q_j = m q_r + c (m = 1 and c = 0 when not
// given), which Pinocchio's parser leaves out.
struct UrdfMimicJoint {
  std::string joint;
  std::string reference;
  double multiplier = 1.0;
  double offset = 0.0;  // [rad or m]
};

// The mimic joints of the URDF file at `path`, in file order. Throws
// std::runtime_error naming the joint for a <mimic> without a joint or with
// a value that is not a finite number.
std::vector<UrdfMimicJoint> ReadUrdfMimicJoints(const std::string& path);

}  // namespace coulomb
