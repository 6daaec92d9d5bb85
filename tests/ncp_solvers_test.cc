// The rigid-contact (NCP) building blocks and solvers: the friction-cone
// projection and the strict operator, CANAL's inner potential, and CANAL
// and PGS on tiny problems whose exact NCP solution is known.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <span>
#include <vector>

#include <gtest/gtest.h>

#include "coulomb/contact/augmented_lagrangian_cone.h"
#include "coulomb/contact/friction_cone_projection.h"
#include "coulomb/contact/pd_controller_constraint.h"
#include "coulomb/contact/random_contact_problem.h"
#include "coulomb/contact/sap_friction_cone.h"
#include "coulomb/solvers/canal_solver.h"
#include "coulomb/solvers/contact_solver.h"
#include "coulomb/solvers/pgs_solver.h"
#include "coulomb/solvers/subadmm_solver.h"
#include "test_support.h"

namespace coulomb {
namespace {

// Points in the three regions of the projection onto K_μ and near both
// boundaries (relative 1e-4 on either side).
std::vector<Eigen::Vector3d> SampleAroundTheCone(double mu, unsigned seed) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<Eigen::Vector3d> samples;
  for (int k = 0; k < 200; ++k) {
    const double angle = 2 * M_PI * unit(random), slip = 0.1 + 2 * unit(random);
    double normal = 0.0;
    switch (k % 5) {
      case 0:
        normal = slip / mu * (1.0 + unit(random));
        break;  // stick
      case 1:
        normal = -mu * slip + (slip / mu + mu * slip) * unit(random);
        break;  // slip
      case 2:
        normal = -mu * slip - unit(random) - 1e-3;
        break;  // open
      case 3:
        normal = slip / mu * (1.0 + (unit(random) < 0.5 ? -1e-4 : 1e-4));
        break;
      case 4:
        normal = -mu * slip * (1.0 + (unit(random) < 0.5 ? -1e-4 : 1e-4));
        break;
    }
    samples.emplace_back(slip * std::cos(angle), slip * std::sin(angle), normal);
  }
  return samples;
}

TEST(FrictionConeProjection, SatisfiesTheProjectionKktConditionsInAllRegions) {
  for (double mu : {0.3, 1.0, 2.5}) {
    for (const Eigen::Vector3d& x : SampleAroundTheCone(mu, 1)) {
      const Eigen::Vector3d p = ProjectOntoFrictionConeWithJacobian(x, mu).value;
      const Eigen::Vector3d d = x - p;  // must lie in the polar cone, ⊥ p
      const double tolerance = 1e-12 * (1.0 + x.norm());
      EXPECT_LE(p.head<2>().norm(), mu * p(2) + tolerance);
      EXPECT_LE(mu * d.head<2>().norm(), -d(2) + tolerance);
      EXPECT_NEAR(p.dot(d), 0.0, tolerance * (1.0 + x.norm()));
      // And it agrees with the test suite's independent projection.
      EXPECT_LT((p - testing::ProjectOntoCone(x, mu)).norm(), tolerance);
    }
  }
}

TEST(FrictionConeProjection, FrictionlessConeIsTheNonNegativeNormalRay) {
  // μ = 0 (joint limits in the NCP): Π(x) = (0, 0, max(x_n, 0)). A pulling
  // normal with no tangential part once passed the stick test (0 ≤ 0 · x_n).
  for (const Eigen::Vector3d& x :
       {Eigen::Vector3d(0, 0, -1), Eigen::Vector3d(0.3, -0.2, -1),
        Eigen::Vector3d(0, 0, 2), Eigen::Vector3d(0.3, -0.2, 2)}) {
    const Eigen::Vector3d expected(0, 0, std::max(x(2), 0.0));
    EXPECT_EQ(ProjectOntoFrictionConeWithJacobian(x, 0.0).value, expected)
        << x.transpose();
    EXPECT_EQ(testing::ProjectOntoCone(x, 0.0), expected) << x.transpose();
  }
}

TEST(FrictionConeProjection, JacobianMatchesFiniteDifferences) {
  for (double mu : {0.3, 1.0, 2.5}) {
    for (const Eigen::Vector3d& x : SampleAroundTheCone(mu, 2)) {
      const Eigen::Matrix3d jacobian =
          ProjectOntoFrictionConeWithJacobian(x, mu).jacobian;
      const Eigen::Matrix3d numerical = testing::NumericalJacobian(
          [mu](const Eigen::VectorXd& y) -> Eigen::VectorXd {
            return ProjectOntoFrictionConeWithJacobian(Eigen::Vector3d(y), mu).value;
          },
          x, 1e-8);
      // Samples stay ≥ 1e-4 relative from the region boundaries, ≫ h = 1e-8.
      EXPECT_LT((jacobian - numerical).norm(), 1e-5) << x.transpose();
      EXPECT_LT((jacobian - jacobian.transpose()).norm(), 1e-14);
    }
  }
}

TEST(StrictFrictionOperator, ClampsTheNormalThenProjectsOntoTheDisc) {
  // Open: negative normal → zero.
  EXPECT_EQ(StrictFrictionOperator({0.3, 0.1, -1.0}, 0.5), Eigen::Vector3d::Zero());
  // Inside the disc: unchanged.
  EXPECT_EQ(StrictFrictionOperator({0.1, 0.2, 1.0}, 0.5), Eigen::Vector3d(0.1, 0.2, 1.0));
  // Outside: the tangential part is scaled to μ λ_n; the normal is untouched,
  // unlike the Euclidean projection's (2 + 0.5·5)/(1 + 0.25) = 3.6.
  const Eigen::Vector3d strict = StrictFrictionOperator({3.0, 4.0, 2.0}, 0.5);
  EXPECT_TRUE(strict.isApprox(Eigen::Vector3d(0.6, 0.8, 2.0), 1e-15));
  EXPECT_NEAR(ProjectOntoFrictionConeWithJacobian({3.0, 4.0, 2.0}, 0.5).value(2), 3.6,
              1e-14);
}

TEST(AugmentedLagrangianCone, ImpulseIsMinusGradientAndHessianItsDerivative) {
  const AugmentedLagrangianCone cone(0.7, 3.0, Eigen::Vector3d(0.1, -0.2, 0.05));
  for (const Eigen::Vector3d& y : SampleAroundTheCone(0.7, 3)) {
    // v_c such that y = −β (v_c + s).
    const Eigen::Vector3d v_c = -y / 3.0 - Eigen::Vector3d(0.1, -0.2, 0.05);
    ConstraintVector gamma;
    ConstraintMatrix hessian;
    cone.Evaluate(v_c, &gamma, &hessian);
    const auto cost = [&cone](const Eigen::VectorXd& v) {
      ConstraintVector unused;
      return cone.Evaluate(ConstraintVector(v), &unused, nullptr);
    };
    const auto minus_gamma = [&cone](const Eigen::VectorXd& v) -> Eigen::VectorXd {
      ConstraintVector g;
      cone.Evaluate(ConstraintVector(v), &g, nullptr);
      return -g;
    };
    EXPECT_LT(
        (Eigen::Vector3d(gamma) + testing::NumericalGradient(cost, v_c, 1e-7)).norm(),
        1e-6 * (1.0 + gamma.norm()));
    EXPECT_LT(
        (Eigen::Matrix3d(hessian) - testing::NumericalJacobian(minus_gamma, v_c, 1e-8))
            .norm(),
        1e-5 * (1.0 + hessian.norm()));
    EXPECT_GE(Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d>(Eigen::Matrix3d(hessian))
                  .eigenvalues()
                  .minCoeff(),
              -1e-12);
  }
}

// CANAL with one of its inner solvers, default parameters otherwise.
NcpSolverStatistics SolveWithCanal(CanalInnerSolver inner, const ContactNcp& ncp,
                                   NcpSolution* solution) {
  NcpSolverParameters parameters;
  parameters.inner_solver = inner;
  return CanalSolver(parameters).Solve(ncp, Eigen::VectorXd(), solution);
}

// Solver k of CANAL, PGS, SubADMM, (k = 3) unsplit ADMM, and CANAL with the
// ablation's dogleg (4) and damped semismooth Newton (5) inner solvers;
// default parameters.
constexpr int kNumSolvers = 6;
NcpSolverStatistics SolveWith(int solver, const ContactNcp& ncp, NcpSolution* solution) {
  switch (solver) {
    case 0:
      return CanalSolver().Solve(ncp, Eigen::VectorXd(), solution);
    case 4:
      return SolveWithCanal(CanalInnerSolver::kDogleg, ncp, solution);
    case 5:
      return SolveWithCanal(CanalInnerSolver::kDampedSemismoothNewton, ncp, solution);
    case 1:
      return PgsSolver().Solve(ncp, Eigen::VectorXd(), solution);
    case 2:
      return SubAdmmSolver().Solve(ncp, Eigen::VectorXd(), solution);
    default:
      return SubAdmmSolver({}, 1, AdmmSplitting::kWholeSystem)
          .Solve(ncp, Eigen::VectorXd(), solution);
  }
}

// A point mass m = 2 kg (A = m I) with one contact J = I and free velocity
// v*: the NCP solution is known in closed form for each regime.
ContactProblem PointMassProblem(const Eigen::Vector3d& v_star, double mu) {
  ContactProblem problem(0.01);
  problem.AddClique(2.0 * Eigen::Matrix3d::Identity());
  problem.SetFreeMotionVelocities(v_star);
  SapContactParameters parameters;
  parameters.friction = mu;
  problem.AddConstraint(
      {{0, Eigen::Matrix3d::Identity()}},
      std::make_unique<SapFrictionCone>(parameters, Eigen::Vector3d::Zero()));
  problem.Finalize();
  return problem;
}

// A contact whose data are at rounding level while its body moves: a point
// mass sliding along x at 1 m/s, its normal velocity −1e-17 m/s. λ = 0 is
// off by 1e-17 in absolute terms; FCLIB's normalization divides that by
// ‖q‖ = 1e-17 and reports 1; the floor of a millionth of the contact
// point speed scale (1 m/s) reports 1e-11.
TEST(ContactNcp, ContactPointSpeedScaleKeepsRoundingLevelProblemsFromLookingUnsolved) {
  const ContactProblem problem = PointMassProblem(Eigen::Vector3d(1.0, 0.0, -1e-17), 0.0);
  // Tangential rows zeroed: only the normal row remains (a frictionless
  // limit-like constraint on the z velocity).
  ContactProblem normal_only(0.01);
  normal_only.AddClique(problem.clique_matrix(0));
  normal_only.SetFreeMotionVelocities(problem.v_star());
  Eigen::Matrix3d jacobian = Eigen::Matrix3d::Zero();
  jacobian(2, 2) = 1.0;
  SapContactParameters frictionless;
  frictionless.friction = 0.0;
  normal_only.AddConstraint({{0, jacobian}}, std::make_unique<SapFrictionCone>(
                                                 frictionless, Eigen::Vector3d::Zero()));
  normal_only.Finalize();
  const Eigen::VectorXd lambda = Eigen::VectorXd::Zero(3);
  for (const auto scale : {ContactNcp::ResidualScale::kFclib,
                           ContactNcp::ResidualScale::kContactPointSpeed}) {
    const ContactNcp ncp(normal_only, scale);
    Eigen::VectorXd v, u;
    ncp.CalcVelocities(lambda, &v);
    ncp.CalcContactVelocities(v, &u);
    const double residual = ncp.NaturalMapResidual(lambda, u);
    if (scale == ContactNcp::ResidualScale::kFclib) {
      EXPECT_NEAR(residual, 1.0, 1e-12);
    } else {
      // s = ‖J‖ ‖v*‖ = 1 m/s, floor 1e-6 s.
      EXPECT_NEAR(residual, 1e-11, 1e-14);
    }
  }
}

struct KnownCase {
  const char* name;
  Eigen::Vector3d v_star;
  double mu;
  Eigen::Vector3d v;       // exact velocity
  Eigen::Vector3d lambda;  // exact impulse
};

std::vector<KnownCase> KnownCases() {
  return {
      // Stick: u = 0 needs λ = −m v* inside the cone (‖λ_t‖ = 0.2 ≤ 1·2).
      {"stick", {0.1, 0.0, -1.0}, 1.0, {0, 0, 0}, {-0.2, 0.0, 2.0}},
      // Slip: v_n = 0 (λ_n = 2), friction μ λ_n = 1 against the slip:
      // v_t = 2 − 1/m = 1.5.
      {"slip", {2.0, 0.0, -1.0}, 0.5, {1.5, 0, 0}, {-1.0, 0.0, 2.0}},
      // Separation: no impulse.
      {"separation", {1.0, -0.5, 1.0}, 0.5, {1.0, -0.5, 1.0}, {0, 0, 0}},
  };
}

TEST(NcpSolvers, CanalSubAdmmAndPgsReturnTheExactSingleContactSolution) {
  for (const KnownCase& c : KnownCases()) {
    const ContactProblem problem = PointMassProblem(c.v_star, c.mu);
    const ContactNcp ncp(problem);
    NcpSolution canal, pgs, subadmm;
    const NcpSolverStatistics canal_stats =
        CanalSolver().Solve(ncp, Eigen::VectorXd(), &canal);
    const NcpSolverStatistics pgs_stats = PgsSolver().Solve(ncp, Eigen::VectorXd(), &pgs);
    const NcpSolverStatistics subadmm_stats =
        SubAdmmSolver().Solve(ncp, Eigen::VectorXd(), &subadmm);
    for (const auto& [stats, solution] :
         {std::pair{canal_stats, canal}, {pgs_stats, pgs}, {subadmm_stats, subadmm}}) {
      EXPECT_TRUE(stats.converged) << c.name << " " << stats.solver;
      EXPECT_LT((solution.v - c.v).norm(), 1e-8) << c.name << " " << stats.solver;
      EXPECT_LT((solution.lambda - c.lambda).norm(), 1e-8)
          << c.name << " " << stats.solver;
    }
  }
}

// A 1 kg box (10 cm cube, I = m s²/6) resting on four corner contacts with
// gravity's impulse in v*: the rigid answer is v = 0 and Σλ_n = m g δt
// (individual λ_n are not unique: the box is statically indeterminate).
TEST(NcpSolvers, BoxRestingOnFourContactsStaysAtRest) {
  const double m = 1.0, s = 0.1, dt = 0.01, g = 9.81;
  ContactProblem problem(dt);
  Eigen::Matrix<double, 6, 6> mass = Eigen::Matrix<double, 6, 6>::Zero();
  mass.diagonal() << m, m, m, m * s * s / 6, m * s * s / 6, m * s * s / 6;
  problem.AddClique(mass);
  Eigen::VectorXd v_star = Eigen::VectorXd::Zero(6);
  v_star(2) = -g * dt;
  problem.SetFreeMotionVelocities(v_star);
  for (double x : {-0.05, 0.05}) {
    for (double y : {-0.05, 0.05}) {
      // Corner p = (x, y, −0.05) of a body with v = [ṗ, ω]: v_p = ṗ + ω × p.
      const Eigen::Vector3d p(x, y, -0.05);
      Eigen::Matrix<double, 3, 6> jacobian;
      Eigen::Matrix3d cross;
      cross << 0, -p.z(), p.y(), p.z(), 0, -p.x(), -p.y(), p.x(), 0;
      jacobian << Eigen::Matrix3d::Identity(), -cross;
      SapContactParameters parameters;
      parameters.friction = 0.5;
      problem.AddConstraint({{0, jacobian}}, std::make_unique<SapFrictionCone>(
                                                 parameters, Eigen::Vector3d::Zero()));
    }
  }
  problem.Finalize();
  const ContactNcp ncp(problem);
  for (int solver = 0; solver < kNumSolvers; ++solver) {
    NcpSolution solution;
    const NcpSolverStatistics stats = SolveWith(solver, ncp, &solution);
    EXPECT_TRUE(stats.converged) << stats.solver << " " << stats.status;
    EXPECT_LT(solution.v.norm(), 1e-8) << stats.solver;
    double total = 0.0;
    for (int i = 0; i < 4; ++i) total += solution.lambda(3 * i + 2);
    EXPECT_NEAR(total, m * g * dt, 1e-9) << stats.solver;
  }
}

// Every subsystem solve and constraint update writes only its own data, so
// the iterates do not depend on how the loops are split over threads.
TEST(SubAdmmSolver, ResultsAreIdenticalForAnyThreadCount) {
  RandomContactProblemOptions options;
  options.num_bodies = 40;
  options.num_contacts = 80;
  options.seed = 5;
  const ContactProblem problem = MakeRandomContactProblem(options);
  const ContactNcp ncp(problem);
  NcpSolverParameters parameters;
  parameters.max_iterations = 200;
  NcpSolution one, two, three;
  SubAdmmSolver(parameters, 1).Solve(ncp, Eigen::VectorXd(), &one);
  SubAdmmSolver(parameters, 2).Solve(ncp, Eigen::VectorXd(), &two);
  SubAdmmSolver(parameters, 3).Solve(ncp, Eigen::VectorXd(), &three);
  EXPECT_EQ(one.v, two.v);
  EXPECT_EQ(one.lambda, two.lambda);
  EXPECT_EQ(one.lambda, three.lambda);
}

// A random 10-dof tree with two contacts against the world and one between
// two of its bodies (a self-collision: two body parts in one Jacobian
// block), all closing.
ContactProblem SelfContactTreeProblem() {
  const testing::RandomTree random = testing::MakeRandomTree(10, 4);
  ContactProblem problem(0.01);
  problem.AddClique(random.a);
  problem.SetCliqueTree(0, random.tree);
  problem.SetFreeMotionVelocities(Eigen::VectorXd::Zero(10));
  SapContactParameters contact;
  contact.friction = 0.6;
  const std::vector<std::vector<BodyJacobian>> contacts = {
      {testing::RandomPointOnBody(9, 1.0, 11)},
      {testing::RandomPointOnBody(4, 1.0, 12)},
      {testing::RandomPointOnBody(7, 1.0, 13), testing::RandomPointOnBody(2, -1.0, 14)}};
  for (const std::vector<BodyJacobian>& bodies : contacts) {
    ConstraintVector bias(3);
    bias << 0.05, -0.02, bodies.size() == 2 ? -1.0 : -0.1;  // closing, drifting sideways
    problem.AddConstraint(
        {{0, testing::DenseBlock(random.tree, bodies), bodies}}, bias,
        std::make_unique<SapFrictionCone>(contact, Eigen::Vector3d::Zero()));
  }
  problem.Finalize();
  return problem;
}

// SubADMM splits the self-contact into two copies (one per body) and factors
// the tree without fill-in; it must reach the same NCP solution as the No
// Body variant and CANAL.
TEST(SubAdmmSolver, BodySplitReachesTheNcpSolutionOfAContactInsideOneTree) {
  const ContactProblem problem = SelfContactTreeProblem();
  const ContactNcp ncp(problem);
  NcpSolution canal, split, no_body;
  ASSERT_TRUE(CanalSolver().Solve(ncp, Eigen::VectorXd(), &canal).converged);
  NcpSolverParameters parameters;
  parameters.tolerance = 1e-10;
  const NcpSolverStatistics split_stats =
      SubAdmmSolver(parameters, 1, AdmmSplitting::kSubsystemsAndBodies)
          .Solve(ncp, Eigen::VectorXd(), &split);
  const NcpSolverStatistics no_body_stats =
      SubAdmmSolver(parameters, 1, AdmmSplitting::kSubsystems)
          .Solve(ncp, Eigen::VectorXd(), &no_body);
  EXPECT_TRUE(split_stats.converged) << split_stats.residual;
  EXPECT_TRUE(no_body_stats.converged) << no_body_stats.residual;
  // The self-contact pushes (without it the test would not test the split).
  ASSERT_GT(canal.lambda(8), 1.0);
  // The natural-map residual 1e-10 bounds the distance to the solution by
  // about cond(W) × 1e-10 relative; W of this tree is well conditioned.
  EXPECT_LT((split.lambda - canal.lambda).norm(), 1e-6 * canal.lambda.norm());
  EXPECT_LT((no_body.lambda - canal.lambda).norm(), 1e-6 * canal.lambda.norm());
}

// Six random trees in a row, each on the ground and touching the next: the
// per-body split across subsystems converges, with iterates independent of
// the thread count.
TEST(SubAdmmSolver, BodySplitAcrossTreesConvergesIndependentlyOfTheThreadCount) {
  ContactProblem problem(0.01);
  std::vector<testing::RandomTree> trees;
  for (int t = 0; t < 6; ++t) {
    trees.push_back(testing::MakeRandomTree(5 + t % 3, 20 + t));
    problem.AddClique(trees[t].a);
    problem.SetCliqueTree(t, trees[t].tree);
  }
  problem.SetFreeMotionVelocities(Eigen::VectorXd::Zero(problem.num_dofs()));
  SapContactParameters contact;
  contact.friction = 0.5;
  ConstraintVector bias(3);
  bias << 0.01, 0.0, -0.05;
  for (int t = 0; t < 6; ++t) {
    const int last = static_cast<int>(trees[t].a.rows()) - 1;
    const std::vector<BodyJacobian> ground = {
        testing::RandomPointOnBody(last, 1.0, 40 + t)};
    std::vector<JacobianBlock> blocks = {
        {t, testing::DenseBlock(trees[t].tree, ground), ground}};
    problem.AddConstraint(
        std::move(blocks), bias,
        std::make_unique<SapFrictionCone>(contact, Eigen::Vector3d::Zero()));
    if (t == 5) continue;
    const std::vector<BodyJacobian> mine = {
        testing::RandomPointOnBody(last / 2, 1.0, 60 + t)};
    const std::vector<BodyJacobian> next = {testing::RandomPointOnBody(1, -1.0, 80 + t)};
    blocks = {{t, testing::DenseBlock(trees[t].tree, mine), mine},
              {t + 1, testing::DenseBlock(trees[t + 1].tree, next), next}};
    problem.AddConstraint(
        std::move(blocks), bias,
        std::make_unique<SapFrictionCone>(contact, Eigen::Vector3d::Zero()));
  }
  problem.Finalize();
  const ContactNcp ncp(problem);
  // Converged means the natural-map residual certifies an NCP solution. (On
  // this problem a second solver is no sharper reference: PGS at 1e-10 lands
  // 1e-5 away in v, the sliding solution being poorly determined, and
  // CANAL's lagged De Saxcé shift stalls at 2e-2.)
  NcpSolution one, two;
  NcpSolverParameters parameters;
  parameters.tolerance = 1e-9;
  EXPECT_TRUE(SubAdmmSolver(parameters, 1).Solve(ncp, Eigen::VectorXd(), &one).converged);
  SubAdmmSolver(parameters, 2).Solve(ncp, Eigen::VectorXd(), &two);
  EXPECT_EQ(one.lambda, two.lambda);
  EXPECT_EQ(one.v, two.v);
}

// On the same strongly coupled tree, PGS with the scalar local step
// 1/λ_max(W_ii) converges to CANAL's solution; with W_ii⁻¹ (docs/math.md §4.4) the
// sweeps blow up.
TEST(PgsSolver, ScalarStepConvergesWhereTheDelassusInverseStepDiverges) {
  const ContactProblem problem = SelfContactTreeProblem();
  const ContactNcp ncp(problem);
  NcpSolution canal, scalar, inverse;
  ASSERT_TRUE(CanalSolver().Solve(ncp, Eigen::VectorXd(), &canal).converged);
  NcpSolverParameters parameters;
  parameters.tolerance = 1e-10;
  const NcpSolverStatistics scalar_stats =
      PgsSolver(parameters, PgsStep::kScalar).Solve(ncp, Eigen::VectorXd(), &scalar);
  parameters.max_iterations = 1000;
  PgsSolver(parameters, PgsStep::kDelassusInverse)
      .Solve(ncp, Eigen::VectorXd(), &inverse);
  EXPECT_TRUE(scalar_stats.converged) << scalar_stats.residual;
  EXPECT_LT((scalar.lambda - canal.lambda).norm(), 1e-6 * canal.lambda.norm());
  EXPECT_GT(inverse.lambda.norm(), 1e3 * canal.lambda.norm());
}

// Cut off by its iteration limit, CANAL returns its best iterate: the
// reported residual is the lowest of the history, and it is the residual of
// the returned impulses.
TEST(CanalSolver, ReturnsItsBestIterateAtTheIterationLimit) {
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    RandomContactProblemOptions options;
    options.num_bodies = 20;
    options.num_contacts = 40;
    options.seed = seed;
    const ContactProblem problem = MakeRandomContactProblem(options);
    const ContactNcp ncp(problem);
    NcpSolverParameters parameters;
    parameters.max_iterations = 12;
    NcpSolution solution;
    const NcpSolverStatistics stats =
        CanalSolver(parameters).Solve(ncp, Eigen::VectorXd(), &solution);
    double lowest = std::numeric_limits<double>::infinity();
    for (const NcpIterationRecord& record : stats.history)
      lowest = std::min(lowest, record.residual);
    EXPECT_LE(stats.residual, lowest) << "seed " << seed;
    Eigen::VectorXd v, u;
    ncp.CalcVelocities(solution.lambda, &v);
    ncp.CalcContactVelocities(v, &u);
    EXPECT_NEAR(ncp.NaturalMapResidual(solution.lambda, u), stats.residual,
                1e-12 * (1.0 + stats.residual))
        << "seed " << seed;
  }
}

