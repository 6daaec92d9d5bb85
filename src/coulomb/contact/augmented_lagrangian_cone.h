#pragma once

#include <Eigen/Dense>

#include "coulomb/contact/convex_constraint.h"

namespace coulomb {

// The per-contact potential of CANAL's inner problem (AL-21, AL-22, docs/math.md
// §4.2): with penalty β > 0 and shift s (the previous outer iterate's
// multiplier, the NCP offset and the De Saxcé term, see CanalSolver),
//   y = −β (v_c + s),   γ = Π_K(y),   ℓ(v_c) = ‖γ‖² / (2β),
//   G = ∂²ℓ/∂v_c² = β ∂Π_K/∂y  (⪰ 0: the Jacobian of a projection onto a
// convex set is symmetric with eigenvalues in [0, 1]),
// Π_K the Euclidean projection onto the friction cone. The inner problem
// ½‖v − v*‖²_A + Σ ℓ_i is SAP's with this potential in place of the friction
// cone, so it reuses SAP's Newton solver and its block-sparse Hessian.
// Order [t1, t2, n]; units: v [m/s], γ [N·s], β [N·s²/m... = impulse/velocity].
class AugmentedLagrangianCone final : public ConvexConstraint {
 public:
  AugmentedLagrangianCone(double friction, double penalty, const Eigen::Vector3d& shift);

  int num_equations() const override { return 3; }
  void Prepare(const ConstraintMatrix&, double) override {}
  double Evaluate(const ConstraintVector& v_c, ConstraintVector* gamma,
                  ConstraintMatrix* hessian) const override;

  void set_penalty(double penalty) { penalty_ = penalty; }
  void set_shift(const Eigen::Vector3d& shift) { shift_ = shift; }

 private:
  double friction_;
  double penalty_;
  Eigen::Vector3d shift_;
};

}  // namespace coulomb
