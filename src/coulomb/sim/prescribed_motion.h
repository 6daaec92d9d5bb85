#pragma once

#include <Eigen/Dense>
#include <Eigen/Geometry>

namespace coulomb {

// The motion of a kinematic body: it is not simulated, its pose is a given
// function of time, and bodies in contact with it see its velocity (a
// conveyor belt, a shaking table). Translation only, orientation fixed:
//   p(t) = p0 + u t + a sin(2π f t + φ).
// Units: p0, a [m]; u [m/s]; f [Hz]; φ [rad].
struct PrescribedMotion {
  Eigen::Isometry3d X_WB0 = Eigen::Isometry3d::Identity();   // orientation and p0
  Eigen::Vector3d drift_velocity = Eigen::Vector3d::Zero();  // u
  Eigen::Vector3d amplitude = Eigen::Vector3d::Zero();       // a
  double frequency = 0.0;                                    // f ≥ 0
  double phase = 0.0;                                        // φ

  Eigen::Isometry3d PoseAt(double time) const;
  Eigen::Vector3d VelocityAt(double time) const;
  // (p(t + δt) − p(t)) / δt: the velocity that moves the body exactly to its
  // next pose over one step of a first-order position update.
  Eigen::Vector3d MeanVelocity(double time, double time_step) const;
};

// Throws std::invalid_argument when a field is not finite or f < 0.
void ValidatePrescribedMotion(const PrescribedMotion& motion);

}  // namespace coulomb
