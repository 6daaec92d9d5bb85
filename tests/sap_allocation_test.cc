// Counts heap allocations during SAP solves (allocation_counter.h: every
// malloc, calloc and realloc of this test executable).
#include <cstdlib>

#include <gtest/gtest.h>

#include "allocation_counter.h"
#include "coulomb/contact/random_contact_problem.h"
#include "coulomb/solvers/sap_solver.h"

namespace coulomb {
namespace {

long AllocationsDuringSolve(SapSolver* solver, const ContactProblem& problem,
                            const Eigen::VectorXd& guess, SapSolution* solution,
                            SapSolverStatistics* stats) {
  const long before = testing::AllocationCount();
  *stats = solver->Solve(problem, guess, solution);
  return testing::AllocationCount() - before;
}

// The counter sees what it must count: Eigen's heap storage (malloc),
// operator new and a C calloc/realloc.
TEST(SapAllocation, TheCounterSeesMallocNewAndEigen) {
  if (!testing::AllocationCountingEnabled())
    GTEST_SKIP() << "AddressSanitizer owns malloc";
  long before = testing::AllocationCount();
  Eigen::VectorXd eigen_storage(1000);
  EXPECT_EQ(testing::AllocationCount() - before, 1);
  before = testing::AllocationCount();
  auto* value = new double(1.0);
  EXPECT_EQ(testing::AllocationCount() - before, 1);
  delete value;
  before = testing::AllocationCount();
  void* block = std::calloc(10, 8);
  block = std::realloc(block, 4000);
  EXPECT_EQ(testing::AllocationCount() - before, 2);
  std::free(block);
  eigen_storage.setZero();
}

// Once a solver has seen a problem pattern, solving again (as every time step
// of a simulation does) allocates a bounded number of times, independent of
// the number of Newton iterations: nothing allocates per iteration.
TEST(SapAllocation, RepeatedSolvesDoNotAllocatePerIteration) {
  if (!testing::AllocationCountingEnabled())
    GTEST_SKIP() << "AddressSanitizer owns malloc";
  for (LinearSolverType type : {LinearSolverType::kDense, LinearSolverType::kSparse}) {
    RandomContactProblemOptions options;
    options.num_bodies = 20;
    options.num_contacts = 40;
    const ContactProblem problem = MakeRandomContactProblem(options);
    SapSolverParameters parameters;
    parameters.linear_solver = type;
    parameters.rel_tolerance = 1e-12;
    SapSolver solver(parameters);
    SapSolution solution;
    SapSolverStatistics stats;
    AllocationsDuringSolve(&solver, problem, Eigen::VectorXd(), &solution, &stats);
    const Eigen::VectorXd far_guess = 50.0 * Eigen::VectorXd::Ones(problem.num_dofs());
    const long allocations =
        AllocationsDuringSolve(&solver, problem, far_guess, &solution, &stats);
    ASSERT_TRUE(stats.converged());
    ASSERT_GE(stats.iterations, 5);
    // The returned statistics own one history vector: one allocation.
    EXPECT_LE(allocations, 1) << ToString(type) << ": " << allocations
                              << " allocations in " << stats.iterations << " iterations, "
                              << stats.working_set_rounds << " working-set rounds";
  }
}

}  // namespace
}  // namespace coulomb
