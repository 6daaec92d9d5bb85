#include "coulomb/math/body_block_kernels.h"

#include <gtest/gtest.h>
#include <Eigen/Dense>

namespace coulomb {
namespace {

using Block6 = Eigen::Matrix<double, 6, 6>;

// T −= A Bᵀ against the triple sum written out, for both kernels (the AVX2
// one where the processor has it) and for the one chosen at run time.
void ExpectSubtractsOuterProduct(OuterProduct6Kernel kernel) {
  for (int trial = 0; trial < 20; ++trial) {
    const Block6 a = Block6::Random(), b = Block6::Random(), t0 = Block6::Random();
    Block6 expected = t0;
    for (int i = 0; i < 6; ++i) {
      for (int j = 0; j < 6; ++j) {
        for (int k = 0; k < 6; ++k) expected(i, j) -= a(i, k) * b(j, k);
      }
    }
    Block6 t = t0;
    kernel(t.data(), a.data(), b.data());
    EXPECT_LT((t - expected).cwiseAbs().maxCoeff(), 1e-14);
  }
}

TEST(BodyBlockKernels, PortableOuterProductUpdate) {
  ExpectSubtractsOuterProduct(&SubtractOuterProduct6Portable);
}

TEST(BodyBlockKernels, Avx2OuterProductUpdate) {
  const OuterProduct6Kernel avx2 = SubtractOuterProduct6Avx2();
  if (avx2 == nullptr) GTEST_SKIP() << "this processor has no AVX2 and FMA";
  ExpectSubtractsOuterProduct(avx2);
}

TEST(BodyBlockKernels, DispatchedOuterProductUpdate) {
  ExpectSubtractsOuterProduct(SubtractOuterProduct6Kernel());
}

// T += Aᵀ B for 3 × 6 slices of taller matrices (strides 5 and 7), against
// the product of the slices copied out.
void ExpectAddsTransposeProduct(TransposeProduct3x6Kernel kernel) {
  for (int trial = 0; trial < 20; ++trial) {
    const Eigen::MatrixXd a_rows = Eigen::MatrixXd::Random(5, 6);
    const Eigen::MatrixXd b_rows = Eigen::MatrixXd::Random(7, 6);
    const Block6 t0 = Block6::Random();
    const Block6 expected =
        t0 + a_rows.middleRows(1, 3).transpose() * b_rows.middleRows(2, 3);
    Block6 t = t0;
    kernel(t.data(), &a_rows(1, 0), 5, &b_rows(2, 0), 7);
    EXPECT_LT((t - expected).cwiseAbs().maxCoeff(), 1e-14);
  }
}

TEST(BodyBlockKernels, PortableContactTerm) {
  ExpectAddsTransposeProduct(&AddTransposeProduct3x6Portable);
}

TEST(BodyBlockKernels, Avx2ContactTerm) {
  const TransposeProduct3x6Kernel avx2 = AddTransposeProduct3x6Avx2();
  if (avx2 == nullptr) GTEST_SKIP() << "this processor has no AVX2 and FMA";
  ExpectAddsTransposeProduct(avx2);
}

TEST(BodyBlockKernels, DispatchedContactTerm) {
  ExpectAddsTransposeProduct(AddTransposeProduct3x6Kernel());
}

// X ← X L⁻ᵀ against Eigen's triangular solve.
void ExpectSolvesAgainstPivot(PivotSolve6Kernel kernel) {
  for (int trial = 0; trial < 20; ++trial) {
    const Block6 m = Block6::Random();
    Block6 l = (m * m.transpose() + 6.0 * Block6::Identity()).llt().matrixL();
    l.triangularView<Eigen::StrictlyUpper>().setConstant(1e6);  // must not be read
    const Block6 h = Block6::Random();
    const Block6 expected =
        l.triangularView<Eigen::Lower>().solve(h.transpose()).transpose();
    Block6 x = h;
    kernel(l.data(), x.data());
    EXPECT_LT((x - expected).cwiseAbs().maxCoeff(), 1e-13);
  }
}

TEST(BodyBlockKernels, PortablePivotSolve) {
  ExpectSolvesAgainstPivot(&SolveAgainstPivot6Portable);
}

TEST(BodyBlockKernels, Avx2PivotSolve) {
  const PivotSolve6Kernel avx2 = SolveAgainstPivot6Avx2();
  if (avx2 == nullptr) GTEST_SKIP() << "this processor has no AVX2 and FMA";
  ExpectSolvesAgainstPivot(avx2);
}

TEST(BodyBlockKernels, DispatchedPivotSolve) {
  ExpectSolvesAgainstPivot(SolveAgainstPivot6Kernel());
}

}  // namespace
}  // namespace coulomb
