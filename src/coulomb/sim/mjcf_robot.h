#pragma once

#include <Eigen/Dense>
#include <vector>

#include "coulomb/multibody/mjcf_actuators.h"
#include "coulomb/multibody/mjcf_joints.h"
#include "coulomb/sim/multibody_system.h"

namespace coulomb {

// What a robot's MJCF file gives a scene beyond Pinocchio's model: the
// initial configuration, and its actuators as PD controllers
// (scenes/README.md, docs/robots.md).

// MuJoCo's initial state in `*q` and `*v` (the model's, `joints` those of
// ReadMjcfJoints): each named hinge and slide at its ref (qpos0), then the
// keyframe's qpos and qvel where given (the joints in file order; a ball
// joint's quaternion w x y z and angular velocity in its child frame; a
// floating root's velocity [ṗ_W, ω_B] as MuJoCo's). A free root's pose in
// the keyframe is taken when `root_pose_from_keyframe` (a floating robot the
// scene does not place), and skipped otherwise. Throws
// std::invalid_argument for a qpos or qvel whose size is not MuJoCo's nq or
// nv, or one that sets a joint without a name.
void SetMjcfInitialState(const std::vector<MjcfJoint>& joints,
                         const MjcfKeyframe& keyframe, bool root_pose_from_keyframe,
                         const MultibodyTree& model, Eigen::VectorXd* q,
                         Eigen::VectorXd* v);

// An MJCF actuator as its joint's or fixed tendon's PD controller (on
// `tree`, the tendon added already), its control starting at `control`
// (MuJoCo's ctrl: 0, or a keyframe's), clamped as MuJoCo clamps controls:
// a servo's target (target_per_control × control, within its target
// range), or a motor's effort (effort_per_control × control); and as the
// tree's ActuatorControl, for controls set later. Throws
// std::invalid_argument for a bad joint or tendon, or inheritrange on a
// joint without a range or on a tendon.
void AddMjcfActuator(const MjcfActuator& actuator, double control, int tree,
                     MultibodySystem* system);

}  // namespace coulomb
