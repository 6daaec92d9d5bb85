#pragma once

#include <limits>
#include <string>
#include <vector>

namespace coulomb {

// An actuator of an MJCF file's <actuator> section on a one-dof joint or a
// fixed tendon (MjcfFixedTendon: its length L = Σ c_k q_k stands for q, and
// each joint k takes c_k times the force), as the joint PD law u = clamp(kp (target − q)
// + kd (target_velocity − q̇) + feedforward, ±effort_limit) with target, target velocity
// and feedforward 0 (MuJoCo's controls start at 0). MuJoCo's actuator force on a joint
// transmission of gear g is f = gain·ctrl + bias, its joint torque g f:
//   <position kp kv>  f = kp (ctrl − q) − kv q̇        → kp, kd = kv
//   <velocity kv>     f = kv (ctrl − q̇)               → kd = kv
//   <motor>           f = ctrl                        → kp = kd = 0
//   <general gainprm="a" biasprm="b0 b1 b2" biastype="affine">
//                     f = a ctrl + b0 + b1 q + b2 q̇, read when it is one of
//                     the three: b = 0 (a motor of gain a > 0),
//                     b = (0, −kp, −kv), kp > 0 (a position servo: f =
//                     kp (s ctrl − q) − kv q̇, its target s ctrl, s = a/kp)
//                     or b = (0, 0, −kv), kv > 0 (a velocity servo, its
//                     target velocity s ctrl, s = a/kv).
// forcerange [−F, F] (forcelimited, or given with forcelimited auto) bounds
// f: effort_limit = |g| F. A motor's control is the effort set on the joint
// (its torque, g a ctrl), and its ctrlrange [−c, c] (ctrllimited, or given)
// bounds it too: effort_limit = |g| min(F, a c). A servo's control is its
// target (a position's, or a velocity's: s ctrl), and its ctrlrange bounds
// the control, so s ctrlrange the target, as MuJoCo clamps controls; a position servo's
// inheritrange r > 0 takes that range from the joint's: its middle ± r times its
// half-width. Servos need g = 1. A class's defaults (MjcfDefaults) are resolved.
struct MjcfActuator {
  enum class Control { kEffort, kTargetPosition, kTargetVelocity };

  std::string name;    // the actuator's, or "<type> on <joint or tendon>" when unnamed
  std::string joint;   // its joint, or "" on a tendon
  std::string tendon;  // its fixed tendon, or "" on a joint
  double proportional_gain = 0.0;  // [N·m/rad or N/m]
  double derivative_gain = 0.0;    // [N·m·s/rad or N·s/m]
  double effort_limit = std::numeric_limits<double>::infinity();  // [N·m or N]
  Control control = Control::kEffort;
  // A servo's target range (ctrlrange), lower < upper; ±∞ when not limited.
  double control_lower = -std::numeric_limits<double>::infinity();
  double control_upper = std::numeric_limits<double>::infinity();
  double target_per_control = 1.0;  // a servo's target per unit control: s
  double inherit_range = 0.0;       // > 0: the target range from the joint's
  double effort_per_control = 1.0;  // a motor's joint torque per unit control: g a
  double gear = 1.0;                // g: the joint's or tendon's effort per unit force
};

// The actuators of the MJCF file at `path`, in file order. Throws
// std::runtime_error naming the actuator for what the mapping above cannot
// represent: another actuator type (muscle, cylinder, …), a transmission
// other than a joint or a tendon (site, body), both or neither, an attribute it does not
// read (dampratio, dyntype other than none, …), another <general> law, servo gear ≠ 1, an
// asymmetric or empty forcerange (or a motor's ctrlrange), an empty ctrlrange, or a class
// whose actuator defaults come from another actuator type. Joint and tendon names are not
// checked here.
std::vector<MjcfActuator> ReadMjcfActuators(const std::string& path);

}  // namespace coulomb
