#include "coulomb/solvers/sap_solver_parameters.h"

#include <cmath>
#include <stdexcept>

namespace coulomb {

void ValidateSapSolverParameters(const SapSolverParameters& p) {
  if (!(p.rel_tolerance > 0.0 && p.rel_tolerance < 1.0)) {
    throw std::invalid_argument("rel_tolerance must be in (0, 1), got " +
                                std::to_string(p.rel_tolerance));
  }
  if (!(p.abs_tolerance >= 0.0) || !std::isfinite(p.abs_tolerance)) {
    throw std::invalid_argument("abs_tolerance must be finite and ≥ 0");
  }
  if (p.max_iterations <= 0) {
    throw std::invalid_argument("max_iterations must be positive, got " +
                                std::to_string(p.max_iterations));
  }
  if (p.parallel_min_constraints < 0) {
    throw std::invalid_argument("parallel_min_constraints must be ≥ 0, got " +
                                std::to_string(p.parallel_min_constraints));
  }
  if (!(p.backtracking_rho > 0.0 && p.backtracking_rho < 1.0) ||
      !(p.backtracking_alpha_max > 0.0) || !(p.armijo_c > 0.0 && p.armijo_c < 1.0)) {
    throw std::invalid_argument("backtracking parameters out of range");
  }
}

}  // namespace coulomb
