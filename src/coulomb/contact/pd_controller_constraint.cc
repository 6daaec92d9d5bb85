#include "coulomb/contact/pd_controller_constraint.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace coulomb {

void ValidatePdControllerParameters(const PdControllerConstraint::Parameters& p) {
  auto require = [](bool condition, const char* message) {
    if (!condition) throw std::invalid_argument(message);
  };
  require(std::isfinite(p.proportional_gain) && p.proportional_gain >= 0.0,
          "kp: must be finite and ≥ 0");
  require(std::isfinite(p.derivative_gain) && p.derivative_gain >= 0.0,
          "kd: must be finite and ≥ 0");
  require(std::isfinite(p.target_position) && std::isfinite(p.target_velocity) &&
              std::isfinite(p.feedforward),
          "target, target_velocity and feedforward: must be finite");
  require(p.effort_limit > 0.0, "effort_limit: must be positive (or .inf)");
}

PdControllerConstraint::PdControllerConstraint(const Parameters& parameters,
                                               double position0)
    : parameters_(parameters), position0_(position0) {
  ValidatePdControllerParameters(parameters);
  if (!std::isfinite(position0))
    throw std::invalid_argument("PD controller: q0 not finite");
}

void PdControllerConstraint::Prepare(const ConstraintMatrix&, double time_step) {
  const Parameters& p = parameters_;
  time_step_ = time_step;
  offset_ = -p.proportional_gain * (position0_ - p.target_position) +
            p.derivative_gain * p.target_velocity + p.feedforward;
  slope_ = p.proportional_gain * time_step + p.derivative_gain;
}

double PdControllerConstraint::Actuation(double v) const {
  const double limit = parameters_.effort_limit;
  return std::clamp(offset_ - slope_ * v, -limit, limit);
}

RigidLaw PdControllerConstraint::rigid_law() const {
  const double dt = time_step_, limit = parameters_.effort_limit;
  return {.kind = RigidLaw::Kind::kSoft,
          .c = dt * offset_,
          .d = dt * slope_,
          .lo = -dt * limit,
          .hi = dt * limit};
}

double PdControllerConstraint::Evaluate(const ConstraintVector& v_c,
                                        ConstraintVector* gamma,
                                        ConstraintMatrix* hessian) const {
  const double v = v_c(0);
  const double limit = parameters_.effort_limit;
  const double u = Actuation(v);
  gamma->setConstant(1, time_step_ * u);
  const bool saturated = std::abs(offset_ - slope_ * v) >= limit;
  if (hessian != nullptr) {
    hessian->setConstant(1, 1, saturated ? 0.0 : time_step_ * slope_);
  }
  if (slope_ == 0.0) return -time_step_ * u * v;  // constant actuation
  const double y = offset_ - slope_ * v;
  const double potential =
      saturated ? limit * std::abs(y) - 0.5 * limit * limit : 0.5 * y * y;  // Φ(y)
  return time_step_ / slope_ * potential;
}

}  // namespace coulomb
