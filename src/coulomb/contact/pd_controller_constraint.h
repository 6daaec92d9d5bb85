#pragma once

#include <limits>

#include "coulomb/contact/convex_constraint.h"

namespace coulomb {

// A joint PD controller with an effort limit, implicit in the solve, as a
// convex potential of the joint velocity v (IRR §III: any convex potential
// plugs into the solver; Drake's SapPdControllerConstraint does the same).
//
// Over the step q ≈ q0 + δt v, so the actuation
//   u(v) = clamp(−Kp (q0 + δt v − q_d) − Kd (v − v_d) + u_ff, ±u_max)
//        = clamp(y(v), ±u_max),   y = a − b v,  b = Kp δt + Kd ≥ 0,
// and the impulse γ = δt u(v). With Φ(y) = y²/2 for |y| ≤ u_max and
// u_max |y| − u_max²/2 beyond (Φ' = clamp),
//   ℓ(v) = (δt/b) Φ(y(v))   (ℓ = −δt clamp(a) v when b = 0),
// so γ = −ℓ'(v) and G = δt b inside the limits, 0 when saturated: convex.
// Units: revolute [rad, rad/s, N·m], prismatic [m, m/s, N]; γ = δt u.
class PdControllerConstraint final : public ConvexConstraint {
 public:
  struct Parameters {
    double proportional_gain = 0.0;  // Kp ≥ 0 [N·m/rad]
    double derivative_gain = 0.0;    // Kd ≥ 0 [N·m·s/rad]
    double target_position = 0.0;    // q_d
    double target_velocity = 0.0;    // v_d
    double feedforward = 0.0;        // u_ff
    double effort_limit = std::numeric_limits<double>::infinity();  // u_max > 0
  };

  // position0: the joint position q0 at the start of the step.
  PdControllerConstraint(const Parameters& parameters, double position0);

  int num_equations() const override { return 1; }
  void Prepare(const ConstraintMatrix& delassus_estimate, double time_step) override;
  double Evaluate(const ConstraintVector& v_c, ConstraintVector* gamma,
                  ConstraintMatrix* hessian) const override;

  // The soft law λ = δt clamp(a − b v, ±u_max) itself: c = δt a, d = δt b.
  RigidLaw rigid_law() const override;

  // u(v), the actuation the controller applies at joint velocity v.
  double Actuation(double v) const;
  // After Prepare: y = offset − slope v, γ = δt clamp(y, ±effort_limit).
  double offset() const { return offset_; }
  double slope() const { return slope_; }
  double time_step() const { return time_step_; }
  double effort_limit() const { return parameters_.effort_limit; }

 private:
  Parameters parameters_;
  double position0_;
  double time_step_ = 0.0;
  double offset_ = 0.0;  // a
  double slope_ = 0.0;   // b
};

// Throws std::invalid_argument naming the offending field.
void ValidatePdControllerParameters(const PdControllerConstraint::Parameters& parameters);

}  // namespace coulomb
