#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include <Eigen/Dense>

#include "coulomb/contact/clique_coupling.h"
#include "coulomb/contact/contact_problem.h"
#include "coulomb/math/reusable_dense.h"
#include "coulomb/math/thread_pool.h"
#include "coulomb/solvers/engaged_islands.h"
#include "coulomb/solvers/hessian_factorization.h"
#include "coulomb/solvers/sap_line_search.h"
#include "coulomb/solvers/sap_solver_parameters.h"
#include "coulomb/solvers/sap_statistics.h"

namespace coulomb {

// What a SAP solve returns: velocities and, per constraint (stacked), the
// constraint velocities v_c = J v + b and impulses γ at v.
// v_c and γ keep their storage from solve to solve (ReusableVector): a
// time step whose constraints are fewer, or as many as before, allocates
// nothing for them.
struct SapSolution {
  Eigen::VectorXd v;
  ReusableVector v_c;
  ReusableVector gamma;
};

// The SAP Newton solver (SAP Alg. 2, §IV; docs/math.md §2.3–2.7).
//
// Minimizes the strongly convex ℓ_p(v) = ½‖v − v*‖²_A + Σ_i ℓ_i(J_i v + b_i)
// by Newton's method, Δv = −H⁻¹∇ℓ_p with H = A + JᵀGJ, and a line search on
// α. Islands (EngagedIslands: cliques joined by the constraints with an
// impulse, independent sub-problems while the constraints between them stay
// disengaged; in a working set's round, by all its constraints) share the
// factorization but each takes its own step length; a constraint between
// islands that a step would engage joins them before the step is taken
// (docs/math.md §2.8). Stops when
//   ‖D∇ℓ_p‖ < ε_a + ε_r max(‖D p‖, ‖D j_c‖),  D = diag(A)^(-1/2),
// p = A v, j_c = Jᵀγ (SAP-26), and reports e_m and e_μ (SAP-32, SAP-33).
//
// An island k that meets its own share of that test,
//   ‖D∇ℓ_p‖_k ≤ ε_a/√N + ε_r max(‖D p‖_k, ‖D j_c‖_k)/√2   (N islands),
// is left where it is (no more factorizations or line searches on it): it
// no longer changes, and when every island meets its share the whole test
// holds (Minkowski: ‖∇‖ ≤ ε_a + ε_r √(‖Dp‖² + ‖Dj_c‖²)/√2 ≤ the bound).
//
// Working set (SapSolverParameters::working_set; docs/math.md §2.8): a
// constraint without an impulse at v adds nothing to ℓ_p or ∇ℓ_p there. The
// solver minimizes the sub-problem of the constraints with an impulse at the
// guess or at v*, checks the others after every Newton step and at the end,
// adds those found active (after a step, also those active one more full
// Newton step ahead; and for kWorkingSetIterationsAfterGrowth more
// iterations on the sub-problem, those they engage: fewer rounds, each of
// which redoes the symbolic factorization) and goes on from there in a new
// round. It returns once none left out is
// active: the whole problem's minimizer, at the whole problem's tolerance.
// In a falling pile most contacts are speculative and never engage; left
// out, they no longer couple the Hessian (fill) nor cost line searches.
//
// The solver keeps its workspace (symbolic factorization, buffers) between
// solves while the problem pattern is unchanged.
class SapSolver {
 public:
  // Acceptance at the round-off floor (SolverStatus::kConvergedAtRoundoff,
  // docs/stiff_contact.md): when for kRoundoffStallIterations Newton
  // iterations ℓ_p has decreased by no more than kRoundoffCostTolerance |ℓ_p|
  // (a few ulps) and ‖D∇ℓ_p‖ has not halved, no further progress is possible
  // in floating point; the iterate is accepted if e_m ≤ kRoundoffAcceptance
  // ε_r, and the solve goes on to its iteration limit (and fails) otherwise.
  static constexpr int kRoundoffStallIterations = 3;
  static constexpr double kRoundoffCostTolerance =
      16 * std::numeric_limits<double>::epsilon();
  static constexpr double kRoundoffAcceptance = 100.0;
  // The working set is used when its constraints couple at most this share
  // of the clique pairs the whole problem couples: each round of it redoes
  // the symbolic factorization, which pays only where the constraints left
  // out (speculative contacts) would add blocks and fill to the Hessian.
  static constexpr double kWorkingSetCouplingShare = 0.5;
  // Newton iterations (all rounds) after which an unconverged working set is
  // given up and the whole problem solved from the guess, as without it (the
  // iterations of both are reported).
  static constexpr int kWorkingSetMaxIterations = 100;
  // Newton iterations a working set's round goes on for once the set has
  // grown, before the next round starts from its iterate: what those steps
  // engage joins the same next round. A round redoes the symbolic analysis
  // and a whole factorization of every island, which costs more than a few
  // iterations on a sub-problem still without the joining constraints where
  // many islands fall at once (docs/performance_notes.md: the 1000-body grid over 3 s,
  // 1.27 → 0.61 rounds and 7.18 → 6.65 ms per step; walled piles, which
  // grow their set seldom, 5 % slower).
  static constexpr int kWorkingSetIterationsAfterGrowth = 8;

