// The dual (impulse) form of the cone complementarity problem (DualSolver):
// with SAP's regularization its solution is SAP's (strong duality: the same
// impulses and velocities, the duality gap closed), and without it the
// result satisfies Anitescu's CCP conditions.
#include "coulomb/solvers/dual_solver.h"

#include <gtest/gtest.h>

#include "coulomb/contact/dense_problem_matrices.h"
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

ContactSolverOptions Options(ContactSolverKind kind,
                             DelassusForm delassus = DelassusForm::kAuto) {
  ContactSolverOptions options;
  options.kind = kind;
  options.ncp.delassus = delassus;
  options.sap.rel_tolerance = 1e-12;  // SAP's impulses to round-off
  options.ncp.tolerance = 1e-9;
  return options;
}

ContactSolution Solve(const ContactProblem& problem, ContactSolverKind kind,
                      ContactSolverStatistics* stats,
                      DelassusForm delassus = DelassusForm::kAuto) {
  ContactSolution solution;
  *stats = MakeContactSolver(Options(kind, delassus), SolverUse::kSingleProblem)
               ->Solve(problem, Eigen::VectorXd(), Eigen::VectorXd(), &solution);
  return solution;
}

// With W applied as an operator and assembled densely alike.
TEST(DualSolver, RegularizedDualReproducesSapImpulsesAndVelocities) {
  for (uint64_t seed = 1; seed <= 16; ++seed) {
    const ContactProblem problem = RandomProblem(seed);
    ContactSolverStatistics sap_stats, dual_stats;
    const ContactSolution sap = Solve(problem, ContactSolverKind::kSap, &sap_stats);
    const DelassusForm form = seed % 2 ? DelassusForm::kDense : DelassusForm::kOperator;
    const ContactSolution dual =
        Solve(problem, ContactSolverKind::kDual, &dual_stats, form);
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
        DualSolver(parameters, false).Solve(ncp, Eigen::VectorXd(), &solution);
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
      DualSolver(parameters, true).Solve(ncp, Eigen::VectorXd(), &solution);
  EXPECT_FALSE(stats.converged);
  EXPECT_EQ(stats.iterations, 5);
  EXPECT_EQ(stats.status, SolverStatus::kMaxIterationsReached);
}

TEST(DelassusMatrix, EqualsJacobianTimesInverseATimesJacobianTransposed) {
  for (uint64_t seed : {1, 2}) {
    const ContactProblem problem = RandomProblem(seed);
    const ContactNcp ncp(problem);
    DelassusMatrix delassus;
    delassus.Assemble(ncp);
    Eigen::MatrixXd a, jacobian;
    AssembleDenseA(problem, &a);
    AssembleDenseJacobian(problem, &jacobian);
    const Eigen::MatrixXd expected = jacobian * a.llt().solve(jacobian.transpose());
    EXPECT_LT((delassus.matrix() - expected).norm(), 1e-12 * expected.norm());
    // Storage reused for a smaller problem: still exact.
    RandomContactProblemOptions small;
    small.num_bodies = 3;
    small.num_contacts = 4;
    const ContactProblem other = MakeRandomContactProblem(small);
    const ContactNcp other_ncp(other);
    delassus.Assemble(other_ncp);
    AssembleDenseA(other, &a);
    AssembleDenseJacobian(other, &jacobian);
    EXPECT_EQ(delassus.matrix().rows(), 12);
    EXPECT_LT((delassus.matrix() - jacobian * a.llt().solve(jacobian.transpose())).norm(),
              1e-12 * delassus.matrix().norm());
  }
}

TEST(DualSolver, AutoTakesTheDenseDelassusOnlyForSmallCoupledProblems) {
  NcpSolverParameters parameters;
  const ContactProblem small = RandomProblem(1);  // 72 equations
  EXPECT_TRUE(DualSolver(parameters, true).UsesDenseDelassus(ContactNcp(small)));
  RandomContactProblemOptions options;  // 1800 equations: over the size limit
  options.num_bodies = 400;
  options.num_contacts = 600;
  const ContactProblem large = MakeRandomContactProblem(options);
  EXPECT_FALSE(DualSolver(parameters, true).UsesDenseDelassus(ContactNcp(large)));
  // Many bodies, few contacts each: W is sparse, the operator reads less.
  options.num_bodies = 400;
  options.num_contacts = 400;
  const ContactProblem sparse = MakeRandomContactProblem(options);
  EXPECT_FALSE(DualSolver(parameters, true).UsesDenseDelassus(ContactNcp(sparse)));
  // The parameter overrides the rule both ways.
  parameters.delassus = DelassusForm::kDense;
  EXPECT_TRUE(DualSolver(parameters, true).UsesDenseDelassus(ContactNcp(large)));
  parameters.delassus = DelassusForm::kOperator;
  EXPECT_FALSE(DualSolver(parameters, true).UsesDenseDelassus(ContactNcp(small)));
}

}  // namespace
}  // namespace coulomb
