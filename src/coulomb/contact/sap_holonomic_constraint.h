#pragma once

#include "coulomb/contact/convex_constraint.h"
#include "coulomb/contact/sap_friction_cone.h"

namespace coulomb {

// A one-equation bilateral constraint g(q) = 0 in SAP's near-rigid form
// (SAP §V, the normal regularization without the unilateral projection):
// joint couplers, g = q_a − m q_b − c (a URDF mimic joint, an MJCF
// <equality><joint>).
//
// The constraint velocity v_c = ġ = J v. With v̂ = −g0/(δt + τ_d),
// τ_d = (β/π) δt, and R = β²/(4π²) w, w = |W_ii| (the stiffest coupling a
// step of δt resolves),
//   γ = (v̂ − v_c)/R,   ℓ = ½ R γ²,   G = 1/R,
// so that the impulse pushes g back to 0 within about one step. Units follow
// the joints: v_c [rad/s] or [m/s], γ [N·m·s] or [N·s].
class SapHolonomicConstraint final : public ConvexConstraint {
 public:
  // g0: g at the start of the step; β > 0 the near-rigid threshold.
  SapHolonomicConstraint(double g0,
                         double near_rigid_threshold = kDefaultNearRigidThreshold);

  int num_equations() const override { return 1; }
  void Prepare(const ConstraintMatrix& delassus_estimate, double time_step) override;
  double Evaluate(const ConstraintVector& v_c, ConstraintVector* gamma,
                  ConstraintMatrix* hessian) const override;
  // The compliant law λ = (v̂ − u)/R, unbounded, for the NCP solvers.
  RigidLaw rigid_law() const override;
  bool near_rigid() const override { return true; }

  double v_hat() const { return v_hat_; }
  double regularization() const { return r_; }

 private:
  double g0_;
  double near_rigid_threshold_;
  double v_hat_ = 0.0;
  double r_ = 0.0;
};

}  // namespace coulomb