// From a guess of 1e300 m/s the inner SAP solve's cost overflows: CANAL
// stops at once with the inner failure instead of iterating on infinities.
TEST(CanalSolver, StopsWhenItsInnerSolveOverflows) {
  const ContactProblem problem =
      MakeRandomContactProblem({.num_bodies = 4, .num_contacts = 8});
  const ContactNcp ncp(problem);
  NcpSolution solution;
  const NcpSolverStatistics stats = CanalSolver().Solve(
      ncp, Eigen::VectorXd::Constant(problem.num_dofs(), 1e300), &solution);
  EXPECT_EQ(stats.status, SolverStatus::kInnerSolveFailed);
  EXPECT_EQ(stats.inner_solves, 1);
}

// The first `per_class` problems of each class of `coulomb bench random`
// (as drawn, then a mass ratio of 1e6, contacts twice, μ up to 2, stiffness
// up to 1e12 N/m), with its seeds and sizes, one after the other.
std::vector<ContactProblem> BenchRandomProblems(int per_class) {
  RandomContactProblemOptions base, masses, twice, friction, stiff;
  masses.mass_ratio = 1e6;
  twice.duplicate_fraction = 0.3;
  friction.max_friction = 2.0;
  stiff.max_stiffness_exponent = 12.0;
  std::vector<ContactProblem> problems;
  for (const RandomContactProblemOptions& problem_class :
       {base, masses, twice, friction, stiff}) {
    for (int n = 0; n < per_class; ++n) {
      RandomContactProblemOptions options = problem_class;
      options.seed = 1000003 + static_cast<uint64_t>(n);
      options.num_bodies = 2 + static_cast<int>(options.seed % 19);
      options.num_contacts = 1 + static_cast<int>((options.seed / 19) % 40);
      problems.push_back(MakeRandomContactProblem(options));
    }
  }
  return problems;
}

