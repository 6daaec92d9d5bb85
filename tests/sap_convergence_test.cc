#include <random>

#include <gtest/gtest.h>

#include "coulomb/contact/random_contact_problem.h"
#include "coulomb/solvers/sap_solver.h"

namespace coulomb {
namespace {

// SAP converges globally from any initial guess (SAP App. E): a few hundred
// random problems (1–30 bodies with dense 6×6 mass blocks, contacts on one or
// two bodies, μ including 0, rigid and compliant), started from far-off
// random velocities, with both line searches.
TEST(SapConvergence, ConvergesFromAnyInitialGuessOnRandomProblems) {
  std::mt19937 random(2024);
  std::uniform_int_distribution<int> bodies(1, 30);
  int max_iterations = 0;
  for (unsigned seed = 1; seed <= 300; ++seed) {
    RandomContactProblemOptions options;
    options.num_bodies = bodies(random);
    options.num_contacts =
        std::uniform_int_distribution<int>(1, 3 * options.num_bodies)(random);
    options.frictionless_fraction = 0.2;
    options.seed = seed;
    const ContactProblem problem = MakeRandomContactProblem(options);
    const Eigen::VectorXd guess = 100.0 * Eigen::VectorXd::Random(problem.num_dofs());
    SapSolverParameters parameters;
    parameters.line_search =
        seed % 2 == 0 ? LineSearchType::kExact : LineSearchType::kBacktracking;
    parameters.max_iterations = 300;
    SapSolver solver(parameters);
    SapSolution solution;
    const SapSolverStatistics stats = solver.Solve(problem, guess, &solution);
    ASSERT_TRUE(stats.converged()) << "seed " << seed << ": " << ToString(stats.status)
                                   << " after " << stats.iterations << " iterations";
    EXPECT_LT(stats.momentum_error, parameters.rel_tolerance);
    // ℓ_p never increases along the iterations (both line searches descend).
    for (size_t k = 0; k + 1 < stats.history.size(); ++k) {
      EXPECT_LE(stats.history[k + 1].cost,
                stats.history[k].cost + 1e-12 * std::abs(stats.history[k].cost))
          << "seed " << seed << " iteration " << k;
    }
    max_iterations = std::max(max_iterations, stats.iterations);
  }
  RecordProperty("max_iterations", max_iterations);
}

}  // namespace
}  // namespace coulomb
