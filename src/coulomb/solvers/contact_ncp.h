#pragma once

#include <algorithm>
#include <array>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <Eigen/Dense>

#include "coulomb/base/named_enum.h"
#include "coulomb/base/stopwatch.h"
#include "coulomb/contact/contact_problem.h"
#include "coulomb/math/reusable_dense.h"
#include "coulomb/solvers/solver_status.h"

namespace coulomb {

// The rigid Signorini–Coulomb NCP on the data of a contact problem (AL
// §III-B, docs/math.md §4.1): find v and λ with
//   A (v − v*) = Jᵀ λ,   u = J v + b + e,
//   K_μ ∋ λ_i ⊥ ũ_i = u_i + [0, 0, μ_i ‖u_i,t‖] ∈ K_μ*   (De Saxcé),
// per contact i, order [t1, t2, n]: no regularization, no gliding.
// Every constraint states its rigid law (ConvexConstraint::rigid_law), so
// the contacts of any model enter: μ_i and the position feedback e_i come
// from the law. For SAP's cone e = −v̂, so u = v_c − v̂: for a mapped FCLIB
// problem u is then FCLIB's contact velocity (u = W r + q or Hᵀv + w); in
// simulation e_n = φ0/(δt + τ_d) is the Baumgarte-style position feedback.
//
// Hard unilateral laws (joint limits, AL §III-B's 0 ≤ λ ⊥ u ≥ 0) are a
// frictionless contact: they enter as contacts with μ = 0 whose tangential
// Jacobian rows are zero. Soft laws (PD controllers, AL §III-B) enter the
// same way with λ_n = clamp(c − d u_n, lo, hi), λ_t = 0 (SoftLaw). The NCP
// then works on a padded copy of the problem (problem() returns it);
// ToProblemImpulses maps λ back.
class ContactNcp {
 public:
  // How NaturalMapResidual normalizes. kFclib: max(‖q‖, ‖λ‖, ‖u‖), FCLIB's
  // measure, for comparisons with other solvers. kContactPointSpeed: also at
  // least 1e-6 s (kSpeedScaleFloor), s = ‖(s_i)‖ the speed scale, s_i =
  // ‖b_i + e_i‖ + Σ_t ‖J_it‖ ‖v*_t‖: how fast constraint i's rows could move
  // at the speed of the trees it touches. In simulation a robot in free fall
  // with its joints at their limits has q ~ 1e-17 (rounding), and FCLIB's
  // ratio is then one rounding error over another (~1); the floor reports
  // such a step's error relative to how fast the robot moves instead, and
  // leaves every problem whose data are not rounding noise (‖q‖ > 1e-6 s)
  // with FCLIB's measure. (A floor of s itself loosened CANAL's inner
  // tolerance, which follows the residual, and a warm-started clutter run
  // then gained energy.)
  enum class ResidualScale { kFclib, kContactPointSpeed };
  static constexpr double kSpeedScaleFloor = 1e-6;

  // Throws std::invalid_argument if a constraint states no rigid law that
  // fits its size (RigidLaw), or the problem is not finalized.
  explicit ContactNcp(const ContactProblem& problem,
                      ResidualScale residual_scale = ResidualScale::kFclib);
  ContactNcp(ContactNcp&&) noexcept = default;
  // The same for a new problem, reusing this object's storage (the padded
  // copy, factorizations): a simulation step whose problem has the sizes of
  // the previous one allocates nothing here.
  void Rebuild(const ContactProblem& problem,
               ResidualScale residual_scale = ResidualScale::kFclib);

