#include "coulomb/solvers/subsystem_matrix.h"

#include <gtest/gtest.h>

#include "test_support.h"

namespace coulomb {
namespace {

using testing::MakeRandomTree;
using testing::RandomPointOnBody;

TEST(SubsystemMatrix, TreeFactorizationSolvesTheDenseAugmentedSystem) {
  // H = A + β Σ J_lᵀ J_l with links on random bodies (some bodies with
  // several points, some with none) and one joint-limit row e_kᵀ: the tree
  // path (composite point masses + TreeCholesky) against dense Cholesky.
  for (unsigned seed = 1; seed <= 10; ++seed) {
    const testing::RandomTree random =
        MakeRandomTree(4 + 2 * static_cast<int>(seed), seed);
    const int n = static_cast<int>(random.a.rows());
    const double penalty = 0.37 * seed;
    std::vector<BodyJacobian> bodies;
    for (int l = 0; l < n; ++l) {
      bodies.push_back(
          RandomPointOnBody((l * 7 + 3) % n, l % 2 ? 1.0 : -1.0, seed * 100 + l));
    }
    SubsystemMatrix tree_matrix, dense_matrix;
    tree_matrix.Reset(random.a, &random.tree);
    dense_matrix.Reset(random.a, nullptr);
    ASSERT_TRUE(tree_matrix.is_tree());
    Eigen::MatrixXd expected = random.a;
    for (int pass = 0; pass < 2; ++pass) {  // a second assembly starts from A again
      tree_matrix.BeginAssembly();
      dense_matrix.BeginAssembly();
      expected = random.a;
      for (const BodyJacobian& body : bodies) {
        const Eigen::Matrix<double, 3, Eigen::Dynamic> jacobian =
            testing::DenseBlock(random.tree, {body});
        // Each link with its own penalty β_l (SubADMM scales β per constraint).
        const double link_penalty = penalty * (1.0 + 0.5 * body.dof);
        tree_matrix.AddLink(jacobian, body.dof, body.map, link_penalty);
        dense_matrix.AddLink(jacobian, -1, body.map, link_penalty);
        expected += link_penalty * jacobian.transpose() * jacobian;
      }
      Eigen::Matrix<double, 3, Eigen::Dynamic> limit = Eigen::MatrixXd::Zero(3, n);
      limit(2, n - 1) = -1.0;
      tree_matrix.AddLink(limit, -1, Eigen::Matrix<double, 3, 6>::Zero(), penalty);
      dense_matrix.AddLink(limit, -1, Eigen::Matrix<double, 3, 6>::Zero(), penalty);
      expected += penalty * limit.transpose() * limit;
      ASSERT_TRUE(tree_matrix.Factor());
      ASSERT_TRUE(dense_matrix.Factor());
    }
    const Eigen::VectorXd b = Eigen::VectorXd::LinSpaced(n, -2.0, 1.0);
    Eigen::VectorXd x_tree = b, x_dense = b;
    tree_matrix.SolveInPlace(x_tree);
    dense_matrix.SolveInPlace(x_dense);
    // Both backward stable; a relative residual at rounding level checks
    // that each solved H x = b, not just that they agree.
    EXPECT_LT((expected * x_tree - b).norm(), 1e-10 * expected.norm() * x_tree.norm())
        << "seed " << seed;
    EXPECT_LT((expected * x_dense - b).norm(), 1e-10 * expected.norm() * x_dense.norm());
  }
}

TEST(SubsystemMatrix, RowsOnOneChainKeepTheTreePattern) {
  CliqueTree tree;
  tree.parent = {-1, 0, 1, 0, 3};  // two branches 0-1-2 and 0-3-4
  tree.motion.setZero(6, 5);
  Eigen::Matrix<double, 3, Eigen::Dynamic> rows = Eigen::MatrixXd::Zero(3, 5);
  rows(0, 0) = rows(1, 2) = 1.0;  // dofs 0 and 2: one chain
  EXPECT_TRUE(SubsystemMatrix::OnOneChain(tree, rows));
  rows(2, 4) = 1.0;  // and dof 4, on the other branch
  EXPECT_FALSE(SubsystemMatrix::OnOneChain(tree, rows));
  EXPECT_TRUE(SubsystemMatrix::OnOneChain(tree, Eigen::MatrixXd::Zero(3, 5)));
}

}  // namespace
}  // namespace coulomb