  // num_threads ≥ 1: the islands' line searches and steps run on that many
  // threads (the calling one included); results do not depend on it.
  explicit SapSolver(const SapSolverParameters& parameters = {}, int num_threads = 1);

  const SapSolverParameters& parameters() const { return parameters_; }
  // Changes the stopping tolerance ε_r between solves (CANAL tightens its
  // inner solves as the outer iteration converges); keeps the workspace.
  void set_rel_tolerance(double rel_tolerance) {
    parameters_.rel_tolerance = rel_tolerance;
  }

  // Solves from the initial guess v_guess (warm start; v* if empty). Never
  // throws for a well-formed problem: failure is reported in the status.
  SapSolverStatistics Solve(const ContactProblem& problem,
                            Eigen::Ref<const Eigen::VectorXd> v_guess,
                            SapSolution* solution);

 private:
  struct Evaluation {
    double cost = 0.0;
    double gradient_norm = 0.0;   // ‖D∇ℓ‖
    double momentum_scale = 0.0;  // max(‖Dp‖, ‖D j_c‖)
  };

  // The Newton iteration from v_start on `problem` (the whole problem, or a
  // working set's sub-problem), the momentum measured from guess_; its
  // iterations appended to *history (if kept; the returned one is empty).
  // v_c_start: J v_start + b if the caller has it (else computed here).
  SapSolverStatistics SolveFrom(const ContactProblem& problem,
                                const Eigen::VectorXd& v_start,
                                const ReusableVector* v_c_start, int max_iterations,
                                SapSolution* solution,
                                std::vector<SapIterationRecord>* history);
  // Working set (SapSolverParameters::working_set). The constraints with an
  // impulse at guess_ or at v* into working_set_ (v_c at guess_ into
  // guess_v_c_); false if the set would couple more than
  // kWorkingSetCouplingShare of the clique pairs.
  bool SelectInitialWorkingSet(const ContactProblem& problem);
  // Rounds of SolveFrom on the sub-problem of working_set_ until no other
  // constraint is active at the result.
  SapSolverStatistics SolveOnWorkingSet(const ContactProblem& problem,
                                        SapSolution* solution);
  // The numbers of distinct clique pairs that all constraints and those of
  // working_set_ couple.
  std::pair<int, int> CountCoupledCliquePairs(const ContactProblem& problem);
  // Adds the constraints with an impulse at v to working_set_; true if it
  // grew. moved_only: only those on a clique still iterated (clique_active_).
  bool GrowWorkingSet(const ContactProblem& problem, const Eigen::VectorXd& v,
                      bool moved_only);
  // Whether constraint `index` has an impulse at v.
  bool ConstraintActive(const ContactProblem& problem, int index,
                        const Eigen::VectorXd& v) const;
  // Adds a round's counts to the working set's total (not its history,
  // which SolveFrom wrote into the total's).
  void AccumulateRound(const SapSolverStatistics& round,
                       SapSolverStatistics* total) const;

