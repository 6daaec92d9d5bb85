#include "coulomb/contact/sap_holonomic_constraint.h"

#include <cmath>
#include <limits>
#include <stdexcept>

namespace coulomb {

SapHolonomicConstraint::SapHolonomicConstraint(double g0, double near_rigid_threshold)
    : g0_(g0), near_rigid_threshold_(near_rigid_threshold) {
  if (!std::isfinite(g0) || !(near_rigid_threshold > 0.0)) {
    throw std::invalid_argument(
        "holonomic constraint: g0 must be finite and the near-rigid threshold positive");
  }
}

void SapHolonomicConstraint::Prepare(const ConstraintMatrix& delassus_estimate,
                                     double time_step) {
  const double w = ScalarDelassusEstimate(delassus_estimate, "holonomic constraint");
  const double beta = near_rigid_threshold_;
  const double tau_d = SapDissipationTimeScaleOrDefault(-1.0, beta, time_step);
  r_ = SapNormalRegularization(w, std::numeric_limits<double>::infinity(), tau_d, beta,
                               time_step);
  v_hat_ = SapStabilizationVelocity(g0_, time_step, tau_d);
}

double SapHolonomicConstraint::Evaluate(const ConstraintVector& v_c,
                                        ConstraintVector* gamma,
                                        ConstraintMatrix* hessian) const {
  const double impulse = (v_hat_ - v_c(0)) / r_;
  gamma->setConstant(1, impulse);
  if (hessian != nullptr) hessian->setConstant(1, 1, 1.0 / r_);
  return 0.5 * r_ * impulse * impulse;
}

RigidLaw SapHolonomicConstraint::rigid_law() const {
  const double infinity = std::numeric_limits<double>::infinity();
  return {.kind = RigidLaw::Kind::kSoft,
          .c = v_hat_ / r_,
          .d = 1.0 / r_,
          .lo = -infinity,
          .hi = infinity};
}

}  // namespace coulomb
