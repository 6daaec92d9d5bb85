#include "coulomb/contact/joint_friction_constraint.h"

#include <cmath>
#include <stdexcept>

namespace coulomb {

JointFrictionConstraint::JointFrictionConstraint(double friction, double sigma)
    : friction_(friction), sigma_(sigma), law_({}, 0.0) {
  if (!(friction > 0.0) || !std::isfinite(friction))
    throw std::invalid_argument("joint friction: must be positive and finite");
  if (!(sigma > 0.0) || !std::isfinite(sigma))
    throw std::invalid_argument("joint friction: σ must be positive and finite");
}

void JointFrictionConstraint::Prepare(const ConstraintMatrix& delassus_estimate,
                                      double time_step) {
  const double w = delassus_estimate(0, 0);
  if (!(w > 0.0) || !std::isfinite(w))
    throw std::invalid_argument("joint friction: the Delassus estimate is not positive");
  PdControllerConstraint::Parameters law;
  law.derivative_gain = 1.0 / (sigma_ * w * time_step);  // δt K = 1/(σ w)
  law.effort_limit = friction_;
  law_ = PdControllerConstraint(law, 0.0);
  law_.Prepare(delassus_estimate, time_step);
}

}  // namespace coulomb
