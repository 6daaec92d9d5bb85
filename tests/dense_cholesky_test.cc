#include "coulomb/math/dense_cholesky.h"

#include <limits>
#include <random>

#include <gtest/gtest.h>

#include "test_support.h"

namespace coulomb {
namespace {

// A random SPD matrix B Bᵀ + I of size n, its condition spread by B's scale.
Eigen::MatrixXd RandomSpd(int n, std::mt19937* random) {
  const Eigen::MatrixXd b = testing::NormalMatrix(n, n, random);
  return b * b.transpose() + Eigen::MatrixXd::Identity(n, n);
}

// Sizes on both sides of the plain loops' bound.
constexpr int kSizes[] = {
    1, 2, 3, 6, 7, 14, 31, kPlainLoopsMaxSize, kPlainLoopsMaxSize + 1, 90};

TEST(DenseCholesky, FactorTimesItsTransposeIsTheMatrixAndTheUpperTriangleIsKept) {
  std::mt19937 random(3);
  for (const int n : kSizes) {
    const Eigen::MatrixXd a = RandomSpd(n, &random);
    Eigen::MatrixXd factor = a;
    factor.triangularView<Eigen::StrictlyUpper>().setConstant(7.0);
    ASSERT_TRUE(CholeskyInPlace(&factor)) << n;
    const Eigen::MatrixXd l = factor.triangularView<Eigen::Lower>();
    EXPECT_LE((l * l.transpose() - a).norm(), 1e-13 * a.norm()) << n;
    EXPECT_TRUE((l.diagonal().array() > 0.0).all()) << n;
    for (int j = 1; j < n; ++j) {
      for (int i = 0; i < j; ++i) ASSERT_EQ(factor(i, j), 7.0) << n;
    }
  }
}

TEST(DenseCholesky, SolvesWithTheFactorInvertTheMatrix) {
  std::mt19937 random(5);
  for (const int n : kSizes) {
    const Eigen::MatrixXd a = RandomSpd(n, &random);
    Eigen::MatrixXd l = a;
    ASSERT_TRUE(CholeskyInPlace(&l));
    // X = L⁻¹ B for several columns at once (taken three, two or one at a
    // time), then x = L⁻ᵀ (L⁻¹ b) = A⁻¹ b.
    for (const int columns : {1, 2, 3, 4, 5, 7}) {
      const Eigen::MatrixXd b = testing::NormalMatrix(n, columns, &random);
      Eigen::MatrixXd x = b;
      SolveLowerInPlace(l, x.data(), columns);
      EXPECT_LE((l.triangularView<Eigen::Lower>() * x - b).norm(), 1e-12 * b.norm())
          << n << " × " << columns;
      for (int c = 0; c < columns; ++c) SolveLowerTransposeInPlace(l, x.col(c).data());
      EXPECT_LE((a * x - b).norm(), 1e-11 * b.norm()) << n << " × " << columns;
    }
  }
}

TEST(DenseCholesky, RefusesMatricesThatAreNotPositiveDefinite) {
  std::mt19937 random(7);
  for (const int n : kSizes) {
    Eigen::MatrixXd a = RandomSpd(n, &random);
    a(n - 1, n - 1) = -1.0;  // the last pivot: everything before it factors
    EXPECT_FALSE(CholeskyInPlace(&a)) << n;
    Eigen::MatrixXd nan = RandomSpd(n, &random);
    nan(0, 0) = std::numeric_limits<double>::quiet_NaN();
    EXPECT_FALSE(CholeskyInPlace(&nan)) << n;
    Eigen::MatrixXd infinite = RandomSpd(n, &random);
    infinite(n / 2, n / 2) = std::numeric_limits<double>::infinity();
    EXPECT_FALSE(CholeskyInPlace(&infinite)) << n;
  }
}

}  // namespace
}  // namespace coulomb
