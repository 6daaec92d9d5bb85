#pragma once

#include <optional>
#include <vector>

#include <Eigen/Dense>

#include "coulomb/contact/augmented_lagrangian_cone.h"
#include "coulomb/solvers/contact_ncp.h"
#include "coulomb/solvers/sap_solver.h"
#include "coulomb/solvers/semismooth_inner_solver.h"
#include "coulomb/solvers/strict_al_surrogate.h"
#include "coulomb/solvers/subadmm_solver.h"

namespace coulomb {

// CANAL: the augmented Lagrangian method for the exact contact NCP with a
// convex inner problem (AL §V, Alg. 1; docs/math.md §4.2).
//
// Outer iteration k, with the multipliers λ^{k−1} (u = −λ in AL's notation)
// and the De Saxcé term d_i = [0, 0, μ_i ‖z_i,t‖] of the previous slack z:
//   v^k = argmin ½‖v − v*‖²_A + Σ_i ‖Π_K(λ_i^{k−1} − β (u_i(v) + d_i))‖² / (2β)
//   λ^k = Π_K(λ^{k−1} − β (u(v^k) + d)),   z = u(v^k) + (λ^k − λ^{k−1})/β,
// a proximal-point step whose fixed point is the NCP (λ = Π_K(λ − β ũ) ⟺
// K ∋ λ ⊥ ũ ∈ K*). The inner problem is SAP's with AugmentedLagrangianCone
// potentials, solved by the same Newton method, exact line search and block
// Cholesky (warm-started; the symbolic factorization is reused across outer
// iterations). β starts at penalty_scale / mean_i(trace(W_ii)/3) and grows
// by penalty_growth (up to max_penalty_growth) whenever the natural-map
// residual fell by less than stall_ratio; the primal residual ‖J v − z‖ =
// ‖λ^k − λ^{k−1}‖/β is reported. After an outer iteration at β's cap whose
// residual fell by less than 5 % (kRelaxationStallRatio), the next d_i is
// relaxed, d_i,n ← (1 − ω) d_i,n + ω μ_i ‖z_i,t‖
// (NcpSolverParameters::de_saxce_relaxation), against cycles of the shift.
// Stops when the natural-map residual at v = v* + A⁻¹Jᵀλ (exact dynamics)
// ≤ tolerance; otherwise, at the iteration limit, returns the iterate with
// the lowest residual (the outer iterates are not monotone, and in
// simulation, with a budget of 20, the last one could be the worst). One
// outer iteration from λ = 0 is a soft convex model.
//
// With NcpSolverParameters::fallback_iterations > 0, a solve that ends
// unsolved hands its best impulses to plain ADMM (SubAdmmSolver over the
// whole system), which goes on from there (docs/reliability.md: the
// random problems CANAL stalls on mostly have a solution ADMM reaches).
//
// NcpSolverParameters::inner_solver replaces the cascade by AL §VII-D1's
// baselines, a dogleg or damped semismooth Newton method on the strict
// operator's nonsmooth equation (StrictAlSurrogate, SemismoothInnerSolver):
// the same outer loop with λ^k = T(λ^{k−1} − β u(v^k)) and no De Saxcé term.
class CanalSolver {
 public:
  // Outer iterations when NcpSolverParameters::max_iterations is 0, and the
  // budget per simulation step (MakeContactSolver with SolverUse::kTimeStepping).
  static constexpr int kMaxIterations = 100;
  static constexpr int kStepBudget = 20;
  // At β's cap, an outer iteration whose residual fell by less than this
  // factor relaxes the next De Saxcé term.
  static constexpr double kRelaxationStallRatio = 0.95;
  explicit CanalSolver(const NcpSolverParameters& parameters = {});

  // v_guess: empty for v*. lambda_guess: the initial multipliers (e.g. the
  // previous time step's impulses; empty for 0), with v = v* + A⁻¹Jᵀλ then.
  NcpSolverStatistics Solve(
      const ContactNcp& ncp, Eigen::Ref<const Eigen::VectorXd> v_guess,
      NcpSolution* solution,
      Eigen::Ref<const Eigen::VectorXd> lambda_guess = Eigen::VectorXd());

 private:
  // A copy of the NCP's dynamics and Jacobians with one AL cone per contact.
  // inner_ for this NCP, rebuilt in place (storage and potentials reused).
  void RebuildInnerProblem(const ContactNcp& ncp, double penalty);
  double InitialPenalty(const ContactNcp& ncp);

  // One inner solve for the outer iterate `outer` (warm-started from it on
  // the first outer iteration, else from the previous inner solution);
  // leaves v^k and λ^k in inner_solution_.
  struct InnerStep {
    int iterations = 0;
    bool converged = false;
    // No answer to go on from: a factorization failed or the cost overflowed.
    bool no_answer = false;
  };
  // CANAL's cascade: SAP's Newton method on the convex surrogate (AL §V).
  InnerStep SolveCascadedInnerProblem(const ContactNcp& ncp, double penalty,
                                      double rel_tolerance, bool first,
                                      const NcpSolution& outer);
  // The ablation's baselines on the strict operator's equation (AL §VII-D1).
  InnerStep SolveStrictInnerProblem(double penalty, double rel_tolerance, bool first,
                                    const NcpSolution& outer);

  // The iterate with the lowest natural-map residual so far (first: the
  // starting point), which Solve returns when the last one is worse.
  void KeepIfBest(const NcpSolution& iterate, double residual, bool first);
  // Returns the best iterate in `solution`, after ADMM has gone on from it
  // when the fallback is on and the tolerance was not met.
  void FinishWithBestOrFallback(const ContactNcp& ncp, NcpSolution* solution,
                                NcpSolverStatistics* stats);

  NcpSolverParameters parameters_;
  SapSolver inner_solver_;
  NcpSolution best_;
  double best_residual_ = 0.0;
  std::vector<AugmentedLagrangianCone*> cones_;  // owned by the inner problem
  std::optional<ContactProblem> inner_;
  SapSolution inner_solution_;  // v^k, λ^k (gamma) of the last inner solve
  // The baselines' equation and solver (inner_solver other than newton).
  StrictAlSurrogate strict_;
  std::optional<SemismoothInnerSolver> semismooth_solver_;
  Eigen::VectorXd scaled_v_;
  ReusableVector slack_, multiplier_change_;  // z, λ^k − λ^{k−1}
  std::vector<double> a_inverse_jt_;          // InitialPenalty's L_t⁻¹ J_itᵀ
  // The De Saxcé terms d_i,n of the last inner problem, and whether the
  // next ones are relaxed (β at its cap and the residual stalled).
  std::vector<double> de_saxce_;
  bool relax_de_saxce_ = false;
  std::optional<SubAdmmSolver> fallback_;  // made on its first use
};

}  // namespace coulomb