// With β at its cap the plain De Saxcé update can cycle: on random problems
// whose W is regular (3 n_c ≤ n_v), drawn as `coulomb bench random` draws
// them, the relaxed update (ω = 0.4) leaves at most 60 % as many unsolved
// as ω = 1 (45 % when this test was written),
// and every solve it reports converged meets the tolerance at the impulses
// it returns.
TEST(CanalSolver, RelaxedDeSaxceTermSolvesProblemsWhereThePlainUpdateStalls) {
  NcpSolverParameters plain, relaxed;
  plain.keep_history = relaxed.keep_history = false;
  plain.de_saxce_relaxation = 1.0;
  int problems = 0, plain_failures = 0, relaxed_failures = 0;
  const std::vector<ContactProblem> drawn = BenchRandomProblems(400);
  for (size_t k = 0; k < drawn.size(); ++k) {
    const ContactProblem& problem = drawn[k];
    if (3 * problem.num_constraints() > problem.num_dofs()) continue;
    ++problems;
    const ContactNcp ncp(problem);
    NcpSolution solution;
    plain_failures +=
        !CanalSolver(plain).Solve(ncp, Eigen::VectorXd(), &solution).converged;
    const bool converged =
        CanalSolver(relaxed).Solve(ncp, Eigen::VectorXd(), &solution).converged;
    relaxed_failures += !converged;
    if (!converged) continue;
    Eigen::VectorXd v, u;
    ncp.CalcVelocities(solution.lambda, &v);
    ncp.CalcContactVelocities(v, &u);
    EXPECT_LE(ncp.NaturalMapResidual(solution.lambda, u), relaxed.tolerance)
        << "problem " << k;
  }
  std::printf("%d problems with W regular: %d unsolved with ω = 1, %d with ω = %g\n",
              problems, plain_failures, relaxed_failures, relaxed.de_saxce_relaxation);
  EXPECT_GT(problems, 500);
  EXPECT_LE(relaxed_failures, 0.6 * plain_failures);
}

