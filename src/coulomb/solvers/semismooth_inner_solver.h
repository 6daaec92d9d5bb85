#pragma once

#include <Eigen/Dense>

#include "coulomb/solvers/contact_ncp.h"
#include "coulomb/solvers/strict_al_surrogate.h"

namespace coulomb {

// The stopping test and budget of one inner solve.
struct InnerSolveLimits {
  double abs_tolerance = 1e-16;  // ε_a of SAP-26 on ‖r̃‖
  double rel_tolerance = 1e-6;   // ε_r of SAP-26
  int max_iterations = 25;
};

struct InnerSolveResult {
  int iterations = 0;  // trial steps, one linear solve or model step each
  bool converged = false;
};

// The two baselines of AL §VII-D1 for CANAL's inner problem: standard
// solvers for the nonsmooth equation r̃(x) = 0 of a StrictAlSurrogate,
// with the merit function Ψ(x) = ½‖r̃(x)‖² and the generalized Jacobian
// H = ∂r̃/∂x (not symmetric, possibly singular: dense LU with partial
// pivoting; a reciprocal condition estimate below kSingularRcond counts as
// singular).
//
// kDampedSemismoothNewton (De Luca, Facchinei, Kanzow 1996, Alg. 3.1):
// d = −H⁻¹r̃, replaced by the steepest descent −∇Ψ = −Hᵀr̃ when H is
// singular or d is not a descent direction (∇Ψᵀd > −ρ‖d‖^p, ρ = 1e-8,
// p = 2.1); Armijo backtracking t = 1, ½, ¼, … until
// Ψ(x + t d) ≤ Ψ(x) + σ t ∇Ψᵀd (σ = 1e-4); fails when t < 1e-12.
//
// kDogleg (Nocedal & Wright, Numerical Optimization, 2nd ed., §4.1 and
// §11.2): on the model m(p) = ½‖r̃ + H p‖², the step within ‖p‖ ≤ Δ along
// the dogleg path from the Cauchy point p_U = −(‖g‖²/‖Hg‖²) g (g = Hᵀr̃) to
// the Newton point p_N = −H⁻¹r̃; accepted when the actual over the predicted
// reduction ρ > 1e-4; Δ ← ¼‖p‖ when ρ < ¼, Δ ← 2Δ when ρ > ¾ and the step
// reached the boundary; Δ_0 = ‖p_N‖. Every trial step, accepted or not,
// counts as an iteration; fails when Δ < 1e-14 (1 + ‖x‖).
//
// Both stop when SAP-26 holds at x (StrictAlSurrogate::Converged) and fail
// at max_iterations; the surrogate is left evaluated at the returned x.
class SemismoothInnerSolver {
 public:
  static constexpr double kSingularRcond = 1e-13;

  explicit SemismoothInnerSolver(CanalInnerSolver method);

  // x: the starting point on entry, the last accepted point on return.
  InnerSolveResult Solve(StrictAlSurrogate* surrogate, Eigen::VectorXd* x,
                         const InnerSolveLimits& limits);

 private:
  InnerSolveResult SolveDamped(StrictAlSurrogate* surrogate, Eigen::VectorXd* x,
                               const InnerSolveLimits& limits);
  InnerSolveResult SolveDogleg(StrictAlSurrogate* surrogate, Eigen::VectorXd* x,
                               const InnerSolveLimits& limits);
  // H, g = Hᵀr̃ and, if H is not singular, p_N = −H⁻¹r̃ at the point the
  // surrogate was last evaluated; returns whether p_N exists.
  bool LinearizeAt(StrictAlSurrogate* surrogate);
  // The dogleg step for trust radius Δ into step_.
  void DoglegStep(double radius, bool has_newton_step);

  CanalInnerSolver method_;
  Eigen::MatrixXd jacobian_;  // H
  Eigen::PartialPivLU<Eigen::MatrixXd> lu_;
  Eigen::VectorXd residual_, gradient_, newton_step_, cauchy_step_, leg_, step_, trial_;
  Eigen::VectorXd model_change_;  // H g, or r̃ + H p (the model's residual)
};

}  // namespace coulomb
