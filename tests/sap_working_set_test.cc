// SapSolver's working set (SapSolverParameters::working_set): solving on the
// constraints with an impulse, adding the ones found active, gives the whole
// problem's minimizer.

#include <memory>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "coulomb/contact/sap_friction_cone.h"
#include "coulomb/solvers/sap_solver.h"

namespace coulomb {
namespace {

// Unit spheres (m = 1 kg, I = 0.4 kg·m²) on the x axis, body 0 moving at
// 2 m/s in v*, the others at rest; frictional contacts along x.
class SpheresOnALine {
 public:
  SpheresOnALine(int num_bodies, double friction) : problem_(0.01) {
    Eigen::Matrix<double, 6, 6> mass = Eigen::Matrix<double, 6, 6>::Identity();
    mass.bottomRightCorner<3, 3>() *= 0.4;
    for (int body = 0; body < num_bodies; ++body) problem_.AddClique(mass);
    Eigen::VectorXd v_star = Eigen::VectorXd::Zero(6 * num_bodies);
    v_star(0) = 2.0;
    problem_.SetFreeMotionVelocities(v_star);
    parameters_.friction = friction;
  }
  // Contact frame: t1 = y, t2 = z, n = x from a to b (v_n > 0 separating).
  void AddContact(int a, int b, double gap) {
    Eigen::Matrix<double, 3, 6> j_b = Eigen::Matrix<double, 3, 6>::Zero();
    j_b(0, 1) = j_b(1, 2) = j_b(2, 0) = 1.0;
    problem_.AddConstraint({{a, -j_b}, {b, j_b}},
                           std::make_unique<SapFrictionCone>(
                               SapFrictionCone::AtSignedDistance(parameters_, gap)));
  }
  ContactProblem Finalized() {
    problem_.Finalize();
    return std::move(problem_);
  }

 private:
  ContactProblem problem_;
  SapContactParameters parameters_;
};

// Body 0 hits body 1 (1 mm away), which pushes body 2 (1 mm further): no
// contact active at v* or at rest shows the second contact, which joins the
// working set in a later round. The far pairs (0.2 m apart, at rest) are
// speculative contacts that never engage.
ContactProblem ChainWithSpeculativeContacts(int num_far_pairs, double friction) {
  SpheresOnALine spheres(3 + 2 * num_far_pairs, friction);
  spheres.AddContact(0, 1, 1e-3);
  spheres.AddContact(1, 2, 1e-3);
  for (int pair = 0; pair < num_far_pairs; ++pair)
    spheres.AddContact(3 + 2 * pair, 4 + 2 * pair, 0.2);
  return spheres.Finalized();
}

SapSolverParameters Parameters(bool working_set) {
  SapSolverParameters parameters;
  parameters.rel_tolerance = 1e-10;
  parameters.working_set = working_set;
  return parameters;
}

TEST(SapWorkingSet, GivesTheWholeProblemsMinimizer) {
  for (const double friction : {0.0, 0.5}) {
    const ContactProblem problem = ChainWithSpeculativeContacts(8, friction);
    SapSolution whole, working;
    SapSolver whole_solver(Parameters(false));
    SapSolver working_solver(Parameters(true));
    const Eigen::VectorXd at_rest = Eigen::VectorXd::Zero(problem.num_dofs());
    const SapSolverStatistics whole_stats = whole_solver.Solve(problem, at_rest, &whole);
    const SapSolverStatistics stats = working_solver.Solve(problem, at_rest, &working);
    ASSERT_TRUE(whole_stats.converged());
    ASSERT_TRUE(stats.converged()) << ToString(stats.status);
    EXPECT_EQ(whole_stats.working_set_rounds, 0);
    // The set started with the first contact and took in the second.
    EXPECT_GE(stats.working_set_rounds, 2);
    EXPECT_EQ(stats.working_set_size, 2);
    EXPECT_LE(stats.momentum_error, 1e-10);
    // Both minimize the same strongly convex ℓ_p to ‖D∇ℓ‖ ≤ 1e-10 |p|: the
    // minimizers agree to that order (D ≈ 1 here, |p| ≈ 2 kg·m/s).
    EXPECT_LE((working.v - whole.v).lpNorm<Eigen::Infinity>(), 1e-8);
    EXPECT_LE((working.gamma - whole.gamma).lpNorm<Eigen::Infinity>(), 1e-8);
    EXPECT_NEAR(stats.cost, whole_stats.cost, 1e-10 * whole_stats.cost);
    // The impulse went down the chain: body 2 moves.
    EXPECT_GT(working.v(12), 0.1);
    // v_c and γ are the whole problem's, the speculative contacts' γ zero.
    EXPECT_EQ(working.v_c.size(), problem.num_constraint_equations());
    EXPECT_TRUE(working.gamma.tail(3 * 8).isZero(0.0));
  }
}

// Where the constraints left out would not change the Hessian's coupling
// (a speculative contact between two bodies already in contact), the whole
// problem is solved at once (no round).
TEST(SapWorkingSet, SkippedWhenItWouldNotThinTheCoupling) {
  SpheresOnALine spheres(2, 0.5);
  spheres.AddContact(0, 1, 1e-3);
  spheres.AddContact(0, 1, 0.2);
  const ContactProblem problem = spheres.Finalized();
  SapSolver solver(Parameters(true));
  SapSolution solution;
  const SapSolverStatistics stats =
      solver.Solve(problem, Eigen::VectorXd::Zero(problem.num_dofs()), &solution);
  ASSERT_TRUE(stats.converged());
  EXPECT_EQ(stats.working_set_rounds, 0);
  EXPECT_EQ(stats.working_set_size, problem.num_constraints());
}

}  // namespace
}  // namespace coulomb