// The natural-map residual ‖λ − Π_K(λ − ũ)‖ / max(‖q‖, ‖λ‖, ‖u‖), ũ = u +
// μ‖u_t‖ e_n, computed here with the test's own cone projection, at
// v = v* + A⁻¹Jᵀλ (contacts only).
double NaturalMapResidualByProjection(const ContactNcp& ncp,
                                      const Eigen::VectorXd& lambda) {
  Eigen::VectorXd v, u;
  ncp.CalcVelocities(lambda, &v);
  ncp.CalcContactVelocities(v, &u);
  Eigen::VectorXd r(lambda.size());
  for (int i = 0; i < ncp.num_contacts(); ++i) {
    const double mu = ncp.friction(i);
    const Eigen::Vector3d l = lambda.segment<3>(3 * i), ui = u.segment<3>(3 * i);
    const Eigen::Vector3d modified(ui(0), ui(1), ui(2) + mu * ui.head<2>().norm());
    r.segment<3>(3 * i) = l - testing::ProjectOntoCone(l - modified, mu);
  }
  const double scale = std::max({ncp.free_contact_velocity().norm(), lambda.norm(),
                                 u.norm(), std::numeric_limits<double>::min()});
  return r.norm() / scale;
}

// CANAL alone and CANAL with ADMM's fallback (10 000 iterations) on each
// problem: where CANAL converges the fallback does not run and the result is
// CANAL's, bit for bit; where it ends unsolved the fallback runs, never ends
// worse, and each solve it reports converged meets the tolerance by the
// residual computed here. Counts CANAL's failures and the fallback's rescues.
struct FallbackOutcome {
  int canal_failures = 0;
  int rescued = 0;
};
FallbackOutcome CheckAdmmFallback(std::span<const ContactProblem> problems) {
  NcpSolverParameters bare, fallback;
  bare.keep_history = fallback.keep_history = false;
  fallback.fallback_iterations = 10000;
  FallbackOutcome outcome;
  for (size_t k = 0; k < problems.size(); ++k) {
    const ContactNcp ncp(problems[k]);
    NcpSolution alone, continued;
    const NcpSolverStatistics a = CanalSolver(bare).Solve(ncp, Eigen::VectorXd(), &alone);
    const NcpSolverStatistics c =
        CanalSolver(fallback).Solve(ncp, Eigen::VectorXd(), &continued);
    if (a.converged) {
      EXPECT_EQ(c.fallback_iterations, 0) << "problem " << k;
      EXPECT_EQ(Eigen::VectorXd(continued.lambda), Eigen::VectorXd(alone.lambda));
      continue;
    }
    ++outcome.canal_failures;
    EXPECT_GT(c.fallback_iterations, 0) << "problem " << k;
    EXPECT_LE(c.residual, a.residual) << "problem " << k;
    if (!c.converged) continue;
    ++outcome.rescued;
    const double residual = NaturalMapResidualByProjection(ncp, continued.lambda);
    EXPECT_LE(residual, 1.01 * fallback.tolerance) << "problem " << k;
    EXPECT_NEAR(residual, c.residual, 1e-3 * fallback.tolerance)  // the one reported
        << "problem " << k;
  }
  return outcome;
}

