#include "coulomb/sim/sensors.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "coulomb/multibody/multibody_tree.h"

namespace coulomb {

int Sensor::dimension() const {
  switch (kind) {
    case Kind::kFramePosition:
    case Kind::kFrameXAxis:
    case Kind::kFrameYAxis:
    case Kind::kFrameZAxis:
    case Kind::kFrameLinearVelocity:
    case Kind::kFrameAngularVelocity:
    case Kind::kGyro:
    case Kind::kVelocimeter:
    case Kind::kAccelerometer:
    case Kind::kSubtreeCom:
    case Kind::kSubtreeLinearVelocity:
    case Kind::kSubtreeAngularMomentum:
    case Kind::kFrameLinearAcceleration:
    case Kind::kFrameAngularAcceleration:
    case Kind::kForce:
    case Kind::kTorque:
      return 3;
    case Kind::kFrameOrientation:
      return 4;
    default:
      return 1;
  }
}

bool Sensor::unit() const {
  return kind == Kind::kFrameOrientation || kind == Kind::kFrameXAxis ||
         kind == Kind::kFrameYAxis || kind == Kind::kFrameZAxis;
}

bool Sensor::Contains(const Eigen::Vector3d& p) const {
  switch (volume) {
    case Volume::kSphere:
      return p.norm() <= size[0];
    case Volume::kCapsule:
      return Eigen::Vector3d(p.x(), p.y(), p.z() - std::clamp(p.z(), -size[1], size[1]))
                 .norm() <= size[0];
    case Volume::kEllipsoid:
      return p.cwiseQuotient(size).squaredNorm() <= 1.0;
    case Volume::kCylinder:
      return p.head<2>().norm() <= size[0] && std::abs(p.z()) <= size[1];
    case Volume::kBox:
      return (p.cwiseAbs().array() <= size.array()).all();
  }
  return false;
}

namespace {

// A frame X_BF on `body` (−1: the world) at the tree's state: its pose, its
// angular velocity and its origin's velocity, in world.
struct FrameMotion {
  Eigen::Isometry3d X_WF;
  Eigen::Vector3d omega_W = Eigen::Vector3d::Zero();
  Eigen::Vector3d v_W = Eigen::Vector3d::Zero();
};

FrameMotion MotionOf(int body, const Eigen::Isometry3d& X_BF,
                     const MultibodyTree& model) {
  if (body < 0) return {X_BF};
  const Eigen::Isometry3d X_WB = model.body_pose(body);
  FrameMotion motion{X_WB * X_BF};
  motion.omega_W = model.BodyAngularVelocity(body);
  motion.v_W = model.BodyLinearVelocity(body) +
               motion.omega_W.cross(motion.X_WF.translation() - X_WB.translation());
  return motion;
}

// The frame kinds' readings of S relative to R (sensors.h).
SensorValue ReadRelativeFrame(Sensor::Kind kind, const FrameMotion& S,
                              const FrameMotion& R) {
  using Kind = Sensor::Kind;
  const Eigen::Matrix3d R_RW = R.X_WF.linear().transpose();
  const Eigen::Vector3d offset_W = S.X_WF.translation() - R.X_WF.translation();
  switch (kind) {
    case Kind::kFramePosition:
      return R_RW * offset_W;
    case Kind::kFrameOrientation: {
      Eigen::Quaterniond quaternion(R_RW * S.X_WF.linear());
      if (quaternion.w() < 0.0) quaternion.coeffs() *= -1.0;
      return Eigen::Vector4d(quaternion.w(), quaternion.x(), quaternion.y(),
                             quaternion.z());
    }
    case Kind::kFrameXAxis:
    case Kind::kFrameYAxis:
    case Kind::kFrameZAxis:
      return R_RW * S.X_WF.linear().col(static_cast<int>(kind) -
                                        static_cast<int>(Kind::kFrameXAxis));
    case Kind::kFrameLinearVelocity:
      return R_RW * (S.v_W - R.v_W - R.omega_W.cross(offset_W));
    default:  // kFrameAngularVelocity
      return R_RW * (S.omega_W - R.omega_W);
  }
}

}  // namespace

SensorValue ReadSubtreeSensor(const Sensor& sensor,
                              const MultibodyTree::SubtreeMomentum& subtree) {
  switch (sensor.kind) {
    case Sensor::Kind::kSubtreeCom:
      return ApplyCutoff(sensor, subtree.com_W);
    case Sensor::Kind::kSubtreeLinearVelocity:
      return ApplyCutoff(sensor, subtree.com_velocity_W);
    default:  // kSubtreeAngularMomentum
      return ApplyCutoff(sensor, subtree.angular_momentum_W);
  }
}

Eigen::Isometry3d SensorFrame(const Sensor& sensor, const MultibodyTree& model) {
  return sensor.body < 0 ? sensor.X_BS : model.body_pose(sensor.body) * sensor.X_BS;
}

SensorValue ApplyCutoff(const Sensor& sensor, SensorValue value) {
  if (sensor.cutoff <= 0.0) return value;
  const double lower = sensor.kind == Sensor::Kind::kTouch ? 0.0 : -sensor.cutoff;
  return value.cwiseMax(lower).cwiseMin(sensor.cutoff);
}

SensorValue ReadKinematicSensor(const Sensor& sensor, const MultibodyTree& model,
                                const Eigen::VectorXd& q, const Eigen::VectorXd& v) {
  using Kind = Sensor::Kind;
  SensorValue value(sensor.dimension());
  if (sensor.kind == Kind::kJointPosition || sensor.kind == Kind::kTendonLength ||
      sensor.kind == Kind::kActuatorPosition) {
    value[0] = CombinedPosition(sensor.terms, q);
    return ApplyCutoff(sensor, value);
  }
  if (sensor.kind == Kind::kJointVelocity || sensor.kind == Kind::kTendonVelocity ||
      sensor.kind == Kind::kActuatorVelocity) {
    value[0] = CombinedVelocity(sensor.terms, v);
    return ApplyCutoff(sensor, value);
  }
  if (sensor.on_subtree()) return ReadSubtreeSensor(sensor, model.Subtree(sensor.body));
  const FrameMotion S = MotionOf(sensor.body, sensor.X_BS, model);
  if (sensor.relative())
    return ApplyCutoff(
        sensor, ReadRelativeFrame(sensor.kind, S,
                                  MotionOf(sensor.reference_body, sensor.X_BR, model)));
  const Eigen::Matrix3d R_SW = S.X_WF.linear().transpose();
  if (sensor.kind == Kind::kGyro) return ApplyCutoff(sensor, R_SW * S.omega_W);
  if (sensor.kind == Kind::kVelocimeter) return ApplyCutoff(sensor, R_SW * S.v_W);
  throw std::invalid_argument("sensor '" + sensor.name + "' is not kinematic");
}

}  // namespace coulomb
