#include "coulomb/contact/convex_constraint.h"

namespace coulomb {

double ConvexConstraint::EvaluateOnStorage(const double* v_c, double* gamma,
                                           double* hessian) const {
  const int size = num_equations();
  ConstraintVector gamma_vector;
  ConstraintMatrix hessian_matrix;
  const double cost =
      Evaluate(Eigen::Map<const ConstraintVector>(v_c, size), &gamma_vector,
               hessian != nullptr ? &hessian_matrix : nullptr);
  Eigen::Map<ConstraintVector>(gamma, size) = gamma_vector;
  if (hessian != nullptr)
    Eigen::Map<ConstraintMatrix>(hessian, size, size) = hessian_matrix;
  return cost;
}

ConvexConstraint::LineValue ConvexConstraint::EvaluateAlongLine(
    const double* v_c, const double* direction, double alpha, bool with_curvature) const {
  const int size = num_equations();
  const Eigen::Map<const ConstraintVector> v(v_c, size), delta(direction, size);
  const ConstraintVector v_alpha = v + alpha * delta;
  ConstraintVector gamma;
  ConstraintMatrix hessian;
  LineValue value;
  value.cost = Evaluate(v_alpha, &gamma, with_curvature ? &hessian : nullptr);
  value.slope = -delta.dot(gamma);
  if (with_curvature) value.curvature = delta.dot(hessian * delta);
  return value;
}

bool ConvexConstraint::HasImpulse(const ConstraintVector& v_c) const {
  ConstraintVector gamma;
  Evaluate(v_c, &gamma, nullptr);
  return !gamma.isZero(0.0);
}

}  // namespace coulomb