// Where CANAL ends unsolved, ADMM from its best impulses solves most of the
// problems (82 % of those of `coulomb bench random --count 500`, 74 % of
// these 300 when this test was written; at least 60 % here).
TEST(CanalSolver, AdmmFallbackSolvesMostProblemsCanalLeavesUnsolved) {
  const FallbackOutcome outcome = CheckAdmmFallback(BenchRandomProblems(60));
  std::printf("CANAL left %d of 300 unsolved; ADMM from its best solved %d of them\n",
              outcome.canal_failures, outcome.rescued);
  EXPECT_GT(outcome.canal_failures, 20);
  EXPECT_GE(outcome.rescued, 0.6 * outcome.canal_failures);
}

// The same checks on the first three of those problems, CANAL failing on
// one that ADMM then solves: the fallback's path in a test short enough for
// the sanitizers' run (make test-sanitize-core), which skips the sweep.
TEST(CanalSolver, AdmmFallbackSolvesAProblemCanalLeavesUnsolved) {
  const std::vector<ContactProblem> drawn = BenchRandomProblems(3);
  const FallbackOutcome outcome = CheckAdmmFallback(std::span(drawn).first(3));
  EXPECT_EQ(outcome.canal_failures, 1);
  EXPECT_EQ(outcome.rescued, 1);
}

