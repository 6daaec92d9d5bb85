#include "coulomb/math/tree_cholesky.h"

#include <limits>
#include <random>

#include <gtest/gtest.h>

namespace coulomb {
namespace {

// A random tree of dofs and a random SPD matrix with its branch-induced
// pattern: H = I + Σ bᵀ b over rows b supported on root-to-dof chains (what
// a point mass at a body adds to a mass matrix).
struct RandomTreeMatrix {
  std::vector<int> parent;
  Eigen::MatrixXd dense;
};

RandomTreeMatrix MakeRandomTreeMatrix(int n, unsigned seed) {
  std::mt19937 random(seed);
  RandomTreeMatrix result;
  for (int k = 0; k < n; ++k) {
    result.parent.push_back(std::uniform_int_distribution<int>(-1, k - 1)(random));
  }
  result.dense = Eigen::MatrixXd::Identity(n, n);
  std::normal_distribution<double> normal;
  for (int sample = 0; sample < 3 * n; ++sample) {
    Eigen::VectorXd b = Eigen::VectorXd::Zero(n);
    for (int k = std::uniform_int_distribution<int>(0, n - 1)(random); k >= 0;
         k = result.parent[k]) {
      b(k) = normal(random);
    }
    result.dense += b * b.transpose();
  }
  return result;
}

bool IsAncestorOrSelf(const std::vector<int>& parent, int ancestor, int k) {
  for (; k >= 0; k = parent[k]) {
    if (k == ancestor) return true;
  }
  return false;
}

TEST(TreeCholesky, SolvesLikeDenseCholeskyWithoutReadingOffPatternEntries) {
  for (unsigned seed = 1; seed <= 20; ++seed) {
    const RandomTreeMatrix h = MakeRandomTreeMatrix(1 + static_cast<int>(seed) * 3, seed);
    const int n = static_cast<int>(h.parent.size());
    TreeCholesky factorization(h.parent);
    // Off-pattern entries are NaN: any read of them would spoil the result.
    factorization.mutable_matrix() = h.dense;
    for (int l = 0; l < n; ++l) {
      for (int k = 0; k < n; ++k) {
        if (!IsAncestorOrSelf(h.parent, k, l) && !IsAncestorOrSelf(h.parent, l, k)) {
          ASSERT_EQ(h.dense(l, k), 0.0) << "the generator left the pattern";
          factorization.mutable_matrix()(l, k) = std::numeric_limits<double>::quiet_NaN();
        }
      }
    }
    ASSERT_TRUE(factorization.Factor());
    const Eigen::VectorXd b = Eigen::VectorXd::LinSpaced(n, -1.0, 2.0);
    Eigen::VectorXd x = b;
    factorization.SolveInPlace(x);
    const Eigen::VectorXd expected = h.dense.llt().solve(b);
    // Both are backward stable; H's condition number is below 1e4 here.
    EXPECT_LT((x - expected).norm(), 1e-11 * expected.norm()) << "seed " << seed;
    EXPECT_LT((h.dense * x - b).norm(), 1e-12 * h.dense.norm() * x.norm());
  }
}

TEST(TreeCholesky, HalfSolvesGiveTheInverseQuadraticFormAndKeepABranchsSupport) {
  // X ← L⁻ᵀ X on three columns, each nonzero on one dof's chain to its root
  // (a contact's Jacobian rows on a tree): (L⁻ᵀX)ᵀ(L⁻ᵀX) = Xᵀ H⁻¹ X against
  // Eigen's dense inverse, and L⁻ᵀX still zero off that chain.
  for (unsigned seed = 1; seed <= 10; ++seed) {
    const RandomTreeMatrix h = MakeRandomTreeMatrix(4 + static_cast<int>(seed) * 2, seed);
    const int n = static_cast<int>(h.parent.size());
    TreeCholesky factorization(h.parent);
    factorization.mutable_matrix() = h.dense;
    ASSERT_TRUE(factorization.Factor());
    const int dof = n - 1 - static_cast<int>(seed) % 3;
    Eigen::MatrixXd x = Eigen::MatrixXd::Zero(n, 3);
    for (int k = dof; k >= 0; k = h.parent[k]) {
      x.row(k) << 1.0 + k, -0.5 * k, 2.0 - 0.1 * k;
    }
    Eigen::MatrixXd y = x;
    factorization.SolveFactorTransposeInPlace(y.data(), 3);
    const Eigen::Matrix3d expected = x.transpose() * h.dense.inverse() * x;
    EXPECT_LT((y.transpose() * y - expected).norm(), 1e-11 * expected.norm()) << seed;
    for (int k = 0; k < n; ++k) {
      if (!IsAncestorOrSelf(h.parent, k, dof)) {
        EXPECT_EQ(y.row(k).norm(), 0.0) << k;
      }
    }
  }
}

TEST(TreeCholesky, ReportsMatricesThatAreNotPositiveDefinite) {
  TreeCholesky factorization({-1, 0, 1});
  factorization.mutable_matrix() << 1, 0, 0, 2, 1, 0, 0, 0, 1;  // H_10 = 2 > √(H_00 H_11)
  EXPECT_FALSE(factorization.Factor());
}

TEST(TreeCholesky, RejectsParentsThatDoNotPrecedeTheirChildren) {
  EXPECT_THROW(TreeCholesky({-1, 1}), std::invalid_argument);
  EXPECT_THROW(TreeCholesky({-2}), std::invalid_argument);
}

}  // namespace
}  // namespace coulomb
