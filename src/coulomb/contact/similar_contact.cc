#include "coulomb/contact/similar_contact.h"

#include <cmath>
#include <stdexcept>

namespace coulomb {

SimilarContact::SimilarContact(const HuntCrossleyParameters& parameters, double phi0)
    : parameters_(parameters), phi0_(phi0) {
  ValidateHuntCrossleyParameters(parameters);
  if (!std::isfinite(phi0))
    throw std::invalid_argument("SimilarContact: phi0 must be finite");
}

void SimilarContact::Prepare(const ConstraintMatrix& delassus_estimate,
                             double time_step) {
  const double w = delassus_estimate.norm() / 3.0;  // ‖W_ii‖_F / 3 (SAP §V-B)
  const double k = NearRigidStiffness(parameters_.stiffness, w, time_step,
                                      parameters_.near_rigid_threshold);
  near_rigid_ = k < parameters_.stiffness;
  normal_ = HuntCrossleyNormal(k, parameters_.dissipation, -phi0_, time_step);
  time_step_ = time_step;
}

double SimilarContact::Evaluate(const ConstraintVector& v_c, ConstraintVector* gamma,
                                ConstraintMatrix* hessian) const {
  const double mu = parameters_.friction;
  const SoftNorm slip(v_c.head<2>(), parameters_.stiction_tolerance);
  const double z = v_c(2) - mu * slip.value;
  const double n = normal_.Impulse(z);
  gamma->resize(3);
  gamma->head<2>() = -mu * n * slip.tangent;
  (*gamma)(2) = n;
  if (hessian != nullptr) {
    const double n_prime = normal_.ImpulseDerivative(z);
    hessian->resize(3, 3);
    hessian->topLeftCorner<2, 2>() = mu * n * slip.hessian - mu * mu * n_prime *
                                                                 slip.tangent *
                                                                 slip.tangent.transpose();
    hessian->topRightCorner<2, 1>() = mu * n_prime * slip.tangent;
    hessian->bottomLeftCorner<1, 2>() = mu * n_prime * slip.tangent.transpose();
    (*hessian)(2, 2) = -n_prime;
  }
  return -normal_.Potential(z);
}

}  // namespace coulomb