// A simulation step ends at CANAL's budget: the fallback never runs there.
TEST(CanalSolver, AdmmFallbackIsOffInTimeStepping) {
  ContactSolverOptions options;
  options.kind = ContactSolverKind::kCanal;
  options.ncp.fallback_iterations = 10000;
  options.ncp.max_iterations = 2;  // too few to converge
  const ContactProblem problem =
      MakeRandomContactProblem({.num_bodies = 10, .num_contacts = 20});
  ContactSolution solution;
  const ContactSolverStatistics stepping =
      MakeContactSolver(options, SolverUse::kTimeStepping)
          ->Solve(problem, Eigen::VectorXd(), Eigen::VectorXd(), &solution);
  EXPECT_FALSE(stepping.converged());
  EXPECT_EQ(stepping.fallback_iterations, 0);
  const ContactSolverStatistics single =
      MakeContactSolver(options, SolverUse::kSingleProblem)
          ->Solve(problem, Eigen::VectorXd(), Eigen::VectorXd(), &solution);
  EXPECT_GT(single.fallback_iterations, 0);
}

TEST(CanalSolver, AdmmFallbackOptionIsValidated) {
  ContactSolverOptions options;
  options.kind = ContactSolverKind::kCanal;
  options.ncp.fallback_iterations = -1;
  EXPECT_THROW(ValidateContactSolverOptions(options), std::invalid_argument);
  options.ncp.fallback_iterations = 100;
  EXPECT_NO_THROW(ValidateContactSolverOptions(options));
  options.kind = ContactSolverKind::kPgs;
  EXPECT_THROW(ValidateContactSolverOptions(options), std::invalid_argument);
}

