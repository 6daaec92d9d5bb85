#include "coulomb/solvers/strict_al_surrogate.h"

#include <algorithm>

#include "coulomb/contact/dense_problem_matrices.h"
#include "coulomb/contact/friction_cone_projection.h"

namespace coulomb {

void StrictAlSurrogate::Reset(const ContactNcp& ncp) {
  ncp_ = &ncp;
  AssembleDenseA(ncp.problem(), &a_);
  AssembleDenseJacobian(ncp.problem(), &jacobian_);
  scale_ = a_.diagonal().cwiseSqrt().cwiseInverse();
  impulse_derivative_.setZero(jacobian_.rows(), 3);
}

void StrictAlSurrogate::SetMultipliers(Eigen::Ref<const Eigen::VectorXd> lambda,
                                       double penalty) {
  multipliers_ = lambda;
  penalty_ = penalty;
}

void StrictAlSurrogate::ToScaled(Eigen::Ref<const Eigen::VectorXd> v,
                                 Eigen::VectorXd* x) const {
  *x = v.cwiseQuotient(scale_);
}

void StrictAlSurrogate::FromScaled(const Eigen::VectorXd& x, Eigen::VectorXd* v) const {
  *v = x.cwiseProduct(scale_);
}

double StrictAlSurrogate::Evaluate(const Eigen::VectorXd& x) {
  const ContactNcp& ncp = *ncp_;
  FromScaled(x, &v_);
  ncp.CalcContactVelocities(v_, &u_);
  lambda_.resize(u_.size());
  for (int i = 0; i < ncp.num_contacts(); ++i) {
    const int offset = ncp.problem().constraint_offset(i);
    auto derivative = impulse_derivative_.middleRows<3>(offset);
    if (const ContactNcp::SoftLaw* soft = ncp.soft_law(i)) {
      const double y = soft->c - soft->d * u_(offset + 2);
      lambda_.segment<3>(offset) << 0.0, 0.0, std::clamp(y, soft->lo, soft->hi);
      derivative.setZero();
      if (lambda_(offset + 2) == y) derivative(2, 2) = -soft->d;
      continue;
    }
    const ConeProjection strict = StrictFrictionOperatorWithJacobian(
        multipliers_.segment<3>(offset) - penalty_ * u_.segment<3>(offset),
        ncp.friction(i));
    lambda_.segment<3>(offset) = strict.value;
    derivative = -penalty_ * strict.jacobian;
  }
  impulse_.noalias() = jacobian_.transpose() * lambda_;
  momentum_.noalias() = a_ * v_;
  residual_.noalias() = a_ * ncp.problem().v_star();
  residual_ = scale_.cwiseProduct(momentum_ - residual_ - impulse_);
  return 0.5 * residual_.squaredNorm();
}

void StrictAlSurrogate::CalcJacobian(Eigen::MatrixXd* jacobian) {
  const ContactNcp& ncp = *ncp_;
  m_times_j_.resize(jacobian_.rows(), jacobian_.cols());
  for (int i = 0; i < ncp.num_contacts(); ++i) {
    const int offset = ncp.problem().constraint_offset(i);
    m_times_j_.middleRows<3>(offset).noalias() =
        impulse_derivative_.middleRows<3>(offset) * jacobian_.middleRows<3>(offset);
  }
  *jacobian = a_;
  jacobian->noalias() -= jacobian_.transpose() * m_times_j_;
  *jacobian = scale_.asDiagonal() * (*jacobian) * scale_.asDiagonal();
}

bool StrictAlSurrogate::Converged(double abs_tolerance, double rel_tolerance) const {
  const double momentum_scale = std::max(scale_.cwiseProduct(momentum_).norm(),
                                         scale_.cwiseProduct(impulse_).norm());
  return residual_.norm() < abs_tolerance + rel_tolerance * momentum_scale;
}

}  // namespace coulomb
