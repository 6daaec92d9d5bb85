// Counts heap allocations during SAP solves by replacing the global operator
// new in this test executable (this file is its only test).
#include <atomic>
#include <cstdlib>
#include <new>

#include <gtest/gtest.h>

#include "coulomb/contact/random_contact_problem.h"
#include "coulomb/solvers/sap_solver.h"

namespace {
std::atomic<long> allocation_count{0};
}  // namespace

void* operator new(std::size_t size) {
  ++allocation_count;
  if (void* pointer = std::malloc(size == 0 ? 1 : size)) return pointer;
  throw std::bad_alloc();
}
void operator delete(void* pointer) noexcept { std::free(pointer); }
void operator delete(void* pointer, std::size_t) noexcept { std::free(pointer); }

namespace coulomb {
namespace {

long AllocationsDuringSolve(SapSolver* solver, const ContactProblem& problem,
                            const Eigen::VectorXd& guess, SapSolution* solution,
                            SapSolverStatistics* stats) {
  const long before = allocation_count.load();
  *stats = solver->Solve(problem, guess, solution);
  return allocation_count.load() - before;
}

// Once a solver has seen a problem pattern, solving again (as every time step
// of a simulation does) allocates a bounded number of times, independent of
// the number of Newton iterations: nothing allocates per iteration.
TEST(SapAllocation, RepeatedSolvesDoNotAllocatePerIteration) {
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
                              << " allocations in " << stats.iterations << " iterations";
  }
}

}  // namespace
}  // namespace coulomb
