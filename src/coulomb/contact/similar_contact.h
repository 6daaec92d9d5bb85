#pragma once

#include "coulomb/contact/convex_constraint.h"
#include "coulomb/contact/hunt_crossley.h"

namespace coulomb {

// The Similar contact model (IRR §VI-C, docs/math.md §3.4): Hunt & Crossley normal
// impulse evaluated at the grouped velocity z = v_n − μ‖v_t‖_s, which couples
// friction and the normal direction strongly (like SAP) with a user-chosen
// stiction tolerance. Glides at ≈ μ δt ‖v_t‖ while sliding.
//
// Constraint velocity v_c = [v_t; v_n] in the contact frame (z along the
// normal, v_n > 0 separating); ε = v_s.
//   ℓ(v_c) = −N(z),   γ = n(z) [−μ t̂_s; 1],
//   G = [ μ n (I − t̂_s t̂_sᵀ)/(‖v_t‖_s+ε) − μ² n' t̂_s t̂_sᵀ   μ n' t̂_s ]
//       [ μ n' t̂_sᵀ                                         −n'       ]
// with n = n(z), n' = n'(z) ≤ 0, so G ⪰ 0 (−N is convex and non-increasing,
// z is concave). The stiffness is clamped where δt cannot resolve it
// (NearRigidStiffness, in Prepare). Units: v [m/s], γ [N·s].
class SimilarContact final : public ConvexConstraint {
 public:
  // phi0 [m]: signed distance at q0 (< 0 overlapping).
  SimilarContact(const HuntCrossleyParameters& parameters, double phi0);

  int num_equations() const override { return 3; }
  void Prepare(const ConstraintMatrix& delassus_estimate, double time_step) override;
  double Evaluate(const ConstraintVector& v_c, ConstraintVector* gamma,
                  ConstraintMatrix* hessian) const override;
  // Coulomb with μ and SAP's position feedback (HuntCrossleyRigidLaw).
  RigidLaw rigid_law() const override {
    return HuntCrossleyRigidLaw(parameters_.friction, phi0_, time_step_);
  }
  bool near_rigid() const override { return near_rigid_; }

 private:
  HuntCrossleyParameters parameters_;
  double phi0_;
  HuntCrossleyNormal normal_;
  double time_step_ = 0.0;   // of the last Prepare
  bool near_rigid_ = false;  // the stiffness was clamped (NearRigidStiffness)
};

}  // namespace coulomb