  // How a solve's workspace relates to the previous solve's: the same
  // problem pattern, the same clique coupling with other constraints
  // (CliqueCoupling::Update: the symbolic factorization is kept), or new.
  enum class Workspace { kReused, kConstraintsReassigned, kRebuilt };
  Workspace SetUpWorkspace(const ContactProblem& problem);
  // An island's terms of ℓ_p and of the stopping test's squared norms:
  // ‖D∇ℓ_p‖², ‖D p‖², ‖D j_c‖² summed over its cliques.
  struct IslandShare {
    double cost = 0.0;
    double gradient_squared = 0.0;
    double momentum_squared = 0.0;
    double impulse_squared = 0.0;
    IslandShare& operator+=(const IslandShare& other) {
      cost += other.cost;
      gradient_squared += other.gradient_squared;
      momentum_squared += other.momentum_squared;
      impulse_squared += other.impulse_squared;
      return *this;
    }
  };

  // Evaluates constraints, gradient and norms at solution->v; solution->v_c,
  // velocity_error_ and a_times_velocity_error_ must hold J v + b, v − v*
  // and A (v − v*) there. Only the islands still iterated are evaluated
  // again: the others have not moved since they were set aside, and their
  // shares are summed in set_aside_.
  Evaluation Evaluate(const ContactProblem& problem, bool with_hessians,
                      SapSolution* solution);
  // One island's momentum_, gradient_ and share, from its constraint costs,
  // generalized impulses and velocity errors.
  IslandShare EvaluateIsland(const ContactProblem& problem, int island);
  // Marks the islands that meet their share of the stopping test as done
  // (see the class comment): their Newton direction Δv is zeroed, and stays
  // zero while they are aside; the factorization is restricted to the others.
  void SetAsideConvergedIslands(const ContactProblem& problem);
  // active_constraints_ and active_cliques_ from island_active_.
  void ListActiveIslands();
  // The islands of the constraints with an impulse at solution->v_c, all
  // iterated; the crossing constraints' γ_i and G_i set to zero (they add
  // nothing to ∇ℓ_p or H while disengaged).
  void ResetIslands(const ContactProblem& problem, SapSolution* solution);
  // Checks the crossing constraints on a clique still iterated at the trial
  // point, each active island moved by its step length in island_steps_
  // (their v_c there kept in crossing_v_c_); true if one engaged (listed in
  // engaged_crossing_).
  bool CrossingConstraintEngagedAtTrial(const ContactProblem& problem,
                                        const SapSolution& solution);
  // Joins the islands of the crossing constraints in engaged_crossing_
  // (EngagedIslands::Join) into joined_islands_, iterated; the other islands
  // keep their numbers and state.
  void JoinIslands(const ContactProblem& problem);
  // Whether the islands' line searches and steps go to the thread pool
  // (SapSolverParameters::parallel_min_constraints).
  bool ParallelIslands() const {
    return pool_ && static_cast<int>(active_constraints_.size()) >=
                        parameters_.parallel_min_constraints;
  }
  // island_steps_ of the listed islands (on the thread pool).
  void SearchIslands(const ContactProblem& problem, const SapSolution& solution,
                     const std::vector<int>& islands);
  // island_segment_offset_, the factorization's active cliques and the
  // active lists from island_active_ and clique_active_.
  void IslandsChanged();
  // Step lengths per island along delta_v_, each island stepped by its own
  // (in parallel on the thread pool); returns false if one failed.
  bool UpdateAlongDirection(const ContactProblem& problem, SapSolution* solution,
                            SapIterationRecord* record);
  // Moves island `island` by alpha Δv: v, v − v*, A(v − v*) and v_c.
  void StepIsland(const ContactProblem& problem, int island, double alpha,
                  SapSolution* solution);
  // α for one island along delta_v_ (exact or backtracking line search).
  LineSearchResult IslandStepLength(const ContactProblem& problem,
                                    const SapSolution& solution, int island) const;
  double ComplementarityError(const ContactProblem& problem, const SapSolution& solution,
                              double cost) const;

