#include "coulomb/sim/mjcf_robot.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace coulomb {
namespace {

// The joint or tendon an actuator drives, by name.
const std::string& ActuatedName(const MjcfActuator& actuator) {
  return actuator.joint.empty() ? actuator.tendon : actuator.joint;
}

// A servo's target range: its ctrlrange times its target per control, or
// with inheritrange r > 0 the joint's range scaled by r about its middle.
JointTargetRange ServoTargetRange(const MjcfActuator& actuator,
                                  const MultibodyTree& model) {
  const double scale = actuator.target_per_control;  // > 0
  JointTargetRange range{ActuatedName(actuator),
                         actuator.control == MjcfActuator::Control::kTargetVelocity,
                         scale * actuator.control_lower, scale * actuator.control_upper};
  if (actuator.inherit_range > 0.0) {
    if (actuator.joint.empty())
      throw std::invalid_argument("inheritrange on tendon '" + actuator.tendon +
                                  "' is not read (tendon ranges are not): give a "
                                  "ctrlrange");
    const MultibodyTree::JointIndex joint = model.FindOneDofJoint(actuator.joint);
    if (!std::isfinite(joint.lower_limit) || !std::isfinite(joint.upper_limit))
      throw std::invalid_argument("inheritrange on joint '" + actuator.joint +
                                  "', which has no range");
    const double middle = 0.5 * (joint.lower_limit + joint.upper_limit);
    const double half_width = 0.5 * (joint.upper_limit - joint.lower_limit);
    range.lower = middle - actuator.inherit_range * half_width;
    range.upper = middle + actuator.inherit_range * half_width;
  }
  return range;
}

// A joint's part of a keyframe's qpos, written into the model's q.
void SetJointPositions(const MjcfJoint& joint, const double* qpos,
                       const MultibodyTree::JointRange& range, Eigen::VectorXd* q) {
  if (joint.type == MjcfJoint::Type::kBall) {  // MuJoCo's w x y z, Pinocchio's x y z w
    const Eigen::Quaterniond rotation =
        Eigen::Quaterniond(qpos[0], qpos[1], qpos[2], qpos[3]).normalized();
    q->segment<4>(range.first_position) = rotation.coeffs();
  } else {
    (*q)[range.first_position] = qpos[0];
  }
}

// The sum of the joints' entries in qpos (`positions`) or in qvel, checked
// against the size of the keyframe's vector (empty: not given).
void CheckKeyframeSize(const std::vector<MjcfJoint>& joints, const MjcfKeyframe& keyframe,
                       bool positions) {
  const std::vector<double>& values = positions ? keyframe.qpos : keyframe.qvel;
  size_t size = 0;
  for (const MjcfJoint& joint : joints)
    size += positions ? joint.num_positions() : joint.num_velocities();
  if (!values.empty() && values.size() != size) {
    throw std::invalid_argument("keyframe '" + keyframe.name +
                                "': " + (positions ? "qpos" : "qvel") + " has " +
                                std::to_string(values.size()) +
                                " numbers, the file's joints " + std::to_string(size));
  }
}

// Each named hinge and slide at its ref.
void SetReferenceConfiguration(const std::vector<MjcfJoint>& joints,
                               const MultibodyTree& model, Eigen::VectorXd* q) {
  for (const MjcfJoint& joint : joints) {
    const bool one_dof =
        joint.type == MjcfJoint::Type::kHinge || joint.type == MjcfJoint::Type::kSlide;
    if (one_dof && !joint.name.empty() && joint.reference != 0.0)
      (*q)[model.FindOneDofJoint(joint.name).position] = joint.reference;
  }
}

}  // namespace

void SetMjcfInitialState(const std::vector<MjcfJoint>& joints,
                         const MjcfKeyframe& keyframe, bool root_pose_from_keyframe,
                         const MultibodyTree& model, Eigen::VectorXd* q,
                         Eigen::VectorXd* v) {
  SetReferenceConfiguration(joints, model, q);
  CheckKeyframeSize(joints, keyframe, true);
  CheckKeyframeSize(joints, keyframe, false);
  const double* qpos = keyframe.qpos.empty() ? nullptr : keyframe.qpos.data();
  const double* qvel = keyframe.qvel.empty() ? nullptr : keyframe.qvel.data();
  for (const MjcfJoint& joint : joints) {
    if (joint.type == MjcfJoint::Type::kFree) {
      // The floating base: p_W then x y z w; v = [ṗ_W, ω_B] as MuJoCo's.
      if (qpos && root_pose_from_keyframe) {
        q->head<3>() = Eigen::Vector3d(qpos[0], qpos[1], qpos[2]);
        q->segment<4>(3) =
            Eigen::Quaterniond(qpos[3], qpos[4], qpos[5], qpos[6]).normalized().coeffs();
      }
      if (qvel && model.has_free_base())
        v->head<6>() = Eigen::Map<const Eigen::Vector<double, 6>>(qvel);
    } else if (qpos || qvel) {
      if (joint.name.empty())
        throw std::invalid_argument(
            "the keyframe sets a joint without a name: give it one");
      const MultibodyTree::JointRange range = model.FindJoint(joint.name);
      if (qpos) SetJointPositions(joint, qpos, range, q);
      if (qvel)
        v->segment(range.first_velocity, range.num_velocities) =
            Eigen::Map<const Eigen::VectorXd>(qvel, range.num_velocities);
    }
    if (qpos) qpos += joint.num_positions();
    if (qvel) qvel += joint.num_velocities();
  }
}

void AddMjcfActuator(const MjcfActuator& actuator, double control, int tree,
                     MultibodySystem* system) {
  if (!actuator.tendon.empty() && system->FindTendon(tree, actuator.tendon) < 0)
    throw std::invalid_argument("no fixed tendon named '" + actuator.tendon +
                                "' (spatial tendons are not read)");
  PdControllerConstraint::Parameters gains;
  gains.proportional_gain = actuator.proportional_gain;
  gains.derivative_gain = actuator.derivative_gain;
  gains.effort_limit = actuator.effort_limit;
  if (actuator.control == MjcfActuator::Control::kEffort) {
    gains.feedforward = actuator.effort_per_control * control;
  } else {
    const JointTargetRange range = ServoTargetRange(actuator, system->tree(tree).model);
    double& target =
        range.bounds_velocity ? gains.target_velocity : gains.target_position;
    target = std::clamp(actuator.target_per_control * control, range.lower, range.upper);
    if (std::isfinite(range.lower) || std::isfinite(range.upper))
      system->SetJointTargetRange(tree, range);
  }
  system->AddJointPdController(tree, ActuatedName(actuator), gains);
  using Sets = ActuatorControl::Sets;
  const Sets sets = actuator.control == MjcfActuator::Control::kEffort ? Sets::kEffort
                    : actuator.control == MjcfActuator::Control::kTargetPosition
                        ? Sets::kTargetPosition
                        : Sets::kTargetVelocity;
  system->AddActuatorControl(
      tree, {.name = actuator.name,
             .acted_on = ActuatedName(actuator),
             .sets = sets,
             .per_control = sets == Sets::kEffort ? actuator.effort_per_control
                                                  : actuator.target_per_control,
             .gear = actuator.gear});
}

}  // namespace coulomb
