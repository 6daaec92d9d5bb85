// A contact model written outside the library: a subclass of ConvexConstraint
// and nothing else. SAP minimizes its potential, CANAL solves its rigid law,
// both through the ContactSolver interface, with no change to solvers/.
#include <memory>

#include <gtest/gtest.h>

#include "coulomb/contact/contact_problem.h"
#include "coulomb/contact/convex_constraint.h"
#include "coulomb/solvers/contact_solver.h"

namespace coulomb {
namespace {

// Penalty contact with viscous friction, v_c = [v_t; v_n]:
//   ℓ(v_c) = ½ c_t ‖v_t‖² + ½ c_n min(0, v_n)²,
// γ = −∂ℓ/∂v_c = (−c_t v_t, c_n max(0, −v_n)), G = diag(c_t, c_t, c_n [v_n < 0]).
// Its rigid counterpart: Coulomb friction μ, no position feedback.
class ToyPenaltyContact final : public ConvexConstraint {
 public:
  ToyPenaltyContact(double tangential, double normal, double friction)
      : c_t_(tangential), c_n_(normal), friction_(friction) {}
  int num_equations() const override { return 3; }
  void Prepare(const ConstraintMatrix&, double) override {}
  double Evaluate(const ConstraintVector& v_c, ConstraintVector* gamma,
                  ConstraintMatrix* hessian) const override {
    const double closing = std::min(0.0, v_c(2));
    gamma->resize(3);
    *gamma << -c_t_ * v_c(0), -c_t_ * v_c(1), -c_n_ * closing;
    if (hessian) {
      hessian->setZero(3, 3);
      (*hessian)(0, 0) = (*hessian)(1, 1) = c_t_;
      (*hessian)(2, 2) = closing < 0.0 ? c_n_ : 0.0;
    }
    return 0.5 * c_t_ * v_c.head(2).squaredNorm() + 0.5 * c_n_ * closing * closing;
  }
  RigidLaw rigid_law() const override {
    return {.kind = RigidLaw::Kind::kContact, .friction = friction_};
  }

 private:
  double c_t_, c_n_, friction_;
};

// A particle of mass m (A = m I) hitting the ground while sliding, v* =
// (1, 0, −2) m/s, one contact with J = I.
constexpr double kMass = 2.0;
ContactProblem SlidingParticle(double c_t, double c_n, double friction) {
  ContactProblem problem(0.01);
  problem.AddClique(kMass * Eigen::Matrix3d::Identity());
  problem.SetFreeMotionVelocities(Eigen::Vector3d(1.0, 0.0, -2.0));
  problem.AddConstraint({{.clique = 0, .matrix = Eigen::Matrix3d::Identity()}},
                        std::make_unique<ToyPenaltyContact>(c_t, c_n, friction));
  problem.Finalize();
  return problem;
}

ContactSolution Solve(ContactSolverKind kind, const ContactProblem& problem) {
  ContactSolverOptions options;
  options.kind = kind;
  options.sap.rel_tolerance = 1e-12;
  options.ncp.tolerance = 1e-12;
  ContactSolution solution;
  const ContactSolverStatistics stats =
      MakeContactSolver(options, SolverUse::kSingleProblem)
          ->Solve(problem, Eigen::VectorXd(), Eigen::VectorXd(), &solution);
  EXPECT_TRUE(stats.converged()) << ToString(kind) << ": " << stats.status;
  return solution;
}

TEST(ToyContactModel, SapMinimizesItsPotential) {
  // Stationarity m (v − v*) = γ(v), per axis: v = m v* / (m + c).
  const double c_t = 3.0, c_n = 50.0;
  const ContactSolution solution =
      Solve(ContactSolverKind::kSap, SlidingParticle(c_t, c_n, 0.25));
  EXPECT_NEAR(solution.v(0), kMass * 1.0 / (kMass + c_t), 1e-10);
  EXPECT_NEAR(solution.v(1), 0.0, 1e-12);
  EXPECT_NEAR(solution.v(2), kMass * -2.0 / (kMass + c_n), 1e-10);
  EXPECT_NEAR(solution.impulses(2), c_n * kMass * 2.0 / (kMass + c_n), 1e-9);
}

TEST(ToyContactModel, CanalSolvesItsRigidLaw) {
  // Rigid contact stops the fall: λ_n = m·2 = 4 N·s, v_n = 0. Friction can
  // take at most μ λ_n = 1 N·s < m·1 = 2 N·s needed to stop the slide, so
  // the particle slides on: λ_t = −1 N·s, v_t = 1 − 1/m = 0.5 m/s.
  const ContactSolution solution =
      Solve(ContactSolverKind::kCanal, SlidingParticle(3.0, 50.0, 0.25));
  EXPECT_NEAR(solution.impulses(2), 4.0, 1e-8);
  EXPECT_NEAR(solution.impulses(0), -1.0, 1e-8);
  EXPECT_NEAR(solution.v(0), 0.5, 1e-8);
  EXPECT_NEAR(solution.v(2), 0.0, 1e-8);
}

TEST(ToyContactModel, NcpSolversRefuseAPotentialWithoutARigidLaw) {
  class NoLaw final : public ConvexConstraint {
   public:
    int num_equations() const override { return 3; }
    void Prepare(const ConstraintMatrix&, double) override {}
    double Evaluate(const ConstraintVector&, ConstraintVector* gamma,
                    ConstraintMatrix* hessian) const override {
      gamma->setZero(3);
      if (hessian) hessian->setZero(3, 3);
      return 0.0;
    }
  };
  ContactProblem problem(0.01);
  problem.AddClique(Eigen::Matrix3d::Identity());
  problem.SetFreeMotionVelocities(Eigen::Vector3d::Zero());
  problem.AddConstraint({{.clique = 0, .matrix = Eigen::Matrix3d::Identity()}},
                        std::make_unique<NoLaw>());
  problem.Finalize();
  ContactSolution solution;
  for (ContactSolverKind kind : {ContactSolverKind::kCanal, ContactSolverKind::kSubAdmm,
                                 ContactSolverKind::kPgs}) {
    ContactSolverOptions options;
    options.kind = kind;
    EXPECT_THROW(MakeContactSolver(options, SolverUse::kSingleProblem)
                     ->Solve(problem, Eigen::VectorXd(), Eigen::VectorXd(), &solution),
                 std::invalid_argument)
        << ToString(kind);
  }
}

}  // namespace
}  // namespace coulomb
