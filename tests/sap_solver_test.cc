#include "coulomb/solvers/sap_solver.h"
#include "coulomb/solvers/supernode_partition.h"

#include <algorithm>
#include <cmath>

#include <set>

#include <gtest/gtest.h>

#include "coulomb/contact/random_contact_problem.h"
#include "coulomb/contact/sap_friction_cone.h"
#include "test_support.h"

namespace coulomb {
namespace {

using testing::DenseSapProblem;
using testing::MakeDenseSapProblem;

ContactProblem SmallProblem(unsigned seed) {
  RandomContactProblemOptions options;
  options.num_bodies = 1 + static_cast<int>(seed % 4);
  options.num_contacts = 2 + static_cast<int>(seed % 5);
  options.seed = seed;
  return MakeRandomContactProblem(options);
}

SapSolverParameters Tight() {
  SapSolverParameters parameters;
  parameters.rel_tolerance = 1e-12;
  return parameters;
}

class SapOptimality : public ::testing::TestWithParam<unsigned> {};

// The KKT conditions of the primal (SAP-19) at the returned (v, γ):
// momentum balance, γ ∈ F, g = J v + b − v̂ + Rγ ∈ F*, g·γ = 0.
TEST_P(SapOptimality, SolutionSatisfiesTheKktConditions) {
  const ContactProblem problem = SmallProblem(GetParam());
  SapSolver solver(Tight());
  SapSolution solution;
  const SapSolverStatistics stats = solver.Solve(problem, Eigen::VectorXd(), &solution);
  ASSERT_TRUE(stats.converged()) << ToString(stats.status);
  EXPECT_LT(stats.momentum_error, 1e-12);

  const DenseSapProblem dense = MakeDenseSapProblem(problem);
  const Eigen::VectorXd& gamma = solution.gamma;
  const Eigen::VectorXd balance =
      dense.a * (solution.v - dense.v_star) - dense.j.transpose() * gamma;
  const double momentum_scale =
      (dense.a * solution.v).norm() + (dense.j.transpose() * gamma).norm();
  EXPECT_LT(balance.norm(), 1e-10 * momentum_scale);

  const Eigen::VectorXd g = dense.j * solution.v + dense.bias - dense.v_hat +
                            dense.r_diagonal.cwiseProduct(gamma);
  for (int i = 0; i < problem.num_constraints(); ++i) {
    const Eigen::Vector3d gamma_i = gamma.segment<3>(3 * i);
    const Eigen::Vector3d g_i = g.segment<3>(3 * i);
    const double mu = dense.mu[i];
    const double tolerance = 1e-9 * (1.0 + gamma_i.norm() + g_i.norm());
    EXPECT_LE(gamma_i.head<2>().norm(), mu * gamma_i.z() + tolerance)
        << "γ ∉ F, contact " << i;
    EXPECT_LE(mu * g_i.head<2>().norm(), g_i.z() + tolerance) << "g ∉ F*, contact " << i;
    EXPECT_NEAR(g_i.dot(gamma_i), 0.0, tolerance * (1.0 + g_i.norm())) << "contact " << i;
  }
}

// SAP's primal impulses equal the minimizer of the dual (SAP-22), computed by
// projected gradient, an independent method.
TEST_P(SapOptimality, ImpulsesMatchTheDualMinimizer) {
  const ContactProblem problem = SmallProblem(GetParam());
  SapSolver solver(Tight());
  SapSolution solution;
  ASSERT_TRUE(solver.Solve(problem, Eigen::VectorXd(), &solution).converged());
  const Eigen::VectorXd dual = testing::SolveSapDualByProjectedGradient(
      MakeDenseSapProblem(problem), 2000000, 1e-13);
  // The dual is ill conditioned (Rt = 1e-3 w): projected gradient reaches
  // ~1e-7 relative accuracy on these problems.
  EXPECT_LT((solution.gamma - dual).norm(), 1e-6 * (1.0 + dual.norm()));
}

INSTANTIATE_TEST_SUITE_P(RandomProblems, SapOptimality, ::testing::Range(1u, 25u));

// Islands are the cliques joined by the constraints with an impulse
// (EngagedIslands). From a guess at rest, bodies that v* drives into each
// other start in islands of their own, and the contacts between them engage
// during the solve and join them. The answer is still the whole problem's:
// the dual minimizer's impulses, an independent method.
TEST(SapSolver, IslandsJoinedDuringTheSolveGiveTheWholeProblemsAnswer) {
  int joined_problems = 0;
  for (unsigned seed = 1; seed <= 12; ++seed) {
    RandomContactProblemOptions options;
    options.num_bodies = 5;
    options.num_contacts = 7;
    options.two_body_fraction = 0.8;
    options.seed = seed;
    const ContactProblem problem = MakeRandomContactProblem(options);
    SapSolver solver(Tight());
    SapSolution solution;
    const SapSolverStatistics stats =
        solver.Solve(problem, Eigen::VectorXd::Zero(problem.num_dofs()), &solution);
    ASSERT_TRUE(stats.converged()) << "seed " << seed << ": " << ToString(stats.status);
    if (stats.island_joins > 0) ++joined_problems;
    const Eigen::VectorXd dual = testing::SolveSapDualByProjectedGradient(
        MakeDenseSapProblem(problem), 2000000, 1e-13);
    EXPECT_LT((solution.gamma - dual).norm(), 1e-6 * (1.0 + dual.norm()))
        << "seed " << seed;
  }
  EXPECT_GE(joined_problems, 3);
}

// Twelve bodies, each with its own contacts against the world: twelve
// islands, which converge after different numbers of Newton iterations and
// are set aside one by one (later iterations evaluate, multiply and factor
// only the others). The answer is still every island's: γ is the potentials'
// impulse at J v + b for every constraint, momentum balances on every body,
// and each island alone solves to the same v.
TEST(SapSolver, IslandsSetAsideKeepTheirConvergedValues) {
  RandomContactProblemOptions options;
  options.num_bodies = 12;
  options.num_contacts = 40;
  options.two_body_fraction = 0.0;
  options.seed = 7;
  const ContactProblem problem = MakeRandomContactProblem(options);
  SapSolver solver(Tight());
  SapSolution solution;
  const SapSolverStatistics stats = solver.Solve(problem, Eigen::VectorXd(), &solution);
  ASSERT_TRUE(stats.converged()) << ToString(stats.status);
  ASSERT_EQ(stats.num_islands, 12);

  Eigen::VectorXd v_c;
  problem.CalcConstraintVelocities(solution.v, &v_c);
  for (int i = 0; i < problem.num_constraints(); ++i) {
    ConstraintVector gamma;
    problem.constraint(i).potential->Evaluate(v_c.segment<3>(3 * i), &gamma, nullptr);
    // (SAP moves v_c with the iterate: J v + b again differs in rounding.)
    EXPECT_LT((gamma - solution.gamma.segment<3>(3 * i)).norm(),
              1e-12 * (1.0 + gamma.norm()))
        << "constraint " << i;
  }
  const DenseSapProblem dense = MakeDenseSapProblem(problem);
  const Eigen::VectorXd balance =
      dense.a * (solution.v - dense.v_star) - dense.j.transpose() * solution.gamma;
  for (int body = 0; body < problem.num_cliques(); ++body) {
    const int offset = problem.clique_offset(body);
    const double scale = (dense.a * solution.v).segment<6>(offset).norm() +
                         (dense.j.transpose() * solution.gamma).segment<6>(offset).norm();
    EXPECT_LT(balance.segment<6>(offset).norm(), 1e-10 * (1.0 + scale))
        << "body " << body;
  }
  // Islands need different numbers of iterations: some were set aside.
  std::set<int> iterations;
  for (int body = 0; body < problem.num_cliques(); ++body) {
    std::vector<int> own;
    for (int i = 0; i < problem.num_constraints(); ++i) {
      if (problem.constraint(i).jacobian[0].clique == body) own.push_back(i);
    }
    ContactProblem island(options.time_step);
    island.ResetToSubproblem(problem, own);
    SapSolver island_solver(Tight());
    SapSolution island_solution;
    const SapSolverStatistics island_stats =
        island_solver.Solve(island, Eigen::VectorXd(), &island_solution);
    ASSERT_TRUE(island_stats.converged());
    iterations.insert(island_stats.iterations);
    const int offset = problem.clique_offset(body);
    EXPECT_LT((island_solution.v - solution.v).segment<6>(offset).norm(),
              1e-8 * (1.0 + solution.v.segment<6>(offset).norm()))
        << "body " << body;
  }
  EXPECT_GE(iterations.size(), 2u);
}

TEST(SapSolver, DenseAndSparseLinearSolversGiveTheSameAnswer) {
  for (unsigned seed = 1; seed <= 20; ++seed) {
    RandomContactProblemOptions options;
    options.num_bodies = 12;
    options.num_contacts = 25;
    options.seed = seed;
    const ContactProblem problem = MakeRandomContactProblem(options);
    SapSolverParameters parameters = Tight();
    parameters.linear_solver = LinearSolverType::kDense;
    SapSolver dense(parameters);
    parameters.linear_solver = LinearSolverType::kSparse;
    SapSolver sparse(parameters);
    SapSolution dense_solution, sparse_solution;
    ASSERT_TRUE(dense.Solve(problem, Eigen::VectorXd(), &dense_solution).converged());
    ASSERT_TRUE(sparse.Solve(problem, Eigen::VectorXd(), &sparse_solution).converged());
    EXPECT_LT((dense_solution.v - sparse_solution.v).norm(),
              1e-9 * dense_solution.v.norm());
  }
}

TEST(SapSolver, WarmStartFromTheSolutionConvergesInAtMostOneIteration) {
  for (unsigned seed = 1; seed <= 20; ++seed) {
    const ContactProblem problem = SmallProblem(seed);
    SapSolver solver;
    SapSolution solution;
    ASSERT_TRUE(solver.Solve(problem, Eigen::VectorXd(), &solution).converged());
    const Eigen::VectorXd v = solution.v;
    const SapSolverStatistics warm = solver.Solve(problem, v, &solution);
    EXPECT_TRUE(warm.converged());
    EXPECT_LE(warm.iterations, 1);
  }
}

TEST(SapSolver, BacktrackingLineSearchReachesTheSameSolution) {
  for (unsigned seed = 1; seed <= 10; ++seed) {
    const ContactProblem problem = SmallProblem(seed);
    SapSolverParameters parameters;
    parameters.rel_tolerance = 1e-10;
    SapSolver exact(parameters);
    parameters.line_search = LineSearchType::kBacktracking;
    parameters.max_iterations = 500;
    SapSolver backtracking(parameters);
    SapSolution a, b;
    ASSERT_TRUE(exact.Solve(problem, Eigen::VectorXd(), &a).converged());
    ASSERT_TRUE(backtracking.Solve(problem, Eigen::VectorXd(), &b).converged());
    EXPECT_LT((a.v - b.v).norm(), 1e-7 * (1.0 + a.v.norm()));
  }
}

TEST(SapSolver, ReportsFailureInsteadOfASilentAnswer) {
  RandomContactProblemOptions options;
  options.num_bodies = 10;
  options.num_contacts = 40;
  const ContactProblem problem = MakeRandomContactProblem(options);
  SapSolverParameters parameters;
  parameters.max_iterations = 1;
  SapSolver solver(parameters);
  SapSolution solution;
  const SapSolverStatistics stats = solver.Solve(problem, Eigen::VectorXd(), &solution);
  EXPECT_FALSE(stats.converged());
  EXPECT_EQ(stats.status, SolverStatus::kMaxIterationsReached);
  EXPECT_GT(stats.momentum_error, parameters.rel_tolerance);
}

// Each island's line search and step write only its own entries, so the
// iterates do not depend on how the islands are split over threads. 60
// bodies with 40 contacts fall into dozens of islands, all on the pool.
TEST(SapSolver, ResultsAreIdenticalForAnyThreadCount) {
  const ContactProblem problem =
      MakeRandomContactProblem({.num_bodies = 60, .num_contacts = 40, .seed = 3});
  SapSolverParameters parameters;
  parameters.parallel_min_constraints = 0;
  SapSolution one, two, three;
  const SapSolverStatistics stats =
      SapSolver(parameters, 1).Solve(problem, Eigen::VectorXd(), &one);
  ASSERT_TRUE(stats.converged());
  ASSERT_GT(stats.num_islands, 8);
  SapSolver(parameters, 2).Solve(problem, Eigen::VectorXd(), &two);
  SapSolver(parameters, 3).Solve(problem, Eigen::VectorXd(), &three);
  EXPECT_EQ(one.v, two.v);
  EXPECT_EQ(one.gamma, two.gamma);
  EXPECT_EQ(one.v, three.v);
}

TEST(SapSolver, RefusesANegativeBoundOnParallelWork) {
  SapSolverParameters parameters;
  parameters.parallel_min_constraints = -1;
  EXPECT_THROW(SapSolver(parameters, 2), std::invalid_argument);
  parameters.parallel_min_constraints = 0;  // 0: islands on the pool always
  EXPECT_NO_THROW(SapSolver(parameters, 2));
}

TEST(SapSolver, StopsAtOnceWhenTheCostOverflows) {
  // From a guess of 1e300 m/s, ½‖v − v*‖²_A is no double: no Newton step can
  // help, and 1 000 iterations on infinities would only cost time.
  const ContactProblem problem =
      MakeRandomContactProblem({.num_bodies = 3, .num_contacts = 6});
  SapSolver solver;
  SapSolution solution;
  const Eigen::VectorXd guess = Eigen::VectorXd::Constant(problem.num_dofs(), 1e300);
  const SapSolverStatistics stats = solver.Solve(problem, guess, &solution);
  EXPECT_EQ(stats.status, SolverStatus::kNotFinite);
  EXPECT_EQ(stats.iterations, 0);
}

TEST(SapSolver, ConvergesQuadraticallyNearTheSolution) {
  // A smooth case: one 6-dof body and four contacts. Newton's method shows
  // e_{k+1} ≲ C e_k² once close: the exponent log e_{k+1} / log e_k nears 2.
  RandomContactProblemOptions options;
  options.num_bodies = 1;
  options.num_contacts = 4;
  options.seed = 7;
  const ContactProblem problem = MakeRandomContactProblem(options);
  SapSolverParameters parameters;
  parameters.rel_tolerance = 1e-14;
  SapSolver solver(parameters);
  SapSolution solution;
  const SapSolverStatistics stats = solver.Solve(problem, Eigen::VectorXd(), &solution);
  ASSERT_TRUE(stats.converged());
  const double g0 = stats.history.front().gradient_norm;
  double best_exponent = 0.0;
  for (size_t k = 0; k + 1 < stats.history.size(); ++k) {
    const double e_k = stats.history[k].gradient_norm / g0;
    const double e_next = stats.history[k + 1].gradient_norm / g0;
    if (e_k < 1e-2 && e_k > 1e-9 && e_next > 0.0) {
      best_exponent = std::max(best_exponent, std::log(e_next) / std::log(e_k));
    }
  }
  EXPECT_GT(best_exponent, 1.8) << "iterations " << stats.iterations;
}

// Two islands: one body with contacts, which takes n Newton iterations, and
// a body without any, started off its free motion, which one Newton step
// solves and which is then set aside: (n + 1) / 2 iterations per clique.
TEST(SapSolver, CountsTheCliquesEachNewtonIterationMoved) {
  RandomContactProblemOptions options;
  options.num_bodies = 2;
  options.num_contacts = 6;
  options.two_body_fraction = 0.0;
  options.seed = 3;
  const ContactProblem both = MakeRandomContactProblem(options);
  std::vector<int> on_first;
  for (int i = 0; i < both.num_constraints(); ++i) {
    if (both.constraint(i).jacobian[0].clique == 0) on_first.push_back(i);
  }
  ASSERT_FALSE(on_first.empty());
  ContactProblem problem(options.time_step);
  problem.ResetToSubproblem(both, on_first);
  ASSERT_EQ(problem.num_cliques(), 2);
  Eigen::VectorXd guess = problem.v_star();
  guess.segment(problem.clique_offset(1), problem.clique_size(1)).array() += 1.0;
  SapSolver solver(Tight());
  SapSolution solution;
  const SapSolverStatistics stats = solver.Solve(problem, guess, &solution);
  ASSERT_TRUE(stats.converged()) << ToString(stats.status);
  ASSERT_GE(stats.iterations, 3);
  EXPECT_EQ(stats.clique_updates, stats.iterations + 1);
}

TEST(SapSolver, ProblemWithoutConstraintsReturnsFreeMotion) {
  ContactProblem problem(0.01);
  problem.AddClique(Eigen::Matrix2d::Identity() * 3.0);
  problem.SetFreeMotionVelocities(Eigen::Vector2d(1.0, -2.0));
  problem.Finalize();
  SapSolver solver;
  SapSolution solution;
  const SapSolverStatistics stats =
      solver.Solve(problem, Eigen::Vector2d(5.0, 5.0), &solution);
  ASSERT_TRUE(stats.converged());
  EXPECT_EQ(stats.iterations, 1);  // ℓ_p is quadratic: one Newton step
  EXPECT_LT((solution.v - problem.v_star()).norm(), 1e-14);
}

}  // namespace
}  // namespace coulomb

