#include "coulomb/solvers/hessian_condition_number.h"

#include <gtest/gtest.h>

#include "coulomb/contact/random_contact_problem.h"
#include "test_support.h"

namespace coulomb {
namespace {

// ∇ℓ_p(v) = A (v − v*) − Jᵀ γ(v), computed from the problem's pieces.
Eigen::VectorXd Gradient(const ContactProblem& problem, const Eigen::VectorXd& v) {
  Eigen::VectorXd v_c, gamma_all(problem.num_constraint_equations()), gradient;
  problem.CalcConstraintVelocities(v, &v_c);
  for (int i = 0; i < problem.num_constraints(); ++i) {
    const int size = problem.constraint(i).potential->num_equations();
    ConstraintVector gamma;
    problem.constraint(i).potential->Evaluate(
        v_c.segment(problem.constraint_offset(i), size), &gamma, nullptr);
    gamma_all.segment(problem.constraint_offset(i), size) = gamma;
  }
  problem.MultiplyByA(v - problem.v_star(), &gradient);
  Eigen::VectorXd impulse = Eigen::VectorXd::Zero(problem.num_dofs());
  problem.AddJacobianTransposeTimes(gamma_all, &impulse);
  return gradient - impulse;
}

TEST(HessianConditionNumber, DenseHessianIsTheDerivativeOfTheGradient) {
  RandomContactProblemOptions options;
  options.num_bodies = 6;
  options.seed = 3;
  const ContactProblem problem = MakeRandomContactProblem(options);
  const Eigen::VectorXd v = problem.v_star() * 0.5;  // some contacts active
  const Eigen::MatrixXd numerical = testing::NumericalJacobian(
      [&problem](const Eigen::VectorXd& x) -> Eigen::VectorXd {
        return Gradient(problem, x);
      },
      v, 1e-7);
  const Eigen::MatrixXd hessian = AssembleDenseHessian(problem, v);
  // Central differences: truncation ~h² ℓ''', away from region boundaries.
  EXPECT_LT((hessian - numerical).norm(), 1e-5 * hessian.norm());
  EXPECT_LT((hessian - hessian.transpose()).norm(), 1e-12 * hessian.norm());
}

TEST(HessianConditionNumber, IsOneWithoutConstraintsForDiagonalInertia) {
  ContactProblem problem(0.01);
  problem.AddClique(Eigen::Vector3d(1.0, 20.0, 300.0).asDiagonal().toDenseMatrix());
  problem.SetFreeMotionVelocities(Eigen::Vector3d::Zero());
  problem.Finalize();
  // D A D = I: the scaling removes the mass ratios.
  EXPECT_NEAR(ScaledHessianConditionNumber(problem, Eigen::Vector3d::Zero()), 1.0, 1e-12);
}

}  // namespace
}  // namespace coulomb