  const ContactProblem& problem() const { return *problem_; }
  int num_contacts() const { return problem_->num_constraints(); }
  double friction(int contact) const { return friction_[contact]; }
  // The soft law of a padded PD controller: λ_n = clamp(c − d u_n, lo, hi),
  // c = δt a, d = δt b, ±δt u_max (PdControllerConstraint's a, b); its
  // offset e is 0. Null for contacts and hard limits.
  struct SoftLaw {
    double c = 0.0, d = 0.0, lo = 0.0, hi = 0.0;
    double Impulse(double u_n) const { return std::clamp(c - d * u_n, lo, hi); }
  };
  const SoftLaw* soft_law(int constraint) const {
    return soft_laws_.empty() || !soft_laws_[constraint] ? nullptr
                                                         : &*soft_laws_[constraint];
  }
  // A copy of a soft constraint's padded potential into *slot, reusing the
  // object there when it has the type (CANAL keeps it as it is in its inner
  // problem: a soft law needs no multiplier).
  void EmplaceSoftPotential(int constraint,
                            std::unique_ptr<ConvexConstraint>* slot) const;
  // e_i, stacked like v_c.
  const ReusableVector& offsets() const { return offsets_; }
  // The diagonal R of the constraints' regularized potentials
  // (RigidLaw::regularization), stacked like v_c; zero where they have none.
  const ReusableVector& regularization() const { return regularization_; }
  // u(λ = 0) = J v* + b + e, stacked.
  const ReusableVector& free_contact_velocity() const { return free_contact_velocity_; }

  // u = J v + b + e, stacked (Vector: Eigen::VectorXd or ReusableVector).
  template <class Vector>
  void CalcContactVelocities(Eigen::Ref<const Eigen::VectorXd> v, Vector* u) const {
    problem_->CalcConstraintVelocities(v, u);
    *u += offsets_;
  }
  // v = v* + A⁻¹ Jᵀ λ: the velocities that satisfy the dynamics exactly
  // (Vector: Eigen::VectorXd or ReusableVector). (Uses a workspace of this
  // object: not for concurrent calls.)
  template <class Vector>
  void CalcVelocities(Eigen::Ref<const Eigen::VectorXd> lambda, Vector* v) const {
    *v = problem_->v_star() + VelocityChange(lambda);
  }
  // The FCLIB natural-map measure ‖λ − Π_K(λ − ũ)‖ / max(‖q‖, ‖λ‖, ‖u‖), with
  // q = u(λ = 0) and u = u(λ) (Acary, Brémond, Huber 2018).
  double NaturalMapResidual(Eigen::Ref<const Eigen::VectorXd> lambda,
                            Eigen::Ref<const Eigen::VectorXd> u) const;
  // λ (stacked like problem()'s v_c) in the layout of the problem the NCP was
  // built from: a unilateral constraint's impulse is its normal entry.
  void ToProblemImpulses(Eigen::Ref<const Eigen::VectorXd> lambda,
                         ReusableVector* impulses) const;
  Eigen::VectorXd ToProblemImpulses(Eigen::Ref<const Eigen::VectorXd> lambda) const {
    ReusableVector impulses;
    ToProblemImpulses(lambda, &impulses);
    return impulses;
  }
  // The inverse map (a warm start given in the original layout).
  void FromProblemImpulses(Eigen::Ref<const Eigen::VectorXd> impulses,
                           ReusableVector* lambda) const;
  Eigen::VectorXd FromProblemImpulses(Eigen::Ref<const Eigen::VectorXd> impulses) const {
    ReusableVector lambda;
    FromProblemImpulses(impulses, &lambda);
    return lambda;
  }
  // A_t⁻¹ by Cholesky, per clique.
  const Eigen::LLT<Eigen::MatrixXd>& clique_factorization(int clique) const {
    return factorizations_[clique];
  }

 private:
  // The problem with unilateral constraints padded to frictionless contacts,
  // rebuilt in place into *padded.
  static void PadUnilateralConstraints(const ContactProblem& problem,
                                       ContactProblem* padded);

