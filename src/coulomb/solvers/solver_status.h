#pragma once

#include <array>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>

#include "coulomb/base/named_enum.h"

namespace coulomb {

// How a contact solve ended, for every solver (SAP, CANAL, SubADMM, PGS).
enum class SolverStatus {
  kConverged,  // the stopping criterion was met
  // SAP: the cost stopped decreasing at the floating-point floor with e_m
  // within kRoundoffAcceptance ε_r (sap_solver.h): accepted, reported apart.
  kConvergedAtRoundoff,
  kMaxIterationsReached,  // not met within the budget: the answer is not certified
  kFactorizationFailed,   // a matrix was not numerically positive definite
  kLineSearchFailed,      // SAP: no acceptable step along a descent direction
  kInnerSolveFailed,      // CANAL: its inner SAP solve failed
  // SAP: the cost or its gradient overflowed (velocities, forces or impulses
  // beyond what double precision can square): no iteration can help.
  kNotFinite,
};

template <>
struct EnumNames<SolverStatus> {
  static constexpr std::string_view kWhat = "solver status";
  static constexpr std::array<std::pair<SolverStatus, std::string_view>, 7> kNames = {{
      {SolverStatus::kConverged, "converged"},
      {SolverStatus::kConvergedAtRoundoff, "converged_at_roundoff"},
      {SolverStatus::kMaxIterationsReached, "max_iterations_reached"},
      {SolverStatus::kFactorizationFailed, "factorization_failed"},
      {SolverStatus::kLineSearchFailed, "line_search_failed"},
      {SolverStatus::kInnerSolveFailed, "inner_solve_failed"},
      {SolverStatus::kNotFinite, "not_finite"},
  }};
};

inline std::string ToString(SolverStatus status) { return std::string(EnumName(status)); }
inline std::ostream& operator<<(std::ostream& out, SolverStatus status) {
  return out << EnumName(status);
}

// A solve whose result may still be used: converged, or stopped at its
// iteration budget (fixed budgets are how NCP solvers run in simulation, AL
// §VII-C). Failures of a factorization or line search leave no usable answer.
inline bool UsableResult(SolverStatus status) {
  return status == SolverStatus::kConverged ||
         status == SolverStatus::kConvergedAtRoundoff ||
         status == SolverStatus::kMaxIterationsReached;
}

// A solve whose answer is certified: converged, or (SAP) at the round-off
// floor within a documented multiple of the tolerance.
inline bool Accepted(SolverStatus status) {
  return status == SolverStatus::kConverged ||
         status == SolverStatus::kConvergedAtRoundoff;
}

}  // namespace coulomb
