#include "coulomb/math/small_block_products.h"

#include <cmath>
#include <random>

#include <gtest/gtest.h>

#include "test_support.h"

namespace coulomb {
namespace {

// The few-row products (a constraint's rows on a tree) against Eigen's.
TEST(SmallBlockProducts, FewRowBlocksMultiplyAsTheirMatrices) {
  std::mt19937 random(11);
  for (int rows = 1; rows <= 7; ++rows) {
    for (const int cols : {1, 5, 6, 14, 40}) {
      const Eigen::MatrixXd block = testing::NormalMatrix(rows, cols, &random);
      const Eigen::VectorXd x = testing::NormalMatrix(cols, 1, &random);
      const Eigen::VectorXd x_t = testing::NormalMatrix(rows, 1, &random);
      for (const double sign : {1.0, -1.0}) {
        const Eigen::VectorXd y0 = testing::NormalMatrix(rows, 1, &random);
        Eigen::VectorXd y = y0;
        AddBlockTimes(block.data(), rows, cols, x.data(), y.data(), sign);
        EXPECT_LE((y - (y0 + sign * block * x)).norm(), 1e-13 * (1 + y.norm()));
        const Eigen::VectorXd z0 = testing::NormalMatrix(cols, 1, &random);
        Eigen::VectorXd z = z0;
        AddBlockTransposeTimes(block.data(), rows, cols, x_t.data(), z.data(), sign);
        EXPECT_LE((z - (z0 + sign * block.transpose() * x_t)).norm(),
                  1e-13 * (1 + z.norm()));
      }
    }
  }
}

// The lower triangle of T + Jᵀ X against Eigen's product, for odd and even
// sizes and no rows at all; the strict upper triangle is left alone.
TEST(SmallBlockProducts, LowerTransposeProductIsTheLowerTriangleOfTheProduct) {
  std::mt19937 random(13);
  for (const int rows : {0, 1, 3, 12, 25}) {
    for (const int n : {1, 2, 3, 6, 7, 14, 15}) {
      const Eigen::MatrixXd j = testing::NormalMatrix(rows, n, &random);
      const Eigen::MatrixXd x = testing::NormalMatrix(rows, n, &random);
      const Eigen::MatrixXd t0 = testing::NormalMatrix(n, n, &random);
      Eigen::MatrixXd t = t0;
      AddLowerTransposeProduct(j.data(), x.data(), rows, n, t.data());
      const Eigen::MatrixXd expected = t0 + j.transpose() * x;
      for (int b = 0; b < n; ++b) {
        for (int a = 0; a < n; ++a) {
          const double want = a >= b ? expected(a, b) : t0(a, b);
          EXPECT_NEAR(t(a, b), want, 1e-13 * (1.0 + std::abs(want)))
              << rows << " rows, n = " << n << ", entry " << a << ", " << b;
        }
      }
    }
  }
}

}  // namespace
}  // namespace coulomb
