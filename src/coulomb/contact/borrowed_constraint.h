#pragma once

#include "coulomb/contact/convex_constraint.h"

namespace coulomb {

// Another problem's constraint, used in place: every call goes to `source`,
// which that problem's Finalize prepared (W_ii, δt). A sub-problem built from
// a subset of a problem's constraints (ContactProblem::ResetToSubproblem)
// holds these, so it neither copies nor re-prepares the potentials; the
// source problem must outlive it and stay unchanged while it is used.
class BorrowedConstraint final : public ConvexConstraint {
 public:
  explicit BorrowedConstraint(const ConvexConstraint* source) : source_(source) {}

  int num_equations() const override { return source_->num_equations(); }
  // The source is prepared by its own problem.
  void Prepare(const ConstraintMatrix& /*delassus_estimate*/,
               double /*time_step*/) override {}
  double Evaluate(const ConstraintVector& v_c, ConstraintVector* gamma,
                  ConstraintMatrix* hessian) const override {
    return source_->Evaluate(v_c, gamma, hessian);
  }
  LineValue EvaluateAlongLine(const double* v_c, const double* direction, double alpha,
                              bool with_curvature) const override {
    return source_->EvaluateAlongLine(v_c, direction, alpha, with_curvature);
  }
  bool QuadraticAlongSegment(const double* v_c, const double* direction, double alpha0,
                             double alpha1, LineValue* quadratic) const override {
    return source_->QuadraticAlongSegment(v_c, direction, alpha0, alpha1, quadratic);
  }
  double ComplementarityProduct(const ConstraintVector& v_c,
                                const ConstraintVector& gamma) const override {
    return source_->ComplementarityProduct(v_c, gamma);
  }
  RigidLaw rigid_law() const override { return source_->rigid_law(); }
  bool near_rigid() const override { return source_->near_rigid(); }

 private:
  const ConvexConstraint* source_;
};

}  // namespace coulomb
