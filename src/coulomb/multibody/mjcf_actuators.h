#pragma once

#include <limits>
#include <string>
#include <vector>

namespace coulomb {

// An actuator of an MJCF file's <actuator> section on a one-dof joint, as
// the joint PD law u = clamp(kp (target − q) + kd (target_velocity − q̇) +
// feedforward, ±effort_limit) with target, target velocity and feedforward
// 0 (MuJoCo's controls start at 0). MuJoCo's actuator force on a joint
// transmission of gear g is f = gain·ctrl + bias, its joint torque g f:
//   <position kp kv>  f = kp (ctrl − q) − kv q̇        → kp, kd = kv
//   <velocity kv>     f = kv (ctrl − q̇)               → kd = kv
//   <motor>           f = ctrl                        → kp = kd = 0
// forcerange [−F, F] (forcelimited, or given with forcelimited auto) bounds
// f: effort_limit = |g| F. A motor's control is then the effort set on the
// joint (its torque, g ctrl), and its ctrlrange [−c, c] (ctrllimited, or
// given) bounds it too: effort_limit = |g| min(F, c). Position and velocity
// actuators need g = 1; their ctrlrange (a range of targets) is not
// enforced.
struct MjcfActuator {
  std::string name;  // the actuator's, or "<type> on <joint>" when unnamed
  std::string joint;
  double proportional_gain = 0.0;  // [N·m/rad or N/m]
  double derivative_gain = 0.0;    // [N·m·s/rad or N·s/m]
  double effort_limit = std::numeric_limits<double>::infinity();  // [N·m or N]
};

// The actuators of the MJCF file at `path`, in file order. Throws
// std::runtime_error naming the actuator for what the mapping above cannot
// represent: another actuator type (general, muscle, …), a transmission other
// than a joint (tendon, site, body), an attribute it does not read
// (dampratio, gainprm, …), position or velocity gear ≠ 1, an asymmetric or
// empty forcerange (or a motor's ctrlrange), or actuator defaults (<default><position
// …/>), whose inheritance is not resolved. Joint names are not checked here.
std::vector<MjcfActuator> ReadMjcfActuators(const std::string& path);

}  // namespace coulomb