  SapSolverParameters parameters_;
  std::optional<CliqueCoupling> coupling_;
  std::unique_ptr<HessianFactorization> factorization_;
  // Workspace, sized per pattern.
  Eigen::VectorXd inverse_sqrt_diagonal_;   // D
  Eigen::VectorXd velocity_error_;          // v − v*
  Eigen::VectorXd a_times_velocity_error_;  // A(v − v*)
  Eigen::VectorXd momentum_;                // A v or A (v − v_guess)
  Eigen::VectorXd momentum_origin_;         // 0 or v_guess
  Eigen::VectorXd origin_error_;            // v* − momentum_origin_
  Eigen::VectorXd a_times_origin_error_;    // A(v* − momentum_origin_)
  Eigen::VectorXd generalized_impulse_;     // Jᵀγ
  Eigen::VectorXd gradient_;
  Eigen::VectorXd delta_v_;
  Eigen::VectorXd delta_p_;
  ReusableVector delta_v_c_;
  EngagedIslands islands_;
  std::vector<char> engaged_;        // per constraint: an edge of islands_
  std::vector<char> island_active_;  // per island: still iterated
  // Per island, its share at its last evaluation; the sum over the islands
  // set aside since the workspace was set up.
  std::vector<IslandShare> island_shares_;
  IslandShare set_aside_;
  // The trial point of CrossingConstraintEngagedAtTrial (v but on the
  // cliques still iterated), the crossing constraints on those cliques and
  // their v_c there; per constraint, the stamp of the last check that listed
  // it.
  Eigen::VectorXd trial_v_;
  std::vector<int> moved_crossing_;
  std::vector<ConstraintVector> crossing_v_c_;
  std::vector<int> crossing_visit_;
  int crossing_visit_stamp_ = 0;
  std::vector<int> engaged_crossing_;
  std::vector<int> joined_islands_;     // the islands JoinIslands made
  int island_joins_ = 0;                // in this Newton solve
  std::vector<char> clique_active_;     // per clique: its island's flag
  std::vector<int> set_aside_cliques_;  // SetAsideConvergedIslands' cliques
  // The constraints and cliques of the islands still iterated, island by
  // island (each island's in increasing order): a Newton iteration's
  // products with J, Jᵀ and A and its evaluations run over these only.
  std::vector<int> active_constraints_;
  std::vector<int> active_cliques_;
  std::vector<int> active_islands_;
  std::vector<LineSearchResult> island_steps_;  // per island
  std::vector<double> constraint_costs_;
  std::vector<ConstraintMatrix> constraint_hessians_;
  // The guess of the solve (the whole problem's), the working set's
  // constraint indices (increasing), the sub-problem and its solve.
  Eigen::VectorXd guess_;
  ReusableVector guess_v_c_;  // J guess_ + b on the whole problem
  std::vector<int> working_set_;
  // The constraints not in it (increasing), the ones a check found active
  // and the merged set being built.
  std::vector<int> left_out_;
  std::vector<int> joining_;
  std::vector<int> grown_set_;
  // IslandLineFunction::RestrictToSegment's lists (IslandStepLength is
  // const): island k's from island_segment_offset_[k] on, room for all of
  // its constraints, so that islands searched at once never share entries.
  mutable std::vector<int> segment_storage_;
  std::vector<int> island_segment_offset_;
  std::unique_ptr<ThreadPool> pool_;    // none for one thread
  std::vector<uint64_t> clique_pairs_;  // CountCoupledCliquePairs' workspace
  std::optional<ContactProblem> subproblem_;
  Eigen::VectorXd subproblem_guess_;
  SapSolution subproblem_solution_;
  // While a sub-problem is solved: the whole problem, checked after every
  // Newton step, and whether the check grew the working set (which ends the
  // round).
  const ContactProblem* whole_problem_ = nullptr;
  bool working_set_grew_ = false;
  Eigen::VectorXd look_ahead_;  // the iterate plus a full Newton step
};

}  // namespace coulomb
