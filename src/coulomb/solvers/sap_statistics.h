#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "coulomb/solvers/solver_status.h"

namespace coulomb {

// One Newton iteration (values at the iterate before the update).
struct SapIterationRecord {
  double cost = 0.0;               // ℓ_p(v)
  double gradient_norm = 0.0;      // ‖D ∇ℓ_p(v)‖
  double min_alpha = 0.0;          // smallest step length over the islands
  int line_search_iterations = 0;  // the longest over the islands
};

// What every SAP solve reports (SAP §V-B, eqs. 32–33).
struct SapSolverStatistics {
  SolverStatus status = SolverStatus::kMaxIterationsReached;
  int iterations = 0;  // Newton updates performed
  // Σ over the Newton updates of the cliques each one moved: every clique
  // while one island is iterated, fewer once islands converge and are set
  // aside. Over the problem's cliques, the iterations a clique went through
  // on average (≤ iterations, which counts those of the slowest island).
  std::int64_t clique_updates = 0;
  int line_search_iterations = 0;
  std::vector<SapIterationRecord> history;
  double cost = 0.0;                   // ℓ_p at the returned v
  double momentum_error = 0.0;         // e_m = ‖D∇ℓ‖ / max(‖Dp‖, ‖D j_c‖)
  double complementarity_error = 0.0;  // e_μ = (1/n_c) Σ|g_i·γ_i| / ℓ_p
  // Islands at the start of the last Newton solve (cliques joined by the
  // constraints with an impulse, EngagedIslands), and how many times two or
  // more of them were joined because a constraint between them engaged.
  int num_islands = 0;
  int island_joins = 0;
  // Whether this solve redid the symbolic work (clique graph, supernodes,
  // Cholesky ordering and fill): its problem's clique coupling differed from
  // the previous solve's (CliqueCoupling::Update).
  bool symbolic_analysis = false;
  // The working set (SapSolverParameters::working_set): how many of its
  // sub-problems were solved, and how many constraints the last problem
  // solved had (every constraint when the whole problem was solved, at once
  // or after a working set that did not converge).
  int working_set_rounds = 0;
  int working_set_size = 0;
  double factorization_time_s = 0.0;  // numeric factorizations (+ solves)
  double total_time_s = 0.0;

  bool converged() const { return status == SolverStatus::kConverged; }
};

}  // namespace coulomb
