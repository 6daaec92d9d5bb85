#pragma once

#include <array>
#include <string>
#include <string_view>
#include <utility>

#include "coulomb/base/named_enum.h"

namespace coulomb {

enum class LinearSolverType {
  kDense,   // assemble H as an n_v × n_v matrix, dense Cholesky: O(n_v³)
  kSparse,  // block-sparse supernodal Cholesky over the clique graph
};

enum class LineSearchType {
  kExact,        // rtsafe on dℓ/dα (SAP §IV-C), the default
  kBacktracking  // Armijo backtracking (SAP §IV-B)
};

template <>
struct EnumNames<LinearSolverType> {
  static constexpr std::string_view kWhat = "linear solver";
  static constexpr std::array<std::pair<LinearSolverType, std::string_view>, 2> kNames = {
      {{LinearSolverType::kDense, "dense"}, {LinearSolverType::kSparse, "sparse"}}};
};
template <>
struct EnumNames<LineSearchType> {
  static constexpr std::string_view kWhat = "line search";
  static constexpr std::array<std::pair<LineSearchType, std::string_view>, 2> kNames = {
      {{LineSearchType::kExact, "exact"},
       {LineSearchType::kBacktracking, "backtracking"}}};
};
inline std::string ToString(LinearSolverType type) { return std::string(EnumName(type)); }
inline std::string ToString(LineSearchType type) { return std::string(EnumName(type)); }

// Parameters of the SAP Newton solver (SAP Alg. 2, eqs. 25–26).
struct SapSolverParameters {
  // ε_r ∈ (0, 1): relative tolerance of the stopping criterion SAP-26. The
  // paper recommends 1e-6…1e-1; 1e-6 resolves stiction well.
  double rel_tolerance = 1e-6;
  // ε_a ≥ 0: absolute tolerance [same units as D∇ℓ]; tiny, to stop at
  // exactly zero gradient (SAP-26).
  double abs_tolerance = 1e-16;
  // The momentum p in the scale of SAP-26 and of e_m (SAP-32).
  // false: p = A v, as in the paper (FCLIB problems, `coulomb solve`).
  // true: p = A (v − v_guess), the momentum change of the step when the guess
  // is the previous velocity (time stepping). SAP's p = A v lets the residual
  // grow with the bodies' speed: at δt = 1e-6 s a body moving at 10 m/s
  // passes the test at its warm start, gravity (m g δt ≈ 1e-6 |p|) unapplied,
  // so errors accumulate as δt → 0. The change of momentum is Galilean
  // invariant and scales with the step's impulses.
  bool momentum_relative_to_guess = false;
  // Record every iteration in SapSolverStatistics::history (the solve's one
  // allocation); off, the history stays empty and a solve allocates nothing.
  bool keep_history = true;
  // Newton iterations before the solve is declared failed (> 0). SAP rarely
  // needs 30. Hunt & Crossley contact with a tight stiction tolerance (v_s =
  // 1e-4 m/s) converges slowly where many contacts switch between sticking
  // and slipping (Newton's model holds within ~v_s of the iterate): the
  // 40-body clutter at δt = 10 ms needs up to about 100 iterations under
  // Lagged and 800 under Similar in its impacts (docs/stiff_contact.md), so
  // the default leaves room for them.
  int max_iterations = 1000;
  // Solve on a working set of constraints: those with an impulse at the
  // guess or at v*, then, round after round from the last solution, those
  // found active at it, until none left out is active. A constraint without
  // an impulse adds nothing to ℓ_p or ∇ℓ_p, so the result is the whole
  // problem's minimizer, with its accuracy; the Newton iterations skip the
  // speculative contacts that never engage (most of them in a falling pile).
  // Every round's iterations count towards max_iterations.
  bool working_set = true;
  LinearSolverType linear_solver = LinearSolverType::kSparse;
  // With more than one thread: the islands' line searches and steps run on
  // the thread pool only while the islands still iterated hold at least this
  // many constraints (≥ 0; 0: always). Below it a line search is a few
  // microseconds of work, which a second thread slows down (the data move
  // between the cores' caches): over 3 s of the 40-body walled clutter two
  // threads took 0.25–0.33 ms per step without this bound against 0.19 ms
  // on one, 0.19 with it; at 1000 bodies on the grid the two are even
  // (7.6–7.9 against 7.7 ms per step; 2-core machine, alternating runs).
  int parallel_min_constraints = 1000;
  LineSearchType line_search = LineSearchType::kExact;

  // Exact line search: stop when |dℓ/dα| ≤ tolerance · |dℓ/dα(0)| or when the
  // bracket on α is narrower than alpha_tolerance · α_upper. Late in Newton's
  // iteration dℓ/dα(0) is at round-off level, so the bracket test ends the
  // search; α to 1e-8 relative leaves Newton's convergence unaffected. The
  // slope to 1e-3 of its start leaves the Newton iterations as they are at
  // 1e-10 (the clutter, 40 bodies with walls: 8.94 → 8.98 per step over 3 s;
  // 320 without walls: 19.16 → 19.23 over 1 s) with fewer evaluations along
  // the line (3.1 % and 1.9 % of the instructions).
  double exact_line_search_tolerance = 1e-3;
  double exact_line_search_alpha_tolerance = 1e-8;
  int exact_line_search_max_iterations = 100;

  // Backtracking (SAP §IV-B): α starts at α_max, α ← ρα until Armijo holds.
  double backtracking_alpha_max = 1.25;
  double backtracking_rho = 0.8;
  double armijo_c = 1e-4;
  int backtracking_max_iterations = 100;  // α down to 1.25·0.8¹⁰⁰ ≈ 2.6e-10
};

// Throws std::invalid_argument naming the offending field.
void ValidateSapSolverParameters(const SapSolverParameters& parameters);

}  // namespace coulomb
