#pragma once

#include <string>
#include <vector>

#include <Eigen/Dense>

#include "coulomb/multibody/multibody_tree.h"
#include "coulomb/sim/joint_spring_damper.h"

namespace coulomb {

// A sensor of a robot (an MJCF <sensor>: MjcfSensor), read at the current
// state, in MuJoCo's units and frames:
//   kJointPosition, kJointVelocity    s = Σ c_k q_k, ṡ (a joint: one term) [m, rad; /s]
//   kTendonLength, kTendonVelocity    the same for a fixed tendon's terms
//   kActuatorPosition, kActuatorVelocity
//                                     an actuator's length g s and its rate g ṡ,
//                                     s its joint's or tendon's, g its gear
//   kJointActuatorForce               the actuators' effort on a joint over the last
//                                     step [N, N·m]
//   kActuatorForce                    an actuator's force over the last step
//                                     (Simulation::ActuatorForces) [N, N·m]
//   kFramePosition                    p_S [m]
//   kFrameOrientation                 R_S as a unit quaternion w x y z (w ≥ 0)
//   kFrameXAxis, kFrameYAxis, kFrameZAxis
//                                     R_S's columns: S's axes
//   kFrameLinearVelocity              v_S, the velocity of S's origin [m/s]
//   kFrameAngularVelocity             ω_S, the body's angular velocity [rad/s]
//   kGyro, kVelocimeter               ω and v_S in S's frame: R_WSᵀ ω_W, R_WSᵀ v_S
//   kSubtreeCom, kSubtreeLinearVelocity, kSubtreeAngularMomentum
//                                     the centre of mass c_W of the bodies a joint
//                                     carries with `body`, its velocity, and their
//                                     angular momentum about c [kg·m²/s], in world
//                                     (MultibodyTree::Subtree); body −1 (MuJoCo's
//                                     world body): every body a joint moves, of
//                                     every tree (MultibodySystem::CalcMomentum)
//   kRangefinder                      the distance [m] along S's z axis from S's origin
//                                     to the nearest geometry, that of S's body aside
//                                     (Simulation::CastRay), −1 for none
//   kClock                            the simulation's time [s]
//   kPotentialEnergy                  the scene's potential energy, gravity's and the
//                                     springs' (MultibodySystem::Energies), as MuJoCo's
//                                     (gravity compensation left out) [J]
//   kKineticEnergy                    the scene's kinetic energy ½ vᵀ M v [J]
//   kTouch                            Σ γ_n/δt over the last step's contacts on the
//                                     body at points inside S's volume [N]
//   kAccelerometer                    R_WSᵀ (a_S − g): S's acceleration over the last
//                                     step, less gravity, in S's frame [m/s²]
//   kFrameLinearAcceleration          a_S − g in world [m/s²]
//   kFrameAngularAcceleration         α_W, the body's angular acceleration [rad/s²]
//   kForce, kTorque                   the wrench the body's parent link exerts on it
//                                     and all it carries (Newton–Euler over the last
//                                     step, contacts counted), in S's frame, the torque
//                                     about S's origin [N, N·m]
// S is the frame X_BS on `body` (a site, or the body frame itself; body −1:
// the world, which does not move). The frame kinds (position to angular
// velocity) are relative to a reference frame R, X_BR on `reference_body`
// (the world by default), as MuJoCo's reftype makes them: p_S = R_WRᵀ (p_WS −
// p_WR), R_S = R_WRᵀ R_WS, v_S = R_WRᵀ (v_WS − v_WR − ω_WR × (p_WS − p_WR)),
// ω_S = R_WRᵀ (ω_WS − ω_WR). A cutoff c > 0 clamps each entry into [−c, c]
// ([0, c] for touch); an orientation or an axis has none.
struct Sensor {
  enum class Kind {  // those on a coordinate first (on_coordinate)
    kJointPosition,
    kJointVelocity,
    kTendonLength,
    kTendonVelocity,
    kActuatorPosition,
    kActuatorVelocity,
    kJointActuatorForce,
    kActuatorForce,
    kFramePosition,
    kFrameOrientation,
    kFrameXAxis,
    kFrameYAxis,
    kFrameZAxis,
    kFrameLinearVelocity,
    kFrameAngularVelocity,
    kGyro,
    kVelocimeter,
    kSubtreeCom,
    kSubtreeLinearVelocity,
    kSubtreeAngularMomentum,
    kRangefinder,
    kClock,
    kPotentialEnergy,
    kKineticEnergy,
    kTouch,
    kAccelerometer,  // those on the last step's dynamics last (on_dynamics)
    kFrameLinearAcceleration,
    kFrameAngularAcceleration,
    kForce,
    kTorque,
  };
  // The volume a touch sensor counts contacts in: MuJoCo's site shapes about
  // S's origin, along its axes (a capsule's and a cylinder's along z).
  enum class Volume { kSphere, kCapsule, kEllipsoid, kCylinder, kBox };

