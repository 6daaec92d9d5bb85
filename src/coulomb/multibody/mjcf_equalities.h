#pragma once

#include <array>
#include <string>
#include <vector>

#include "coulomb/multibody/mjcf_joints.h"

namespace coulomb {

// An MJCF <equality><joint joint1 joint2 polycoef> or <equality><tendon
// tendon1 tendon2 polycoef>: MuJoCo's
//   s − s_0 = a_0 + a_1 (r − r_0) + a_2 (r − r_0)² + a_3 (r − r_0)³ + a_4 (r − r_0)⁴,
// s the position of joint1 (or the length of tendon1), r joint2's (or
// tendon2's), s_0 and r_0 their values at qpos0 (a joint's ref; a fixed
// tendon's Σ c_k ref_k). Without joint2 (tendon2) s is held at s_0 + a_0.
// Written as s = Σ_k p_k (r − r_0)^k, p_0 = s_0 + a_0 and p_k = a_k after.
struct MjcfCoupling {
  std::string driven;     // joint1 or tendon1
  std::string reference;  // joint2 or tendon2, empty when not given
  std::array<double, 5> polynomial{0.0, 1.0, 0.0, 0.0, 0.0};  // p_k
  double reference_origin = 0.0;                              // r_0
  bool on_tendons = false;  // <equality><tendon>: driven and reference are tendons
};

// The file's active joint and tendon equalities, in file order. Throws
// std::runtime_error naming the equality for one without joint1 (tendon1),
// a polycoef of more than five numbers or not numbers, joints that are not
// hinges or slides of the file, or tendons that are not fixed tendons of
// it. `joints`: the file's, from ReadMjcfJoints (their refs, in radians).
std::vector<MjcfCoupling> ReadMjcfCouplings(const std::string& path,
                                            const std::vector<MjcfJoint>& joints);

}  // namespace coulomb