// Warm start (time stepping passes the previous step's impulses): started
// from the solution, CANAL stops after one outer iteration and SubADMM needs
// far fewer iterations than from λ = 0; a wrong-sized guess is an error.
TEST(NcpSolvers, WarmStartFromTheSolutionConvergesAtOnce) {
  RandomContactProblemOptions options;
  options.num_bodies = 20;
  options.num_contacts = 40;
  options.seed = 1;  // CANAL reaches 1e-10 here (not on every random problem)
  const ContactProblem problem = MakeRandomContactProblem(options);
  const ContactNcp ncp(problem);
  NcpSolverParameters parameters;
  parameters.tolerance = 1e-7;
  parameters.max_iterations = 5000;
  NcpSolution exact;
  NcpSolverParameters tight = parameters;
  tight.tolerance = 1e-10;
  tight.max_iterations = 100;
  const NcpSolverStatistics reference =
      CanalSolver(tight).Solve(ncp, Eigen::VectorXd(), &exact);
  ASSERT_TRUE(reference.converged) << reference.status << " at " << reference.residual;

  NcpSolution warm;
  const NcpSolverStatistics canal =
      CanalSolver(parameters).Solve(ncp, Eigen::VectorXd(), &warm, exact.lambda);
  EXPECT_TRUE(canal.converged);
  EXPECT_EQ(canal.iterations, 1);
  EXPECT_LT((warm.lambda - exact.lambda).norm(), 1e-6 * exact.lambda.norm());

  NcpSolution cold_admm, warm_admm;
  const NcpSolverStatistics cold =
      SubAdmmSolver(parameters).Solve(ncp, Eigen::VectorXd(), &cold_admm);
  const NcpSolverStatistics hot =
      SubAdmmSolver(parameters).Solve(ncp, exact.lambda, &warm_admm);
  ASSERT_TRUE(cold.converged) << cold.status;
  EXPECT_TRUE(hot.converged) << hot.status;
  std::printf("SubADMM iterations: %d from 0, %d from the solution\n", cold.iterations,
              hot.iterations);
  EXPECT_LT(hot.iterations, cold.iterations / 4);

  EXPECT_THROW(CanalSolver(parameters)
                   .Solve(ncp, Eigen::VectorXd(), &warm, Eigen::VectorXd::Ones(5)),
               std::invalid_argument);
}

