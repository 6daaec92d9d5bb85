#include "coulomb/contact/lagged_contact.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace coulomb {

LaggedContact::LaggedContact(const HuntCrossleyParameters& parameters, double phi0,
                             double v_n0, double sigma)
    : parameters_(parameters), phi0_(phi0), v_n0_(v_n0), sigma_(sigma) {
  ValidateHuntCrossleyParameters(parameters);
  if (!std::isfinite(phi0) || !std::isfinite(v_n0)) {
    throw std::invalid_argument("LaggedContact: phi0 and v_n0 must be finite");
  }
  if (!(sigma >= 0.0) || !std::isfinite(sigma)) {
    throw std::invalid_argument("sigma: must be finite and ≥ 0");
  }
}

void LaggedContact::Prepare(const ConstraintMatrix& delassus_estimate, double time_step) {
  const double w = delassus_estimate.norm() / 3.0;  // ‖W_ii‖_F / 3 (SAP §V-B)
  const double k = NearRigidStiffness(parameters_.stiffness, w, time_step,
                                      parameters_.near_rigid_threshold);
  near_rigid_ = k < parameters_.stiffness;
  const double d = parameters_.dissipation;
  const double x0 = -phi0_;
  normal_ = HuntCrossleyNormal(k, d, x0, time_step);
  time_step_ = time_step;
  // γ_n0 = δt f_n(x0, ẋ0) with ẋ0 = −v_n0 (IRR §VI-B).
  lagged_normal_impulse_ =
      time_step * k * std::max(x0, 0.0) * std::max(1.0 - d * v_n0_, 0.0);
  epsilon_ = parameters_.stiction_tolerance;
  if (sigma_ > 0.0) {
    epsilon_ =
        std::max(epsilon_, sigma_ * w * parameters_.friction * lagged_normal_impulse_);
  }
}

double LaggedContact::Evaluate(const ConstraintVector& v_c, ConstraintVector* gamma,
                               ConstraintMatrix* hessian) const {
  const SoftNorm slip(v_c.head<2>(), epsilon_);
  const double v_n = v_c(2);
  const double friction_bound = parameters_.friction * lagged_normal_impulse_;  // μ γ_n0
  gamma->resize(3);
  gamma->head<2>() = -friction_bound * slip.tangent;
  (*gamma)(2) = normal_.Impulse(v_n);
  if (hessian != nullptr) {
    hessian->setZero(3, 3);
    hessian->topLeftCorner<2, 2>() = friction_bound * slip.hessian;
    (*hessian)(2, 2) = -normal_.ImpulseDerivative(v_n);
  }
  return friction_bound * slip.value - normal_.Potential(v_n);
}

}  // namespace coulomb
