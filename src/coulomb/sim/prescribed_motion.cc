#include "coulomb/sim/prescribed_motion.h"

#include <cmath>
#include <numbers>
#include <stdexcept>

namespace coulomb {

Eigen::Isometry3d PrescribedMotion::PoseAt(double time) const {
  Eigen::Isometry3d pose = X_WB0;
  pose.translation() +=
      drift_velocity * time +
      amplitude * std::sin(2.0 * std::numbers::pi * frequency * time + phase);
  return pose;
}

Eigen::Vector3d PrescribedMotion::VelocityAt(double time) const {
  const double omega = 2.0 * std::numbers::pi * frequency;
  return drift_velocity + amplitude * omega * std::cos(omega * time + phase);
}

Eigen::Vector3d PrescribedMotion::MeanVelocity(double time, double time_step) const {
  return (PoseAt(time + time_step).translation() - PoseAt(time).translation()) /
         time_step;
}

void ValidatePrescribedMotion(const PrescribedMotion& motion) {
  if (!motion.X_WB0.matrix().allFinite() || !motion.drift_velocity.allFinite() ||
      !motion.amplitude.allFinite() || !std::isfinite(motion.phase)) {
    throw std::invalid_argument("prescribed motion: all values must be finite");
  }
  if (!(motion.frequency >= 0.0) || !std::isfinite(motion.frequency)) {
    throw std::invalid_argument("prescribed motion: frequency must be finite and ≥ 0");
  }
}

}  // namespace coulomb