  const ContactProblem* original_ = nullptr;
  std::unique_ptr<ContactProblem> padded_;   // storage; in use when problem_ is it
  const ContactProblem* problem_ = nullptr;  // padded_ or original_
  std::vector<double> friction_;
  std::vector<std::optional<SoftLaw>> soft_laws_;  // per constraint; empty: none
  ReusableVector offsets_;
  ReusableVector regularization_;
  std::vector<Eigen::LLT<Eigen::MatrixXd>> factorizations_;
  // A⁻¹ Jᵀ λ, in impulse_workspace_.
  const Eigen::VectorXd& VelocityChange(Eigen::Ref<const Eigen::VectorXd> lambda) const;
  // s of ResidualScale::kContactPointSpeed.
  double ContactPointSpeedScale() const;
  double residual_scale_floor_ = 0.0;          // ‖q‖, or at least s
  ReusableVector free_contact_velocity_;       // q
  mutable Eigen::VectorXd impulse_workspace_;  // CalcVelocities' Jᵀλ, A⁻¹Jᵀλ
};

// Throws std::invalid_argument unless λ has one finite entry per constraint
// equation of the NCP (a warm start).
void ValidateLambdaGuess(const ContactNcp& ncp, Eigen::Ref<const Eigen::VectorXd> lambda);

// What the NCP solvers (CANAL, SubADMM, PGS) report, per outer iteration,
// iteration or sweep.
struct NcpIterationRecord {
  double residual = 0.0;         // natural-map residual (normalized)
  double primal_residual = 0.0;  // CANAL: ‖J v̂ − z‖; PGS: 0
  int inner_iterations = 0;      // CANAL: Newton iterations of the inner solve
  double penalty = 0.0;          // CANAL, SubADMM: β
  double time_s = 0.0;           // since the solve started
};

struct NcpSolverStatistics {
  std::string solver;
  bool converged = false;
  SolverStatus status = SolverStatus::kMaxIterationsReached;
  int iterations = 0;        // outer iterations (CANAL) or sweeps (PGS)
  int inner_iterations = 0;  // CANAL: total Newton iterations
  int inner_solves = 0;      // CANAL: inner solves (one per outer iteration)
  int inner_failures = 0;    // CANAL: inner solves that missed their tolerance
  // CANAL: iterations of the ADMM fallback (NcpSolverParameters::
  // fallback_iterations) run after its own ended unsolved; 0 if none ran.
  int fallback_iterations = 0;
  double residual = 0.0;  // final natural-map residual
  double dual_gap = 0.0;  // dual solver (regularized): SAP's ℓ_p(v) + f(λ)
  std::vector<NcpIterationRecord> history;
  double total_time_s = 0.0;
};

// (Its vectors keep their storage from solve to solve: a simulation step
// allocates nothing here.)
struct NcpSolution {
  ReusableVector v;       // generalized velocities
  ReusableVector lambda;  // impulses, stacked [t1, t2, n] per contact
  ReusableVector u;       // contact velocities u(v)
};

// CANAL's inner solver (AL §VII-D1, docs/ncp_solvers.md "Inner-solver
// ablation"): its own cascaded Newton method on the convex surrogate (AL §V,
// the default), or one of the paper's two baselines on the nonsmooth
// equation of the strict operator (SemismoothInnerSolver).
enum class CanalInnerSolver {
  kCascadedNewton,         // SAP's Newton method, exact line search (AL-22 … AL-26)
  kDogleg,                 // trust-region dogleg on ½‖r‖² (dense LU)
  kDampedSemismoothNewton  // semismooth Newton, Armijo on ½‖r‖² (dense LU)
};
template <>
struct EnumNames<CanalInnerSolver> {
  static constexpr std::string_view kWhat = "CANAL inner solver";
  static constexpr std::array<std::pair<CanalInnerSolver, std::string_view>, 3> kNames = {
      {{CanalInnerSolver::kCascadedNewton, "newton"},
       {CanalInnerSolver::kDogleg, "dogleg"},
       {CanalInnerSolver::kDampedSemismoothNewton, "ssn"}}};
};
inline std::string ToString(CanalInnerSolver solver) {
  return std::string(EnumName(solver));
}

// How the dual solver applies the Delassus operator W = J A⁻¹ Jᵀ.
enum class DelassusForm {
  kAuto,      // dense when small and cheaper per product (DualSolver)
  kDense,     // W assembled once per solve (DelassusMatrix), one m × m product
  kOperator,  // J, A⁻¹ (clique factorizations) and Jᵀ applied in turn
};
template <>
struct EnumNames<DelassusForm> {
  static constexpr std::string_view kWhat = "Delassus form";
  static constexpr std::array<std::pair<DelassusForm, std::string_view>, 3> kNames = {
      {{DelassusForm::kAuto, "auto"},
       {DelassusForm::kDense, "dense"},
       {DelassusForm::kOperator, "operator"}}};
};
inline std::string ToString(DelassusForm form) { return std::string(EnumName(form)); }

// Stopping and iteration limits shared by the NCP solvers.
struct NcpSolverParameters {
  double tolerance = 1e-9;  // on the normalized natural-map residual
  // Record one NcpIterationRecord per iteration (statistics.history); off in
  // simulation, where a step allocates nothing.
  bool keep_history = true;
  // 0: the solver's own limit (kMaxIterations of CanalSolver, SubAdmmSolver,
  // PgsSolver; their kStepBudget in simulation).
  int max_iterations = 0;
  // CANAL: initial β = scale / mean(w_i) (w_i = trace(W_ii)/3, an inverse
  // effective mass); ×growth when the natural-map residual fell by less than
  // stall_ratio; at most max_growth × the initial β. (×10 makes the
  // residual jump back up for a few iterations on the dish pile, ×3 does not
  // and is faster there, but in simulation, with CANAL returning its best
  // iterate, ×10 gives 10–100× lower residuals in clutter; docs/ncp_solvers.md.)
  double penalty_scale = 1.0;
  double penalty_growth = 10.0;
  double stall_ratio = 0.5;
  double max_penalty_growth = 1e6;
  // CANAL: after an outer iteration at β's cap whose residual fell by less
  // than 5 %, the next De Saxcé term is relaxed,
  // s_i ← (1 − ω) s_i + ω μ_i ‖z_i,t‖ with ω = de_saxce_relaxation: the plain
  // update (ω = 1) can cycle there. On `coulomb bench random --count 2000`
  // ω = 0.4 cut CANAL's failures from 661 to 462 (those with W regular from
  // 151 to 68), and with `--seed 2` from 687 to 497 (160 to 79); the FCLIB
  // files take the same outer iterations as with ω = 1, but for one more on
  // Capsules and one more on spheres-in-a-box (docs/reliability.md).
  double de_saxce_relaxation = 0.4;
  // SAP's ε_r for the inner problem: 0.1 × the outer residual, within
  // [inner_rel_tolerance, 1e-6].
  double inner_rel_tolerance = 1e-13;
  // CANAL: the inner solver, and its iteration limit per inner solve (25:
  // the cascaded Newton method converges in a few; more only stall at
  // round-off). An inner solve that reaches it counts as a failure.
  CanalInnerSolver inner_solver = CanalInnerSolver::kCascadedNewton;
  int inner_max_iterations = 25;
  // CANAL, single problems: when its outer iterations end without meeting the
  // tolerance, plain ADMM (SubAdmmSolver, AdmmSplitting::kWholeSystem, whose
  // β follows the primal and dual residuals) goes on from CANAL's best
  // impulses for up to this many iterations, and the better of the two ends
  // is returned (0: none, CANAL as AL §V states it). Most problems CANAL
  // leaves unsolved have a solution ADMM reaches (docs/reliability.md). A
  // simulation step ignores it (its budget ends the step, not a failure).
  int fallback_iterations = 0;
  // Dual solver: how W is applied.
  DelassusForm delassus = DelassusForm::kAuto;
};

}  // namespace coulomb
