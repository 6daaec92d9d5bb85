#include "coulomb/solvers/sap_line_search.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "coulomb/math/rtsafe.h"

namespace coulomb {

IslandLineFunction::Value IslandLineFunction::operator()(double alpha,
                                                         bool with_curvature) const {
  Value value{c_ + alpha * a_ + 0.5 * alpha * alpha * b_, a_ + alpha * b_, b_};
  for (int index : constraints_) {
    const int offset = problem_.constraint_offset(index);
    const ConvexConstraint::LineValue along = problem_.potential(index).EvaluateAlongLine(
        v_c_.data() + offset, delta_v_c_.data() + offset, alpha, with_curvature);
    value.cost += along.cost;
    value.slope += along.slope;
    value.curvature += along.curvature;
  }
  return value;
}

void IslandLineFunction::RestrictToSegment(double alpha0, double alpha1) {
  RestrictToWholeLine();
  size_t kept = 0;
  for (int index : constraints_) {
    const int offset = problem_.constraint_offset(index);
    ConvexConstraint::LineValue quadratic;
    if (problem_.potential(index).QuadraticAlongSegment(v_c_.data() + offset,
                                                        delta_v_c_.data() + offset,
                                                        alpha0, alpha1, &quadratic)) {
      c_ += quadratic.cost;
      a_ += quadratic.slope;
      b_ += quadratic.curvature;
    } else {
      segment_storage_[kept++] = index;
    }
  }
  constraints_ = segment_storage_.first(kept);
}

void IslandLineFunction::RestrictToWholeLine() {
  constraints_ = island_constraints_;
  c_ = island_c_;
  a_ = island_a_;
  b_ = island_b_;
}

LineSearchResult ExactLineSearch(IslandLineFunction& line, double slope0,
                                 double slope_roundoff,
                                 const SapSolverParameters& parameters) {
  LineSearchResult result;
  if (!(slope0 < -slope_roundoff)) {
    // dℓ/dα(0) is zero to round-off: the island is at its minimum and the
    // Newton step is a round-off sized move.
    result.alpha = 1.0;
    result.succeeded = true;
    return result;
  }
  const double slope_tolerance =
      std::max(parameters.exact_line_search_tolerance * -slope0, slope_roundoff);
  // Bracket the root of dℓ/dα: the Newton step α = 1 usually lands close,
  // most often beyond the root. So the line is restricted to [0, 1] first
  // and α = 1 evaluated on the constraints that are not quadratic there; a
  // step that falls short of the root searches on from the whole line.
  line.RestrictToSegment(0.0, 1.0);
  double alpha_upper = 1.0;
  IslandLineFunction::Value upper = line(alpha_upper, false);
  ++result.iterations;
  if (std::abs(upper.slope) <= slope_tolerance) {
    result.alpha = alpha_upper;
    result.succeeded = true;
    return result;
  }
  double alpha_lower = 0.0;
  double slope_lower = slope0;
  if (upper.slope < 0.0) {
    line.RestrictToWholeLine();
    while (upper.slope < 0.0) {
      if (result.iterations >= parameters.exact_line_search_max_iterations) return result;
      alpha_lower = alpha_upper;
      slope_lower = upper.slope;
      alpha_upper *= 2.0;
      upper = line(alpha_upper, false);
      ++result.iterations;
    }
    line.RestrictToSegment(alpha_lower, alpha_upper);  // rtsafe stays in the bracket
  }
  // First guess: the secant (regula falsi) point of the bracket, always inside.
  const double secant = alpha_lower - slope_lower * (alpha_upper - alpha_lower) /
                                          (upper.slope - slope_lower);
  const RootFindingResult root = Rtsafe(
      [&line](double alpha) {
        const IslandLineFunction::Value value = line(alpha, true);
        return std::pair{value.slope, value.curvature};
      },
      alpha_lower, alpha_upper, secant,
      parameters.exact_line_search_alpha_tolerance * alpha_upper, slope_tolerance,
      parameters.exact_line_search_max_iterations);
  result.iterations += root.iterations;
  result.alpha = root.root;
  result.succeeded = root.converged && root.root > 0.0;
  return result;
}

LineSearchResult BacktrackingLineSearch(const IslandLineFunction& line, double slope0,
                                        double slope_roundoff,
                                        const SapSolverParameters& parameters) {
  LineSearchResult result;
  if (!(slope0 < -slope_roundoff)) {  // at the minimum to round-off; see ExactLineSearch
    result.alpha = 1.0;
    result.succeeded = true;
    return result;
  }
  const double cost0 = line(0.0, false).cost;
  // Differences of ℓ below this are round-off and cannot decide Armijo.
  const double roundoff = 10.0 * std::numeric_limits<double>::epsilon() * std::abs(cost0);
  double alpha = parameters.backtracking_alpha_max;
  for (result.iterations = 1; result.iterations <= parameters.backtracking_max_iterations;
       ++result.iterations) {
    const double cost = line(alpha, false).cost;
    if (cost < cost0 + parameters.armijo_c * alpha * slope0 || cost - cost0 <= roundoff) {
      result.alpha = alpha;
      result.succeeded = true;
      return result;
    }
    alpha *= parameters.backtracking_rho;
  }
  return result;
}

}  // namespace coulomb
