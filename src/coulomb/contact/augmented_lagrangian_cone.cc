#include "coulomb/contact/augmented_lagrangian_cone.h"

#include <cmath>
#include <stdexcept>

#include "coulomb/contact/friction_cone_projection.h"

namespace coulomb {

AugmentedLagrangianCone::AugmentedLagrangianCone(double friction, double penalty,
                                                 const Eigen::Vector3d& shift)
    : friction_(friction), penalty_(penalty), shift_(shift) {
  if (!(friction >= 0.0) || !std::isfinite(friction) || !(penalty > 0.0) ||
      !std::isfinite(penalty) || !shift.allFinite()) {
    throw std::invalid_argument(
        "AugmentedLagrangianCone: μ ≥ 0, β > 0 and the shift must be finite");
  }
}

double AugmentedLagrangianCone::Evaluate(const ConstraintVector& v_c,
                                         ConstraintVector* gamma,
                                         ConstraintMatrix* hessian) const {
  const Eigen::Vector3d y = -penalty_ * (Eigen::Vector3d(v_c) + shift_);
  const ConeProjection projection = ProjectOntoFrictionConeWithJacobian(y, friction_);
  *gamma = projection.value;
  if (hessian != nullptr) *hessian = penalty_ * projection.jacobian;
  return projection.value.squaredNorm() / (2.0 * penalty_);
}

}  // namespace coulomb
