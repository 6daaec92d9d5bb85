#include "coulomb/math/rtsafe.h"

#include <cmath>

#include <gtest/gtest.h>

namespace coulomb {
namespace {

TEST(Rtsafe, FindsTheRootOfAStrictlyIncreasingFunction) {
  // f(x) = x³ + x − 3 has its only real root near 1.2134116627622296.
  int evaluations = 0;
  const auto f = [&evaluations](double x) {
    ++evaluations;
    return std::pair{x * x * x + x - 3.0, 3.0 * x * x + 1.0};
  };
  const RootFindingResult result = Rtsafe(f, 0.0, 5.0, 4.0, 1e-15, 1e-14, 100);
  ASSERT_TRUE(result.converged);
  EXPECT_NEAR(result.root * result.root * result.root + result.root, 3.0, 1e-13);
  EXPECT_LT(evaluations, 20);  // Newton convergence, not bisection (≈ 50 halvings)
}

TEST(Rtsafe, FallsBackToBisectionWhenNewtonLeavesTheBracket) {
  // arctan has Newton steps that overshoot far from the root.
  const auto f = [](double x) {
    return std::pair{std::atan(x - 1.0), 1.0 / (1.0 + (x - 1.0) * (x - 1.0))};
  };
  const RootFindingResult result = Rtsafe(f, -20.0, 30.0, 25.0, 1e-14, 1e-14, 200);
  ASSERT_TRUE(result.converged);
  EXPECT_NEAR(result.root, 1.0, 1e-12);
}

TEST(Rtsafe, ReportsFailureWhenOutOfIterations) {
  const auto f = [](double x) {
    return std::pair{x - 0.123456789, 0.0};
  };  // no slope: bisection
  const RootFindingResult result = Rtsafe(f, 0.0, 1.0, 0.5, 1e-15, 1e-15, 5);
  EXPECT_FALSE(result.converged);
  EXPECT_EQ(result.iterations, 5);
}

}  // namespace
}  // namespace coulomb
