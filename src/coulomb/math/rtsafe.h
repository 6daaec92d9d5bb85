#pragma once

#include <cmath>
#include <utility>

namespace coulomb {

// Result of a safeguarded 1-D root search.
struct RootFindingResult {
  double root = 0.0;
  int iterations = 0;
  bool converged = false;
};

// Finds the root of a function f on a bracket [x_lower, x_upper] with
// f(x_lower) ≤ 0 ≤ f(x_upper), using Newton–Raphson steps safeguarded by
// bisection ("rtsafe", Numerical Recipes §9.4). Every iterate stays inside a
// shrinking bracket, so the search cannot diverge.
//
// `function_and_derivative(x)` returns the pair (f(x), f'(x)). The search stops
// when |f(x)| ≤ f_tolerance or when the bracket is narrower than x_tolerance.
// A template (not std::function): it is called in the line search hot loop.
template <typename FunctionAndDerivative>
RootFindingResult Rtsafe(FunctionAndDerivative&& function_and_derivative, double x_lower,
                         double x_upper, double x_guess, double x_tolerance,
                         double f_tolerance, int max_iterations) {
  RootFindingResult result;
  double x =
      (x_guess > x_lower && x_guess < x_upper) ? x_guess : 0.5 * (x_lower + x_upper);
  double previous_step = x_upper - x_lower;
  for (result.iterations = 1; result.iterations <= max_iterations; ++result.iterations) {
    const auto [f, df] = function_and_derivative(x);
    if (std::abs(f) <= f_tolerance) {
      result.root = x;
      result.converged = true;
      return result;
    }
    if (f < 0.0) {
      x_lower = x;
    } else {
      x_upper = x;
    }
    const double newton_x = df > 0.0 ? x - f / df : x_upper + 1.0;  // invalid if df ≤ 0
    const bool newton_inside = newton_x > x_lower && newton_x < x_upper;
    const bool newton_fast = std::abs(newton_x - x) < 0.5 * std::abs(previous_step);
    const double next_x =
        (newton_inside && newton_fast) ? newton_x : 0.5 * (x_lower + x_upper);
    previous_step = next_x - x;
    x = next_x;
    if (x_upper - x_lower <= x_tolerance) {
      result.root = x;
      result.converged = true;
      return result;
    }
  }
  result.root = x;
  result.iterations = max_iterations;
  return result;
}

}  // namespace coulomb
