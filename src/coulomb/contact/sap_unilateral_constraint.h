#pragma once

#include <limits>

#include "coulomb/contact/convex_constraint.h"
#include "coulomb/contact/sap_friction_cone.h"

namespace coulomb {

// A one-equation unilateral constraint in SAP's regularized form (SAP §V,
// the normal direction of SapFrictionCone alone): joint limits.
//
// The constraint velocity v_c is the rate of the gap g ≥ 0 (v_c > 0 opens
// it; for a lower limit g = q − q_lower, v_c = q̇; for an upper limit
// g = q_upper − q, v_c = −q̇). With v̂ = −g0/(δt + τ_d) and
// R = max(β²/(4π²) w, 1/(δt k (δt + τ_d))), w = |W_ii|,
//   γ = max(0, (v̂ − v_c)/R),   ℓ = ½ R γ²,   G = 1/R while γ > 0, else 0.
// k = ∞ (default) is the near-rigid regime; τ_d < 0 selects (β/π) δt.
// Units follow the joint: v_c [rad/s] or [m/s], γ [N·m·s] or [N·s].
class SapUnilateralConstraint final : public ConvexConstraint {
 public:
  struct Parameters {
    double stiffness = std::numeric_limits<double>::infinity();  // k > 0
    double dissipation_time_scale = -1.0;                        // τ_d [s]
    double near_rigid_threshold = kDefaultNearRigidThreshold;    // β > 0
  };

  // gap0: g at the start of the step (negative when violated).
  SapUnilateralConstraint(const Parameters& parameters, double gap0);

  int num_equations() const override { return 1; }
  void Prepare(const ConstraintMatrix& delassus_estimate, double time_step) override;
  double Evaluate(const ConstraintVector& v_c, ConstraintVector* gamma,
                  ConstraintMatrix* hessian) const override;
  // g·γ with g = v_c − v̂ + Rγ ≥ 0: zero up to round-off.
  double ComplementarityProduct(const ConstraintVector& v_c,
                                const ConstraintVector& gamma) const override;

  // The hard law 0 ≤ λ ⊥ v_c − v̂ ≥ 0 (e = −v̂).
  RigidLaw rigid_law() const override;

  double v_hat() const { return v_hat_; }
  double regularization() const { return r_; }

 private:
  Parameters parameters_;
  double gap0_;
  double v_hat_ = 0.0;
  double r_ = 0.0;
};

}  // namespace coulomb
