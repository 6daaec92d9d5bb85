#include "coulomb/contact/sap_unilateral_constraint.h"

#include "coulomb/contact/sap_friction_cone.h"

#include <cmath>
#include <stdexcept>

namespace coulomb {

SapUnilateralConstraint::SapUnilateralConstraint(const Parameters& parameters,
                                                 double gap0)
    : parameters_(parameters), gap0_(gap0) {
  if (!(parameters.stiffness > 0.0) || !(parameters.near_rigid_threshold > 0.0) ||
      !std::isfinite(parameters.near_rigid_threshold) ||
      !std::isfinite(parameters.dissipation_time_scale) || !std::isfinite(gap0)) {
    throw std::invalid_argument(
        "unilateral constraint: stiffness and β must be positive, τ_d and the gap "
        "finite");
  }
}

void SapUnilateralConstraint::Prepare(const ConstraintMatrix& delassus_estimate,
                                      double time_step) {
  const double w = ScalarDelassusEstimate(delassus_estimate, "unilateral constraint");
  const double beta = parameters_.near_rigid_threshold;
  const double tau_d = SapDissipationTimeScaleOrDefault(
      parameters_.dissipation_time_scale, beta, time_step);
  r_ = SapNormalRegularization(w, parameters_.stiffness, tau_d, beta, time_step);
  v_hat_ = -gap0_ / (time_step + tau_d);
}

RigidLaw SapUnilateralConstraint::rigid_law() const {
  return {.kind = RigidLaw::Kind::kUnilateral,
          .offset = Eigen::Vector3d(0.0, 0.0, -v_hat_),
          .regularization = Eigen::Vector3d(0.0, 0.0, r_)};
}

double SapUnilateralConstraint::Evaluate(const ConstraintVector& v_c,
                                         ConstraintVector* gamma,
                                         ConstraintMatrix* hessian) const {
  const double impulse = std::max(0.0, (v_hat_ - v_c(0)) / r_);
  gamma->setConstant(1, impulse);
  if (hessian != nullptr) hessian->setConstant(1, 1, impulse > 0.0 ? 1.0 / r_ : 0.0);
  return 0.5 * r_ * impulse * impulse;
}

double SapUnilateralConstraint::ComplementarityProduct(
    const ConstraintVector& v_c, const ConstraintVector& gamma) const {
  return (v_c(0) - v_hat_ + r_ * gamma(0)) * gamma(0);
}

}  // namespace coulomb
