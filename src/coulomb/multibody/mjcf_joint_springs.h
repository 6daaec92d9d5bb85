#pragma once

#include <string>
#include <vector>

namespace coulomb {

// The spring of an MJCF file's hinge or slide joint: MuJoCo's passive
// joint force −k (q − q_s), k [N·m/rad or N/m] the joint's stiffness and
// q_s [rad or m] its springref. A hinge's springref is in degrees unless
// <compiler angle="radian"> (MuJoCo's default unit is the degree); it is
// returned in radians. Pinocchio's parser gives a joint MuJoCo's q (it
// moves the joint's placement by its ref), so q_s is the rest position in
// the model's coordinates too.
struct MjcfJointSpring {
  std::string joint;
  double stiffness = 0.0;
  double rest_position = 0.0;
};

// The springs of the MJCF file at `path` (joints of stiffness > 0 only),
// default classes resolved (MjcfDefaults: a joint's class, or its body's
// childclass). Throws std::runtime_error naming the joint for a negative
// or non-finite stiffness or springref, a ball or free joint with a
// stiffness (not read), or a joint without a name that has one.
std::vector<MjcfJointSpring> ReadMjcfJointSprings(const std::string& path);

}  // namespace coulomb
