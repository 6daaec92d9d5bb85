#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "coulomb/contact/contact_problem.h"
#include "coulomb/contact/dense_problem_matrices.h"
#include "coulomb/contact/sap_friction_cone.h"
#include "coulomb/solvers/hessian_factorization.h"

namespace coulomb {
namespace {

// One dense clique of 8 dofs (a supernode larger than a body: the path that
// keeps A + JᵀGJ and updates it) and five contacts on it, with random A and J.
class DenseCliqueProblem {
 public:
  static constexpr int kDofs = 8;
  static constexpr int kContacts = 5;

  explicit DenseCliqueProblem(unsigned seed) : problem_(0.01), random_(seed) {
    const Eigen::MatrixXd b = Random(kDofs, kDofs);
    problem_.AddClique(b * b.transpose() + kDofs * Eigen::MatrixXd::Identity(kDofs, kDofs));
    problem_.SetFreeMotionVelocities(Eigen::VectorXd::Zero(kDofs));
    for (int i = 0; i < kContacts; ++i) {
      std::vector<JacobianBlock> jacobian;
      jacobian.push_back({0, Random(3, kDofs)});
      problem_.AddConstraint(std::move(jacobian), std::make_unique<SapFrictionCone>(
                                                      SapContactParameters{},
                                                      Eigen::Vector3d(0.0, 0.0, -0.1)));
    }
    problem_.Finalize();
  }

  // The same cliques and constraint pattern, new Jacobian values.
  void NewJacobians() {
    ContactProblem next(problem_.time_step());
    next.ResetCliquesFrom(problem_);
    for (int i = 0; i < kContacts; ++i) {
      ProblemConstraint& slot = next.EmplaceConstraint();
      slot.jacobian = {{0, Random(3, kDofs)}};
      slot.bias = ConstraintVector::Zero(3);
      slot.potential = std::make_unique<SapFrictionCone>(SapContactParameters{},
                                                          Eigen::Vector3d(0.0, 0.0, -0.1));
    }
    next.Finalize();
    problem_ = std::move(next);
  }

  // A random symmetric positive semidefinite G_i (zero when `open`).
  ConstraintMatrix RandomHessian(bool open = false) {
    if (open) return ConstraintMatrix::Zero(3, 3);
    const Eigen::Matrix3d b = Random(3, 3);
    return b * b.transpose() * 1e3;
  }

  // H⁻¹ rhs from H = A + Σ J_iᵀ G_i J_i formed densely: the reference.
  Eigen::VectorXd DenseSolve(const std::vector<ConstraintMatrix>& hessians,
                             const Eigen::VectorXd& rhs) const {
    Eigen::MatrixXd a, j;
    AssembleDenseA(problem_, &a);
    AssembleDenseJacobian(problem_, &j);
    Eigen::MatrixXd g = Eigen::MatrixXd::Zero(3 * kContacts, 3 * kContacts);
    for (int i = 0; i < kContacts; ++i) g.block<3, 3>(3 * i, 3 * i) = hessians[i];
    return (a + j.transpose() * g * j).llt().solve(rhs);
  }

  const ContactProblem& problem() const { return problem_; }

 private:
  Eigen::MatrixXd Random(int rows, int cols) {
    std::uniform_real_distribution<double> uniform(-1.0, 1.0);
    Eigen::MatrixXd m(rows, cols);
    for (int k = 0; k < m.size(); ++k) m.data()[k] = uniform(random_);
    return m;
  }

  ContactProblem problem_;
  std::mt19937 random_;
};

// The factor follows every change of H: one G_i changed (updated in place),
// none (kept), all (assembled anew), open contacts (G_i = 0), forty single
// changes in a row (round-off of the updates stays bounded), and a new
// problem whose G_i equal the last ones (J changed: nothing may be kept).
TEST(HessianFactorization, FollowsEveryChangeOfHWhenKeepingOrUpdatingIt) {
  for (LinearSolverType type : {LinearSolverType::kSparse, LinearSolverType::kDense}) {
    SCOPED_TRACE(type == LinearSolverType::kSparse ? "block sparse" : "dense");
    DenseCliqueProblem setup(7);
    std::unique_ptr<HessianFactorization> factorization =
        MakeHessianFactorization(type, setup.problem());
    const Eigen::VectorXd rhs = Eigen::VectorXd::LinSpaced(DenseCliqueProblem::kDofs, -1, 2);
    std::vector<ConstraintMatrix> hessians;
    for (int i = 0; i < DenseCliqueProblem::kContacts; ++i)
      hessians.push_back(setup.RandomHessian());

    const auto expect_solves_h = [&](const char* what) {
      SCOPED_TRACE(what);
      ASSERT_TRUE(factorization->Factor(setup.problem(), hessians));
      Eigen::VectorXd x = rhs;
      factorization->Solve(x);
      const Eigen::VectorXd expected = setup.DenseSolve(hessians, rhs);
      EXPECT_LT((x - expected).norm(), 1e-12 * expected.norm());
    };
    factorization->LoadJacobians(setup.problem());
    expect_solves_h("first");
    hessians[2] = setup.RandomHessian();
    expect_solves_h("one G changed");
    expect_solves_h("none changed");
    hessians[1] = setup.RandomHessian(/*open=*/true);
    hessians[4] = setup.RandomHessian(/*open=*/true);
    expect_solves_h("two contacts opened");
    for (ConstraintMatrix& g : hessians) g = setup.RandomHessian();
    expect_solves_h("all changed");
    for (int round = 0; round < 40; ++round) {
      hessians[round % DenseCliqueProblem::kContacts] = setup.RandomHessian(round % 3 == 0);
      expect_solves_h("one of forty single changes");
    }
    setup.NewJacobians();
    factorization->LoadJacobians(setup.problem());
    expect_solves_h("new Jacobians, same G");
  }
}

}  // namespace
}  // namespace coulomb