  std::string name;
  Kind kind = Kind::kJointPosition;
  std::vector<JointTerm> terms;  // joint, tendon and actuator sensors (× gear)
  int actuator = -1;             // actuator sensors: its index in the tree's actuators
  int body = -1;                 // frame and site sensors
  Eigen::Isometry3d X_BS = Eigen::Isometry3d::Identity();
  int reference_body = -1;  // frame sensors: R's body (−1: the world)
  Eigen::Isometry3d X_BR = Eigen::Isometry3d::Identity();
  Volume volume = Volume::kSphere;
  // MuJoCo's size: a radius; radius and half-length; semi-axes or half-sizes [m].
  Eigen::Vector3d size = Eigen::Vector3d::Zero();
  double cutoff = 0.0;  // 0: none

  int dimension() const;
  // Whether it reads a unit quaternion or a unit axis (which no cutoff clamps).
  bool unit() const;
  // Whether it reads a joint's or a tendon's coordinate (`terms`), not a frame.
  bool on_coordinate() const { return kind <= Kind::kJointActuatorForce; }
  // Whether it reads an actuator's (`actuator`).
  bool on_actuator() const {
    return kind == Kind::kActuatorPosition || kind == Kind::kActuatorVelocity ||
           kind == Kind::kActuatorForce;
  }
  // Whether it reads the last step's accelerations (an accelerometer, a
  // frame's acceleration, a force, a torque).
  bool on_dynamics() const { return kind >= Kind::kAccelerometer; }
  // Whether it reads a frame relative to a reference frame (a frame's
  // position, orientation, axes or velocities).
  bool relative() const {
    return kind >= Kind::kFramePosition && kind <= Kind::kFrameAngularVelocity;
  }
  // Whether it reads the subtree a joint carries with `body`.
  bool on_subtree() const {
    return kind >= Kind::kSubtreeCom && kind <= Kind::kSubtreeAngularMomentum;
  }
  // Whether p_S (a point in S's frame) lies in the touch volume.
  bool Contains(const Eigen::Vector3d& p_S) const;
};

// A sensor's reading: Sensor::dimension() numbers, at most 4 (a
// quaternion), held in place so that reading a sensor allocates nothing.
using SensorValue = Eigen::Matrix<double, Eigen::Dynamic, 1, 0, 4, 1>;

// The reading of a kinematic sensor (a joint's, a tendon's or an actuator's
// coordinate, a frame's, a subtree's, a gyro or a velocimeter: not the
// actuators' efforts, the rangefinder, the clock, touch, the accelerations
// or the forces, which Simulation reads) of `model`'s tree at its current
// state (q, v), cutoff applied. Throws std::invalid_argument for another.
SensorValue ReadKinematicSensor(const Sensor& sensor, const MultibodyTree& model,
                                const Eigen::VectorXd& q, const Eigen::VectorXd& v);
// A subtree sensor's reading (its kind's part of `subtree`), cutoff applied.
SensorValue ReadSubtreeSensor(const Sensor& sensor,
                              const MultibodyTree::SubtreeMomentum& subtree);
// `value` clamped by the sensor's cutoff.
SensorValue ApplyCutoff(const Sensor& sensor, SensorValue value);
// X_WS at the tree's current state.
Eigen::Isometry3d SensorFrame(const Sensor& sensor, const MultibodyTree& model);

}  // namespace coulomb
