#include "coulomb/contact/hunt_crossley.h"

#include "coulomb/contact/sap_friction_cone.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>

namespace coulomb {

void ValidateHuntCrossleyParameters(const HuntCrossleyParameters& p) {
  auto require = [](bool condition, const char* field, const char* requirement,
                    double value) {
    if (!condition) {
      throw std::invalid_argument(std::string(field) + ": " + requirement + ", got " +
                                  std::to_string(value));
    }
  };
  require(std::isfinite(p.stiffness) && p.stiffness > 0.0, "stiffness",
          "must be finite and positive for Hunt & Crossley contact", p.stiffness);
  require(std::isfinite(p.dissipation) && p.dissipation >= 0.0, "dissipation",
          "must be finite and ≥ 0", p.dissipation);
  require(std::isfinite(p.friction) && p.friction >= 0.0, "friction",
          "must be finite and ≥ 0", p.friction);
  require(std::isfinite(p.stiction_tolerance) && p.stiction_tolerance > 0.0,
          "stiction_tolerance", "must be finite and positive", p.stiction_tolerance);
  require(std::isfinite(p.near_rigid_threshold) && p.near_rigid_threshold >= 0.0,
          "near_rigid_threshold", "must be finite and ≥ 0", p.near_rigid_threshold);
}

double NearRigidStiffness(double stiffness, double w, double time_step, double beta) {
  if (beta == 0.0) return stiffness;
  const double resolved_rate = 2.0 * std::numbers::pi / (beta * time_step);  // 2π/T_min
  return std::min(stiffness, resolved_rate * resolved_rate / w);
}

HuntCrossleyNormal::HuntCrossleyNormal(double stiffness, double dissipation, double x0,
                                       double time_step)
    : stiffness_(stiffness),
      dissipation_(dissipation),
      f0_(stiffness * x0),
      time_step_(time_step),
      v_hat_(dissipation > 0.0 ? std::min(x0 / time_step, 1.0 / dissipation)
                               : x0 / time_step) {}

// With w = v̂ − v_n ≥ 0 the two factors of n are A + B w and C + D w, where
// A = f0 − δt k v̂ ≥ 0, B = δt k, C = 1 − d v̂ ≥ 0, D = d (A C = 0 at v̂):
// every term below is ≥ 0, so there is no cancellation at any stiffness.
double HuntCrossleyNormal::Potential(double v_n) const {
  if (v_n >= v_hat_) return 0.0;
  const double w = v_hat_ - v_n;
  const double a = f0_ - time_step_ * stiffness_ * v_hat_, b = time_step_ * stiffness_;
  const double c = 1.0 - dissipation_ * v_hat_, d = dissipation_;
  return -time_step_ * w * (a * c + w * (0.5 * (a * d + b * c) + w * b * d / 3.0));
}

double HuntCrossleyNormal::Impulse(double v_n) const {
  if (v_n >= v_hat_) return 0.0;
  return time_step_ * (f0_ - time_step_ * stiffness_ * v_n) * (1.0 - dissipation_ * v_n);
}

double HuntCrossleyNormal::ImpulseDerivative(double v_n) const {
  if (v_n >= v_hat_) return 0.0;
  const double force = f0_ - time_step_ * stiffness_ * v_n;  // k x ≥ 0
  const double damping = 1.0 - dissipation_ * v_n;           // 1 + d ẋ ≥ 0
  return -time_step_ * (time_step_ * stiffness_ * damping + dissipation_ * force);
}

SoftNorm::SoftNorm(const Eigen::Vector2d& x, double epsilon) {
  const double root = std::sqrt(x.squaredNorm() + epsilon * epsilon);
  value = root - epsilon;
  tangent = x / root;
  hessian = (Eigen::Matrix2d::Identity() - tangent * tangent.transpose()) / root;
}

RigidLaw HuntCrossleyRigidLaw(double friction, double phi0, double time_step) {
  const double tau_d =
      SapDissipationTimeScaleOrDefault(-1.0, kDefaultNearRigidThreshold, time_step);
  return {.kind = RigidLaw::Kind::kContact,
          .friction = friction,
          .offset = Eigen::Vector3d(0.0, 0.0,
                                    -SapStabilizationVelocity(phi0, time_step, tau_d))};
}

}  // namespace coulomb