namespace coulomb {
namespace {

// The same problem with every dof its own clique (A is diagonal), as FCLIB
// global problems with a diagonal M are mapped: contacts then touch up to 12
// one-dof cliques.
ContactProblem SplitIntoScalarCliques(const ContactProblem& problem) {
  ContactProblem split(problem.time_step());
  for (int t = 0; t < problem.num_cliques(); ++t) {
    for (int k = 0; k < problem.clique_size(t); ++k) {
      split.AddClique(problem.clique_matrix(t).block(k, k, 1, 1));
    }
  }
  split.SetFreeMotionVelocities(problem.v_star());
  for (int i = 0; i < problem.num_constraints(); ++i) {
    const ProblemConstraint& c = problem.constraint(i);
    std::vector<JacobianBlock> jacobian;
    for (const JacobianBlock& block : c.jacobian) {
      for (int k = 0; k < block.matrix.cols(); ++k) {
        jacobian.push_back(
            {problem.clique_offset(block.clique) + k, block.matrix.col(k)});
      }
    }
    split.AddConstraint(std::move(jacobian), c.bias,
                        std::make_unique<SapFrictionCone>(
                            dynamic_cast<const SapFrictionCone&>(*c.potential)));
  }
  split.Finalize();
  return split;
}

TEST(SapSolver, ScalarCliquesMergedIntoSupernodesGiveTheSameSolution) {
  for (unsigned seed = 1; seed <= 10; ++seed) {
    RandomContactProblemOptions options;
    options.num_bodies = 15;
    options.num_contacts = 30;
    options.diagonal_mass = true;
    options.seed = seed;
    const ContactProblem bodies = MakeRandomContactProblem(options);
    const ContactProblem scalars = SplitIntoScalarCliques(bodies);
    ASSERT_EQ(scalars.num_cliques(), 6 * options.num_bodies);
    SapSolverParameters parameters = Tight();
    SapSolver body_solver(parameters), scalar_solver(parameters);
    parameters.linear_solver = LinearSolverType::kDense;
    SapSolver dense_scalar_solver(parameters);
    SapSolution body_solution, scalar_solution, dense_solution;
    ASSERT_TRUE(body_solver.Solve(bodies, Eigen::VectorXd(), &body_solution).converged());
    ASSERT_TRUE(
        scalar_solver.Solve(scalars, Eigen::VectorXd(), &scalar_solution).converged());
    ASSERT_TRUE(dense_scalar_solver.Solve(scalars, Eigen::VectorXd(), &dense_solution)
                    .converged());
    EXPECT_LT((body_solution.v - scalar_solution.v).norm(),
              1e-9 * body_solution.v.norm());
    EXPECT_LT((dense_solution.v - scalar_solution.v).norm(),
              1e-9 * body_solution.v.norm());
    // The Delassus estimate is the same (a sum over the same dofs), so R and
    // hence the solution are those of the body problem.
  }
}

// `problem` with its constraints filtered and duplicated: constraint i is
// kept when keep(i), and added a second time (Jacobian ×0.9, so a distinct
// contact point between the same cliques) when twice(i).
template <typename Keep, typename Twice>
ContactProblem WithConstraints(const ContactProblem& problem, Keep keep, Twice twice) {
  ContactProblem result(problem.time_step());
  for (int t = 0; t < problem.num_cliques(); ++t) result.AddCliqueOf(problem, t);
  result.SetFreeMotionVelocities(problem.v_star());
  for (int i = 0; i < problem.num_constraints(); ++i) {
    const ProblemConstraint& c = problem.constraint(i);
    const auto& cone = dynamic_cast<const SapFrictionCone&>(*c.potential);
    if (keep(i))
      result.AddConstraint(c.jacobian, c.bias, std::make_unique<SapFrictionCone>(cone));
    if (!twice(i)) continue;
    std::vector<JacobianBlock> jacobian = c.jacobian;
    for (JacobianBlock& block : jacobian) block.matrix *= 0.9;
    result.AddConstraint(jacobian, c.bias, std::make_unique<SapFrictionCone>(cone));
  }
  result.Finalize();
  return result;
}

// Scalar cliques of two bodies apart in the dof order, touched by the same
// contacts, merge into one supernode listed out of order: the block-sparse
// solve permutes into its order and back (SupernodePartition::original_dof).
TEST(SapSolver, SupernodesOutOfTheDofOrderGiveTheSameSolution) {
  int solved = 0;
  for (unsigned seed = 1; seed <= 20; ++seed) {
    RandomContactProblemOptions options;
    options.num_bodies = 3;
    options.num_contacts = 8;
    options.two_body_fraction = 1.0;
    options.diagonal_mass = true;
    options.seed = seed;
    const ContactProblem random = MakeRandomContactProblem(options);
    // Only the contacts between bodies 0 and 2: body 1 touched by none.
    const auto between_first_and_last = [&random](int i) {
      const auto& jacobian = random.constraint(i).jacobian;
      return jacobian.size() == 2 && jacobian[0].clique + jacobian[1].clique == 2 &&
             jacobian[0].clique != 1;
    };
    const ContactProblem bodies =
        WithConstraints(random, between_first_and_last, [](int) { return false; });
    if (bodies.num_constraints() == 0) continue;
    const ContactProblem scalars = SplitIntoScalarCliques(bodies);
    SapSolverParameters parameters = Tight();
    SapSolver sparse_solver(parameters);
    parameters.linear_solver = LinearSolverType::kDense;
    SapSolver dense_solver(parameters);
    SapSolution sparse, dense;
    ASSERT_TRUE(sparse_solver.Solve(scalars, Eigen::VectorXd(), &sparse).converged());
    ASSERT_TRUE(dense_solver.Solve(scalars, Eigen::VectorXd(), &dense).converged());
    EXPECT_LT((sparse.v - dense.v).norm(), 1e-9 * dense.v.norm()) << "seed " << seed;
    const SupernodePartition partition(scalars);
    ASSERT_FALSE(partition.identity_order) << "seed " << seed;
    EXPECT_EQ(partition.supernode_of_clique[0], partition.supernode_of_clique[12]);
    ++solved;
  }
  EXPECT_GE(solved, 5);
}

// Contact points appearing and disappearing between cliques already coupled
// keep the symbolic factorization (the supernodes included: scalar cliques
// merge into them); the answer is bitwise the one of a fresh solver. A
// constraint whose clique tuple was the only one of its kind changes the
// coupling: the analysis is redone.
// A solver reused on the very problem it solved last (same revision: its
// Jacobians are not reloaded) solves it again from v* as a fresh one does:
// nothing it kept from the last solve (factors of islands set aside, the
// matrix kept for refactorizations) stands in for the new solve's.
TEST(SapSolver, SolvesTheSameProblemAgainAsAFreshSolverDoes) {
  for (const int bodies : {12, 30, 100}) {
    for (unsigned seed = 1; seed <= 5; ++seed) {
      RandomContactProblemOptions options;
      options.num_bodies = bodies;
      options.num_contacts = 2 * bodies;
      options.seed = seed;
      const ContactProblem problem = MakeRandomContactProblem(options);
      SapSolver fresh(Tight()), reused(Tight());
      SapSolution fresh_solution, reused_solution;
      const SapSolverStatistics expected =
          fresh.Solve(problem, Eigen::VectorXd(), &fresh_solution);
      ASSERT_TRUE(expected.converged());
      for (int repetition = 0; repetition < 3; ++repetition) {
        const SapSolverStatistics stats =
            reused.Solve(problem, Eigen::VectorXd(), &reused_solution);
        ASSERT_TRUE(stats.converged())
            << bodies << " bodies, seed " << seed << ", repetition " << repetition << ": "
            << ToString(stats.status);
        EXPECT_EQ(stats.iterations, expected.iterations);
        EXPECT_LT((reused_solution.v - fresh_solution.v).norm(),
                  1e-12 * (1.0 + fresh_solution.v.norm()));
      }
    }
  }
}

TEST(SapSolver, KeepsTheSymbolicFactorizationWhileTheCouplingIsUnchanged) {
  for (unsigned seed = 1; seed <= 4; ++seed) {
    RandomContactProblemOptions options;
    options.num_bodies = 8;
    options.num_contacts = 16;
    options.diagonal_mass = true;
    options.seed = seed;
    const ContactProblem base = SplitIntoScalarCliques(MakeRandomContactProblem(options));
    const auto all = [](int) { return true; };
    const auto none = [](int) { return false; };
    const ContactProblem more =
        WithConstraints(base, all, [](int i) { return i % 3 == 0; });
    // Drops the duplicates of `more` again except one: the same tuple set.
    const ContactProblem fewer = WithConstraints(base, all, [](int i) { return i == 3; });
    // Without a constraint whose clique tuple no other constraint has: the
    // coupling changes.
    std::vector<std::vector<int>> tuples;
    for (int i = 0; i < base.num_constraints(); ++i) {
      std::vector<int>& tuple = tuples.emplace_back();
      for (const JacobianBlock& block : base.constraint(i).jacobian)
        tuple.push_back(block.clique);
      std::sort(tuple.begin(), tuple.end());
    }
    int unique = 0;
    while (unique < base.num_constraints() &&
           std::count(tuples.begin(), tuples.end(), tuples[unique]) > 1)
      ++unique;
    ASSERT_LT(unique, base.num_constraints()) << "seed " << seed;
    const ContactProblem other = WithConstraints(
        base, [unique](int i) { return i != unique; }, none);
    SapSolver reused(Tight());
    const std::pair<const ContactProblem*, bool> sequence[] = {
        {&base, true},  {&more, false}, {&fewer, false},
        {&base, false}, {&other, true}, {&more, true}};
    for (const auto& [problem, analysed] : sequence) {
      SapSolution reused_solution, fresh_solution;
      const SapSolverStatistics stats =
          reused.Solve(*problem, Eigen::VectorXd(), &reused_solution);
      ASSERT_TRUE(stats.converged());
      EXPECT_EQ(stats.symbolic_analysis, analysed)
          << "seed " << seed << ", " << problem->num_constraints() << " constraints";
      SapSolver fresh(Tight());
      ASSERT_TRUE(fresh.Solve(*problem, Eigen::VectorXd(), &fresh_solution).converged());
      EXPECT_EQ(reused_solution.v, fresh_solution.v) << "seed " << seed;
      EXPECT_EQ(reused_solution.gamma, fresh_solution.gamma) << "seed " << seed;
    }
  }
}

TEST(SupernodePartition, MergesCliquesTouchedByTheSameConstraints) {
  RandomContactProblemOptions options;
  options.num_bodies = 4;
  options.num_contacts = 6;
  options.diagonal_mass = true;
  const ContactProblem bodies = MakeRandomContactProblem(options);
  const ContactProblem scalars = SplitIntoScalarCliques(bodies);
  const SupernodePartition partition(scalars);
  // Each body's six dofs are touched by the body's contacts (point Jacobians
  // have no structural zeros here): two scalar cliques share a supernode
  // exactly when their bodies are touched by the same non-empty set of
  // contacts, read here from the unsplit problem.
  std::vector<std::set<int>> contacts_of_body(options.num_bodies);
  for (int i = 0; i < bodies.num_constraints(); ++i) {
    for (const JacobianBlock& block : bodies.constraint(i).jacobian)
      contacts_of_body[block.clique].insert(i);
  }
  ASSERT_EQ(scalars.num_cliques(), 6 * options.num_bodies);
  int merged_pairs = 0;
  for (int a = 0; a < scalars.num_cliques(); ++a) {
    for (int b = 0; b < a; ++b) {
      const std::set<int>& key_a = contacts_of_body[a / 6];
      const bool same_key = !key_a.empty() && key_a == contacts_of_body[b / 6];
      const bool same_supernode =
          partition.supernode_of_clique[a] == partition.supernode_of_clique[b];
      EXPECT_EQ(same_supernode, same_key) << "scalar cliques " << a << ", " << b;
      merged_pairs += same_supernode;
    }
  }
  EXPECT_GE(merged_pairs, 15);  // at least one body's 6 dofs: C(6, 2) pairs
  // A permutation of all dofs, listed unless it is the identity.
  std::vector<int> sorted = partition.original_dof;
  if (partition.identity_order) {
    for (int k = 0; k < scalars.num_dofs(); ++k) sorted.push_back(k);
  }
  std::sort(sorted.begin(), sorted.end());
  for (int k = 0; k < scalars.num_dofs(); ++k) EXPECT_EQ(sorted[k], k);
}

TEST(SupernodePartition, KeepsRigidBodiesApartWhenTouchedAlike) {
  // Two bodies touched only by the contacts between them: the same set of
  // constraints, yet each stays a supernode of its own six dofs.
  RandomContactProblemOptions options;
  options.num_bodies = 2;
  options.num_contacts = 3;
  options.two_body_fraction = 1.0;
  const ContactProblem bodies = MakeRandomContactProblem(options);
  for (int i = 0; i < bodies.num_constraints(); ++i)
    ASSERT_EQ(bodies.constraint(i).jacobian.size(), 2u) << "contact " << i;
  const SupernodePartition partition(bodies);
  ASSERT_EQ(partition.num_supernodes(), 2);
  EXPECT_NE(partition.supernode_of_clique[0], partition.supernode_of_clique[1]);
  EXPECT_EQ(partition.supernode_size, (std::vector<int>{6, 6}));
  EXPECT_TRUE(partition.identity_order);  // a vector needs no permuting
  // Split into scalar cliques, all twelve are touched by the same contacts
  // and merge into one supernode (cliques below a body's size do).
  const SupernodePartition scalars(SplitIntoScalarCliques(bodies));
  EXPECT_EQ(scalars.num_supernodes(), 1);
}

}  // namespace
}  // namespace coulomb
