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

Eigen::Isometry3d SensorFrame(const Sensor& sensor, const MultibodyTree& model) {
  return sensor.body < 0 ? sensor.X_BS : model.body_pose(sensor.body) * sensor.X_BS;
}

Eigen::VectorXd ApplyCutoff(const Sensor& sensor, Eigen::VectorXd value) {
  if (sensor.cutoff <= 0.0) return value;
  const double lower = sensor.kind == Sensor::Kind::kTouch ? 0.0 : -sensor.cutoff;
  return value.cwiseMax(lower).cwiseMin(sensor.cutoff);
}

Eigen::VectorXd ReadKinematicSensor(const Sensor& sensor, const MultibodyTree& model,
                                    const Eigen::VectorXd& q, const Eigen::VectorXd& v) {
  using Kind = Sensor::Kind;
  Eigen::VectorXd value(sensor.dimension());
  if (sensor.kind == Kind::kJointPosition || sensor.kind == Kind::kTendonLength) {
    value[0] = CombinedPosition(sensor.terms, q);
    return ApplyCutoff(sensor, value);
  }
  if (sensor.kind == Kind::kJointVelocity || sensor.kind == Kind::kTendonVelocity) {
    value[0] = CombinedVelocity(sensor.terms, v);
    return ApplyCutoff(sensor, value);
  }
  const Eigen::Isometry3d X_WS = SensorFrame(sensor, model);
  Eigen::Vector3d omega_W = Eigen::Vector3d::Zero(), v_S = Eigen::Vector3d::Zero();
  if (sensor.body >= 0) {
    const Eigen::Vector3d p_B = model.body_pose(sensor.body).translation();
    omega_W = model.BodyAngularVelocity(sensor.body);
    v_S = model.BodyLinearVelocity(sensor.body) + omega_W.cross(X_WS.translation() - p_B);
  }
  const Eigen::Matrix3d& R_WS = X_WS.linear();
  switch (sensor.kind) {
    case Kind::kFramePosition:
      value = X_WS.translation();
      break;
    case Kind::kFrameOrientation: {
      Eigen::Quaterniond quaternion(R_WS);
      if (quaternion.w() < 0.0) quaternion.coeffs() *= -1.0;
      value << quaternion.w(), quaternion.x(), quaternion.y(), quaternion.z();
      break;
    }
    case Kind::kFrameXAxis:
    case Kind::kFrameYAxis:
    case Kind::kFrameZAxis:
      value =
          R_WS.col(static_cast<int>(sensor.kind) - static_cast<int>(Kind::kFrameXAxis));
      break;
    case Kind::kFrameLinearVelocity:
      value = v_S;
      break;
    case Kind::kFrameAngularVelocity:
      value = omega_W;
      break;
    case Kind::kGyro:
      value = R_WS.transpose() * omega_W;
      break;
    case Kind::kVelocimeter:
      value = R_WS.transpose() * v_S;
      break;
    default:
      throw std::invalid_argument("sensor '" + sensor.name + "' is not kinematic");
  }
  return ApplyCutoff(sensor, value);
}

}  // namespace coulomb
