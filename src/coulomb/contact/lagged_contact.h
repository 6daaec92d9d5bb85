#pragma once

#include "coulomb/contact/convex_constraint.h"
#include "coulomb/contact/hunt_crossley.h"

namespace coulomb {

// The Lagged contact model (IRR §VI-B, docs/math.md §3.3): Hunt & Crossley normal
// impulse and regularized Coulomb friction whose normal impulse is lagged to
// the start of the step. Consistent and free of gliding; friction and normal
// directions are uncoupled.
//
// Constraint velocity v_c = [v_t; v_n] in the contact frame (z along the
// normal, v_n > 0 separating). With γ_n0 = δt k x0₊ (1 − d v_n0)₊ the impulse
// at the previous velocity and ‖·‖_s the soft norm of tolerance ε,
//   ℓ(v_c) = μ γ_n0 ‖v_t‖_s − N(v_n),
//   γ = [−μ γ_n0 t̂_s(v_t); n(v_n)],
//   G = blockdiag(μ γ_n0 (I − t̂_s t̂_sᵀ)/(‖v_t‖_s + ε), −n'(v_n)) ⪰ 0.
// ε = v_s, or for the regularized variant (IRR-44) ε = max(v_s, σ w μ γ_n0)
// with w = ‖W_ii‖_F / 3 as in SAP: looser stiction during impacts only.
// The stiffness is clamped where δt cannot resolve it (NearRigidStiffness,
// in Prepare). Units: v [m/s], γ [N·s].
class LaggedContact final : public ConvexConstraint {
 public:
  // phi0 [m]: signed distance at q0 (< 0 overlapping); v_n0 [m/s]: normal
  // velocity at v0; sigma > 0 selects the regularized variant, 0 the plain.
  LaggedContact(const HuntCrossleyParameters& parameters, double phi0, double v_n0,
                double sigma = 0.0);

  int num_equations() const override { return 3; }
  void Prepare(const ConstraintMatrix& delassus_estimate, double time_step) override;
  double Evaluate(const ConstraintVector& v_c, ConstraintVector* gamma,
                  ConstraintMatrix* hessian) const override;
  // Coulomb with μ and SAP's position feedback (HuntCrossleyRigidLaw).
  RigidLaw rigid_law() const override {
    return HuntCrossleyRigidLaw(parameters_.friction, phi0_, time_step_);
  }

  bool near_rigid() const override { return near_rigid_; }

  double lagged_normal_impulse() const { return lagged_normal_impulse_; }  // γ_n0
  double stiction_tolerance() const { return epsilon_; }                   // ε

 private:
  HuntCrossleyParameters parameters_;
  double phi0_;
  double v_n0_;
  double sigma_;
  HuntCrossleyNormal normal_;
  double time_step_ = 0.0;  // of the last Prepare
  double lagged_normal_impulse_ = 0.0;
  double epsilon_ = 0.0;
  bool near_rigid_ = false;  // the stiffness was clamped (NearRigidStiffness)
};

}  // namespace coulomb
