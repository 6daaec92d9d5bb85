// The dual (impulse) form of the cone complementarity problem (DualSolver):
// with SAP's regularization its solution is SAP's (strong duality: the same
// impulses and velocities, the duality gap closed), and without it the
// result satisfies Anitescu's CCP conditions.
#include "coulomb/solvers/dual_solver.h"

#include <gtest/gtest.h>

#include "coulomb/contact/random_contact_problem.h"
#include "coulomb/solvers/contact_solver.h"

namespace coulomb {
namespace {

ContactProblem RandomProblem(uint64_t seed) {
  RandomContactProblemOptions options;
  options.num_bodies = 12;
  options.num_contacts = 24;
  options.seed = seed;
  return MakeRandomContactProblem(options);
}

ContactSolverOptions Options(ContactSolverKind kind) {
  ContactSolverOptions options;
  options.kind = kind;
  options.sap.rel_tolerance = 1e-12;  // SAP's impulses to round-off
  options.ncp.tolerance = 1e-9;
  return options;
}

ContactSolution Solve(const ContactProblem& problem, ContactSolverKind kind,
                      ContactSolverStatistics* stats) {
  ContactSolution solution;
  *stats = MakeContactSolver(Options(kind), SolverUse::kSingleProblem)
               ->Solve(problem, {}, {}, &solution);
  return solution;
}

TEST(DualSolver, RegularizedDualReproducesSapImpulsesAndVelocities) {
  for (uint64_t seed = 1; seed <= 8; ++seed) {
    const ContactProblem problem = RandomProblem(seed);
    ContactSolverStatistics sap_stats, dual_stats;
    const ContactSolution sap = Solve(problem, ContactSolverKind::kSap, &sap_stats);
    const ContactSolution dual = Solve(problem, ContactSolverKind::kDual, &dual_stats);
    ASSERT_TRUE(sap_stats.converged()) << seed;
    ASSERT_TRUE(dual_stats.converged())
        << seed << ": residual " << dual_stats.ncp_residual;
    EXPECT_LE((dual.impulses - sap.impulses).norm(), 1e-6 * sap.impulses.norm())
        << "seed " << seed;
    EXPECT_LE((dual.v - sap.v).norm(), 1e-6 * (sap.v - problem.v_star()).norm())
        << "seed " << seed;
    // ℓ_p(v(λ)) + f(λ) ≥ 0 closes at the solution (relative to SAP's cost).
    EXPECT_GE(dual_stats.dual_gap, -1e-9 * std::abs(sap_stats.cost)) << seed;
    EXPECT_LE(dual_stats.dual_gap, 1e-6 * std::abs(sap_stats.cost)) << seed;
  }
}

TEST(DualSolver, UnregularizedDualSatisfiesTheCcpConditions) {
  for (uint64_t seed = 1; seed <= 8; ++seed) {
    const ContactProblem problem = RandomProblem(seed);
    const ContactNcp ncp(problem);
    NcpSolverParameters parameters;
    parameters.tolerance = 1e-9;
    NcpSolution solution;
    const NcpSolverStatistics stats =
        DualSolver(parameters, false).Solve(ncp, {}, &solution);
    ASSERT_TRUE(stats.converged) << seed << ": " << stats.residual;
    const double lambda_scale = solution.lambda.cwiseAbs().maxCoeff();
    const double u_scale = ncp.free_contact_velocity().cwiseAbs().maxCoeff();
    for (int i = 0; i < ncp.num_contacts(); ++i) {
      const Eigen::Vector3d lambda = solution.lambda.segment<3>(3 * i);
      const Eigen::Vector3d u = solution.u.segment<3>(3 * i);
      const double mu = ncp.friction(i);
      // λ ∈ K_μ, u ∈ K_μ* = {μ‖u_t‖ ≤ u_n}, λ ⊥ u.
      EXPECT_LE(lambda.head<2>().norm(), mu * lambda(2) + 1e-8 * lambda_scale) << i;
      EXPECT_GE(lambda(2), -1e-8 * lambda_scale) << i;
      EXPECT_LE(mu * u.head<2>().norm(), u(2) + 1e-6 * u_scale) << i;
      EXPECT_LE(std::abs(lambda.dot(u)), 1e-6 * lambda_scale * u_scale)
          << "seed " << seed << " contact " << i;
    }
  }
}

TEST(DualSolver, StopsAtItsIterationLimitAndSaysSo) {
  const ContactProblem problem = RandomProblem(3);
  const ContactNcp ncp(problem);
  NcpSolverParameters parameters;
  parameters.tolerance = 1e-14;
  parameters.max_iterations = 5;
  NcpSolution solution;
  const NcpSolverStatistics stats =
      DualSolver(parameters, true).Solve(ncp, {}, &solution);
  EXPECT_FALSE(stats.converged);
  EXPECT_EQ(stats.iterations, 5);
  EXPECT_EQ(stats.status, SolverStatus::kMaxIterationsReached);
}

}  // namespace
}  // namespace coulomb