// A 2 kg slider pushed into its limit (v* = −1 m/s, gap 0) next to a
// frictional contact on another body: the limit stops it exactly (λ = m v),
// and the impulses map back to the problem's one-row constraint.
TEST(NcpSolvers, HardUnilateralLimitStopsTheSliderExactly) {
  const ContactProblem problem = testing::MakeSliderAtLimitBesideContact();
  const ContactNcp ncp(problem);
  EXPECT_EQ(ncp.num_contacts(), 2);
  EXPECT_EQ(ncp.friction(1), 0.0);
  for (int solver : {0, 1, 2, 4, 5}) {
    NcpSolution solution;
    const NcpSolverStatistics stats = SolveWith(solver, ncp, &solution);
    EXPECT_TRUE(stats.converged) << stats.solver;
    EXPECT_NEAR(solution.v(0), 0.0, 1e-8) << stats.solver;
    const Eigen::VectorXd impulses = ncp.ToProblemImpulses(solution.lambda);
    ASSERT_EQ(impulses.size(), 4) << stats.solver;  // 3 (contact) + 1 (limit)
    EXPECT_NEAR(impulses(3), 2.0, 1e-8) << stats.solver;
    // The point mass slides: |λ_t| = μ λ_n = 0.5 × 0.5, v_t ∥ −λ_t.
    EXPECT_NEAR(impulses.head<2>().norm(), 0.25, 1e-8) << stats.solver;
    EXPECT_NEAR(ncp.FromProblemImpulses(impulses)(5), impulses(3), 1e-15);
  }
}

// A 2 kg slider at v* = 1 m/s under a pure damper (kd = 10 N·s/m) as the soft
// law λ = δt clamp(−kd v): implicit, 2 (v − v*) = −δt kd v, v = 2/(2 + 0.1);
// with an effort limit of 1 N the damper saturates: v = v* − δt·1/2.
TEST(NcpSolvers, SoftPdLawGivesTheImplicitDamperVelocity) {
  for (const double limit : {std::numeric_limits<double>::infinity(), 1.0}) {
    ContactProblem problem(0.01);
    problem.AddClique(Eigen::MatrixXd::Constant(1, 1, 2.0));
    problem.SetFreeMotionVelocities(Eigen::VectorXd::Ones(1));
    problem.AddConstraint({{0, Eigen::MatrixXd::Ones(1, 1)}},
                          std::make_unique<PdControllerConstraint>(
                              PdControllerConstraint::Parameters{.derivative_gain = 10.0,
                                                                 .effort_limit = limit},
                              0.0));
    problem.Finalize();
    const ContactNcp ncp(problem);
    ASSERT_NE(ncp.soft_law(0), nullptr);
    const double expected = std::isinf(limit) ? 2.0 / 2.1 : 1.0 - 0.01 * 1.0 / 2.0;
    for (int solver : {0, 1, 2, 4, 5}) {
      NcpSolution solution;
      const NcpSolverStatistics stats = SolveWith(solver, ncp, &solution);
      EXPECT_TRUE(stats.converged) << stats.solver << " " << stats.status;
      EXPECT_NEAR(solution.v(0), expected, 1e-9) << stats.solver << " limit " << limit;
      EXPECT_NEAR(ncp.ToProblemImpulses(solution.lambda)(0), 2.0 * (expected - 1.0), 1e-9)
          << stats.solver;
    }
  }
}

TEST(ContactNcp, RejectsProblemsWithoutFrictionCones) {
  ContactProblem problem(0.01);
  problem.AddClique(Eigen::Matrix3d::Identity());
  problem.SetFreeMotionVelocities(Eigen::Vector3d::Zero());
  problem.AddConstraint(
      {{0, Eigen::Matrix3d::Identity()}},
      std::make_unique<AugmentedLagrangianCone>(1.0, 1.0, Eigen::Vector3d::Zero()));
  problem.Finalize();
  EXPECT_THROW(ContactNcp{problem}, std::invalid_argument);
}

}  // namespace
}  // namespace coulomb
