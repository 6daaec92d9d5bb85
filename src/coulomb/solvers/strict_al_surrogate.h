#pragma once

#include <Eigen/Dense>

#include "coulomb/solvers/contact_ncp.h"

namespace coulomb {

// The augmented Lagrangian subproblem of AL §IV with the strict operator
// (AL-16, AL-17, AL-19): the nonlinear equation that CANAL's cascade
// replaces by a convex minimization (AL §V), and that the ablation of AL
// §VII-D1 solves directly by semismooth Newton methods
// (SemismoothInnerSolver). With the outer iterate's multipliers λ^{k−1} and
// the penalty β > 0,
//   r(v) = A (v − v*) − Jᵀ λ(v),   λ_i(v) = T(λ_i^{k−1} − β u_i(v)),
// u = J v + b + e (ContactNcp's contact velocity, order [t1, t2, n]) and T
// the strict operator (StrictFrictionOperator: λ_n = max(x_n, 0), λ_t
// clamped to the disc of radius μ λ_n), which makes (z, λ) with
// β z = β u + λ − λ^{k−1} satisfy Signorini–Coulomb exactly (AL Prop. 2).
// A padded soft law (PD controller) enters with its own λ_i(u_i).
// The generalized Jacobian
//   ∂r/∂v = A − Jᵀ M J,   M = blockdiag(∂λ_i/∂u_i) = −β ∂T/∂x (contacts),
// is not symmetric where contacts slip, and may be singular.
//
// Scaling: the class works in x = D⁻¹ v with D = diag(A)^(−1/2) and reports
// the scaled residual r̃ = D r (SAP's stopping measure, SAP-26):
//   r̃(x) = D r(D x),   ∂r̃/∂x = D (A − Jᵀ M J) D,
// so that trust regions and the merit ½‖r̃‖² do not depend on units. Dense
// (O(n_v³) per factorization): for the ablation's small problems.
class StrictAlSurrogate {
 public:
  // A, J, D and the offsets of the NCP, kept until the next Reset.
  void Reset(const ContactNcp& ncp);
  // The outer iterate's multipliers λ^{k−1} (stacked like v_c) and β > 0.
  void SetMultipliers(Eigen::Ref<const Eigen::VectorXd> lambda, double penalty);

  void ToScaled(Eigen::Ref<const Eigen::VectorXd> v, Eigen::VectorXd* x) const;
  void FromScaled(const Eigen::VectorXd& x, Eigen::VectorXd* v) const;

  // Evaluates r̃, λ and the measures below at x; returns the merit ½‖r̃‖².
  double Evaluate(const Eigen::VectorXd& x);
  // ∂r̃/∂x at the point last evaluated.
  void CalcJacobian(Eigen::MatrixXd* jacobian);
  // SAP-26 at the point last evaluated: ‖r̃‖ < ε_a + ε_r max(‖D A v‖, ‖D Jᵀλ‖).
  bool Converged(double abs_tolerance, double rel_tolerance) const;

  const Eigen::VectorXd& residual() const { return residual_; }  // r̃
  const Eigen::VectorXd& lambda() const { return lambda_; }      // λ(v)
  const Eigen::VectorXd& v() const { return v_; }

 private:
  const ContactNcp* ncp_ = nullptr;
  Eigen::MatrixXd a_, jacobian_;  // A, J (dense)
  Eigen::VectorXd scale_;         // D = diag(A)^(−1/2)
  Eigen::VectorXd multipliers_;   // λ^{k−1}
  double penalty_ = 0.0;          // β
  // At the point last evaluated.
  Eigen::VectorXd v_, u_, lambda_, residual_, momentum_, impulse_;
  Eigen::MatrixXd impulse_derivative_;  // M: 3 × 3 blocks ∂λ_i/∂u_i, stacked
  Eigen::MatrixXd m_times_j_;           // M J
};

}  // namespace coulomb
