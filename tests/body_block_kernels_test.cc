#include "coulomb/math/body_block_kernels.h"

#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <string>
#include <vector>

namespace coulomb {
namespace {

using Block6 = Eigen::Matrix<double, 6, 6>;

// The three kernels of one variant: portable (Eigen), AVX2/FMA (null where
// the processor lacks it) and the one chosen at run time.
struct KernelSet {
  const char* name;
  OuterProducts6Kernel outer_products;
  TransposeProduct3x6Kernel transpose_product;
  PivotSolve6Kernel pivot_solve;
  Congruence3x6Kernel congruence;
  DiagonalCongruence3x6Kernel diagonal_congruence;
  ColumnTimes6Kernel column_times;
  ColumnTransposeTimes6Kernel column_transpose_times;
  Times3x6Kernel contact_times;
  Times3x6Kernel contact_transpose_times;
  Product3x3By3x6Kernel hessian_times_jacobian;
  PivotFactor6Kernel pivot_factor;
  BlockTimes6Kernel times;
  TriangularSolve6Kernel lower_solve;
  TriangularSolve6Kernel lower_transpose_solve;
  ContactRowsProductKernel contact_rows_times;
  ContactRowsTransposeProductKernel contact_rows_transpose_times;
};

KernelSet PortableKernels() {
  return {"portable",
          &SubtractOuterProducts6Portable,
          &AddTransposeProduct3x6Portable,
          &SolveAgainstPivot6Portable,
          &AddCongruence3x6Portable,
          &AddDiagonalCongruence3x6Portable,
          &SubtractColumnTimes6Portable,
          &SubtractColumnTransposeTimes6Portable,
          &AddTimes3x6Portable,
          &AddTransposeTimes3x6Portable,
          &Times3x3By3x6Portable,
          &FactorPivot6Portable,
          &Times6Portable,
          &SolveLower6Portable,
          &SolveLowerTranspose6Portable,
          &ContactRowsTimesPortable,
          &ContactRowsTransposeTimesPortable};
}
KernelSet Avx2Kernels() {
  return {"avx2",
          SubtractOuterProducts6Avx2(),
          AddTransposeProduct3x6Avx2(),
          SolveAgainstPivot6Avx2(),
          AddCongruence3x6Avx2(),
          AddDiagonalCongruence3x6Avx2(),
          SubtractColumnTimes6Avx2(),
          SubtractColumnTransposeTimes6Avx2(),
          AddTimes3x6Avx2(),
          AddTransposeTimes3x6Avx2(),
          Times3x3By3x6Avx2(),
          FactorPivot6Avx2(),
          Times6Avx2(),
          SolveLower6Avx2(),
          SolveLowerTranspose6Avx2(),
          ContactRowsTimesAvx2(),
          ContactRowsTransposeTimesAvx2()};
}
KernelSet DispatchedKernels() {
  return {"dispatched",
          SubtractOuterProducts6Kernel(),
          AddTransposeProduct3x6Kernel(),
          SolveAgainstPivot6Kernel(),
          AddCongruence3x6Kernel(),
          AddDiagonalCongruence3x6Kernel(),
          SubtractColumnTimes6Kernel(),
          SubtractColumnTransposeTimes6Kernel(),
          AddTimes3x6Kernel(),
          AddTransposeTimes3x6Kernel(),
          Times3x3By3x6Kernel(),
          FactorPivot6Kernel(),
          Times6Kernel(),
          SolveLower6Kernel(),
          SolveLowerTranspose6Kernel(),
          ContactRowsTimesKernel(),
          ContactRowsTransposeTimesKernel()};
}

class BodyBlockKernels : public ::testing::TestWithParam<KernelSet (*)()> {
 protected:
  void SetUp() override {
    kernels_ = GetParam()();
    if (kernels_.outer_products == nullptr)
      GTEST_SKIP() << "this processor has no AVX2 and FMA";
  }
  KernelSet kernels_;
};

// T −= A Bᵀ against the triple sum written out, for a list of updates in
// one array: runs that share a left block (read once by the AVX2 kernel),
// targets hit twice, a right block equal to the left one (a diagonal
// update), and a target that is the right block of a later update.
TEST_P(BodyBlockKernels, OuterProductUpdates) {
  for (int trial = 0; trial < 20; ++trial) {
    constexpr int kBlocks = 7;
    std::vector<Block6> blocks(kBlocks);
    for (Block6& block : blocks) block = Block6::Random();
    const auto offset = [](int block) { return std::int64_t{36} * block; };
    const std::vector<BodyBlockUpdate> updates = {
        {offset(4), offset(0), offset(1)}, {offset(5), offset(0), offset(0)},
        {offset(6), offset(0), offset(2)}, {offset(4), offset(1), offset(2)},
        {offset(3), offset(1), offset(6)}, {offset(6), offset(2), offset(4)}};
    std::vector<Block6> expected = blocks;
    for (const BodyBlockUpdate& u : updates) {
      const Block6 a = expected[u.left / 36], b = expected[u.right / 36];
      Block6& t = expected[u.target / 36];
      for (int i = 0; i < 6; ++i) {
        for (int j = 0; j < 6; ++j) {
          for (int k = 0; k < 6; ++k) t(i, j) -= a(i, k) * b(j, k);
        }
      }
    }
    std::vector<double> values(36 * kBlocks);
    for (int block = 0; block < kBlocks; ++block)
      Eigen::Map<Block6>(values.data() + offset(block)) = blocks[block];
    kernels_.outer_products(values.data(), updates.data(), updates.size());
    for (int block = 0; block < kBlocks; ++block) {
      EXPECT_LT(
          (Eigen::Map<const Block6>(values.data() + offset(block)) - expected[block])
              .cwiseAbs()
              .maxCoeff(),
          1e-13)
          << "block " << block;
    }
  }
}

// T += Aᵀ B for 3 × 6 slices of taller matrices (strides 5 and 7), against
// the product of the slices copied out.
TEST_P(BodyBlockKernels, ContactTerm) {
  for (int trial = 0; trial < 20; ++trial) {
    const Eigen::MatrixXd a_rows = Eigen::MatrixXd::Random(5, 6);
    const Eigen::MatrixXd b_rows = Eigen::MatrixXd::Random(7, 6);
    const Block6 t0 = Block6::Random();
    const Block6 expected =
        t0 + a_rows.middleRows(1, 3).transpose() * b_rows.middleRows(2, 3);
    Block6 t = t0;
    kernels_.transpose_product(t.data(), &a_rows(1, 0), 5, &b_rows(2, 0), 7);
    EXPECT_LT((t - expected).cwiseAbs().maxCoeff(), 1e-14);
  }
}

// L Lᵀ = H against Eigen's LLT on the lower triangle (H's upper triangle
// set apart, to show it is not read), and false for a matrix that is not
// positive definite.
TEST_P(BodyBlockKernels, PivotFactor) {
  for (int trial = 0; trial < 20; ++trial) {
    const Block6 m = Block6::Random();
    const Block6 spd = m * m.transpose() + 0.1 * Block6::Identity();
    const Block6 expected = spd.llt().matrixL();
    Block6 h = spd;
    h.triangularView<Eigen::StrictlyUpper>().setConstant(1e6);
    Eigen::Matrix<double, 6, 1> inverse_diagonal;
    ASSERT_TRUE(kernels_.pivot_factor(h.data(), inverse_diagonal.data()));
    const Block6 l = h.triangularView<Eigen::Lower>();
    EXPECT_LT((l - expected).cwiseAbs().maxCoeff(), 1e-12);
    EXPECT_LT((inverse_diagonal.cwiseProduct(l.diagonal()) -
               Eigen::Matrix<double, 6, 1>::Ones())
                  .cwiseAbs()
                  .maxCoeff(),
              1e-14);
  }
  Block6 indefinite = Block6::Identity();  // the last pivot: 0.25 − 0.6²
  indefinite(5, 5) = 0.25;
  indefinite(5, 4) = indefinite(4, 5) = 0.6;
  Eigen::Matrix<double, 6, 1> inverse_diagonal;
  EXPECT_FALSE(kernels_.pivot_factor(indefinite.data(), inverse_diagonal.data()));
  Block6 not_a_number = Block6::Identity();
  not_a_number(5, 5) = std::nan("");
  EXPECT_FALSE(kernels_.pivot_factor(not_a_number.data(), inverse_diagonal.data()));
}

// X ← X L⁻ᵀ against Eigen's triangular solve.
TEST_P(BodyBlockKernels, PivotSolve) {
  for (int trial = 0; trial < 20; ++trial) {
    const Block6 m = Block6::Random();
    Block6 l = (m * m.transpose() + 6.0 * Block6::Identity()).llt().matrixL();
    l.triangularView<Eigen::StrictlyUpper>().setConstant(1e6);  // must not be read
    // 1 + trial % 3 blocks one after another.
    const int count = 1 + trial % 3;
    std::vector<Block6> h(count), expected(count);
    std::vector<double> x(36 * count);
    for (int b = 0; b < count; ++b) {
      h[b] = Block6::Random();
      expected[b] = l.triangularView<Eigen::Lower>().solve(h[b].transpose()).transpose();
      Eigen::Map<Block6>(x.data() + 36 * b) = h[b];
    }
    const Eigen::Matrix<double, 6, 1> inverse_diagonal = l.diagonal().cwiseInverse();
    kernels_.pivot_solve(l.data(), inverse_diagonal.data(), x.data(), count);
    for (int b = 0; b < count; ++b) {
      EXPECT_LT((Eigen::Map<const Block6>(x.data() + 36 * b) - expected[b])
                    .cwiseAbs()
                    .maxCoeff(),
                1e-13)
          << "block " << b << " of " << count;
    }
  }
}

// x ← L⁻¹ x and x ← L⁻ᵀ x for a pivot factor (its upper triangle garbage,
// 1 / L(j, j) given), against Eigen's triangular solves.
TEST_P(BodyBlockKernels, PivotSubstitutions) {
  using Vector6 = Eigen::Matrix<double, 6, 1>;
  for (int trial = 0; trial < 20; ++trial) {
    const Block6 m = Block6::Random();
    Block6 l = (m * m.transpose() + 6.0 * Block6::Identity()).llt().matrixL();
    const Block6 lower = l;
    l.triangularView<Eigen::StrictlyUpper>().setConstant(1e6);  // must not be read
    const Vector6 inverse_diagonal = lower.diagonal().cwiseInverse();
    const Vector6 b = Vector6::Random();
    Vector6 x = b, x_transposed = b;
    kernels_.lower_solve(l.data(), inverse_diagonal.data(), x.data());
    kernels_.lower_transpose_solve(l.data(), inverse_diagonal.data(),
                                   x_transposed.data());
    const Vector6 expected = lower.triangularView<Eigen::Lower>().solve(b);
    const Vector6 expected_transposed =
        lower.transpose().triangularView<Eigen::Upper>().solve(b);
    EXPECT_LT((x - expected).cwiseAbs().maxCoeff(), 1e-14);
    EXPECT_LT((x_transposed - expected_transposed).cwiseAbs().maxCoeff(), 1e-14);
  }
}

// W += J S Jᵀ against the sums written out, W exactly symmetric.
TEST_P(BodyBlockKernels, Congruence) {
  for (int trial = 0; trial < 20; ++trial) {
    const Eigen::Matrix<double, 3, 6> j = Eigen::Matrix<double, 3, 6>::Random();
    const Block6 m = Block6::Random();
    const Block6 s = m * m.transpose();
    const Eigen::Matrix3d w0 = Eigen::Matrix3d::Random();
    const Eigen::Matrix3d w_symmetric = w0 + w0.transpose();
    Eigen::Matrix3d expected = w_symmetric;
    for (int q = 0; q < 3; ++q)
      for (int r = 0; r < 3; ++r)
        for (int a = 0; a < 6; ++a)
          for (int b = 0; b < 6; ++b) expected(q, r) += j(q, a) * s(a, b) * j(r, b);
    Eigen::Matrix3d w = w_symmetric;
    kernels_.congruence(w.data(), j.data(), s.data());
    EXPECT_LT((w - expected).cwiseAbs().maxCoeff(), 1e-13);
    EXPECT_EQ(w, w.transpose());
  }
}

// The diagonal congruence against the dense kernel with that diagonal S.
TEST_P(BodyBlockKernels, DiagonalCongruenceIsTheDenseOneOfADiagonal) {
  for (int trial = 0; trial < 20; ++trial) {
    const Eigen::Matrix<double, 3, 6> j = Eigen::Matrix<double, 3, 6>::Random();
    const Eigen::Matrix<double, 6, 1> d =
        Eigen::Matrix<double, 6, 1>::Random().cwiseAbs() +
        Eigen::Matrix<double, 6, 1>::Constant(0.1);
    const Block6 s = d.asDiagonal();
    const Eigen::Matrix3d w0 = Eigen::Matrix3d::Random();
    Eigen::Matrix3d expected = w0 + w0.transpose();
    Eigen::Matrix3d w = expected;
    AddCongruence3x6Portable(expected.data(), j.data(), s.data());
    kernels_.diagonal_congruence(w.data(), j.data(), d.data());
    EXPECT_LT((w - expected).cwiseAbs().maxCoeff(), 1e-14);
    EXPECT_EQ(w, w.transpose());
  }
}

// y = L x, and the substitutions' b_r −= L_r x and x −= Σ_r L_rᵀ b_r over
// 1–3 blocks stored one after another (b_r scattered in a longer vector),
// against the sums written out.
TEST_P(BodyBlockKernels, SubstitutionProducts) {
  using Vector6 = Eigen::Matrix<double, 6, 1>;
  for (int trial = 0; trial < 20; ++trial) {
    const int count = 1 + trial % 3;
    std::vector<double> l(36 * count);
    for (double& entry : l) entry = Eigen::internal::random<double>(-1.0, 1.0);
    const std::vector<int> offsets = {13, 1, 7};  // b_r at b + offsets[r]
    const Eigen::VectorXd b0 = Eigen::VectorXd::Random(19);
    const Vector6 x0 = Vector6::Random();
    Eigen::VectorXd expected_b = b0;
    Vector6 expected_x = x0;
    for (int r = 0; r < count; ++r) {
      const Eigen::Map<const Block6> l_r(l.data() + 36 * r);
      for (int i = 0; i < 6; ++i) {
        for (int k = 0; k < 6; ++k) {
          expected_b(offsets[r] + i) -= l_r(i, k) * x0(k);
          expected_x(i) -= l_r(k, i) * b0(offsets[r] + k);
        }
      }
    }
    Eigen::VectorXd b = b0;
    Vector6 x = x0;
    kernels_.column_times(l.data(), x0.data(), b.data(), offsets.data(), count);
    kernels_.column_transpose_times(l.data(), b0.data(), offsets.data(), count, x.data());
    EXPECT_LT((b - expected_b).cwiseAbs().maxCoeff(), 1e-14) << count << " blocks";
    EXPECT_LT((x - expected_x).cwiseAbs().maxCoeff(), 1e-14) << count << " blocks";
    const Eigen::Map<const Block6> a(l.data());
    Vector6 product;
    kernels_.times(l.data(), x0.data(), product.data());
    EXPECT_LT((product - a * x0).cwiseAbs().maxCoeff(), 1e-14);
  }
}

// y += J x and y += Jᵀ x for a contact's 3 × 6 rows against the sums written
// out; J and x sit at the end of their buffers (a read past them would show
// under the sanitizers).
TEST_P(BodyBlockKernels, ContactRowProducts) {
  for (int trial = 0; trial < 20; ++trial) {
    const std::vector<double> j_entries = [] {
      const Eigen::Matrix<double, 3, 6> j = Eigen::Matrix<double, 3, 6>::Random();
      return std::vector<double>(j.data(), j.data() + 18);
    }();
    const Eigen::Map<const Eigen::Matrix<double, 3, 6>> j(j_entries.data());
    const Eigen::Matrix<double, 6, 1> v = Eigen::Matrix<double, 6, 1>::Random();
    const Eigen::Vector3d gamma0 = Eigen::Vector3d::Random();
    const std::vector<double> gamma(gamma0.data(), gamma0.data() + 3);
    const Eigen::Vector3d y0 = Eigen::Vector3d::Random();
    const Eigen::Matrix<double, 6, 1> z0 = Eigen::Matrix<double, 6, 1>::Random();
    Eigen::Vector3d expected = y0;
    Eigen::Matrix<double, 6, 1> expected_transposed = z0;
    for (int r = 0; r < 3; ++r) {
      for (int k = 0; k < 6; ++k) {
        expected(r) += j(r, k) * v(k);
        expected_transposed(k) += j(r, k) * gamma[r];
      }
    }
    Eigen::Vector3d y = y0;
    Eigen::Matrix<double, 6, 1> z = z0;
    kernels_.contact_times(j_entries.data(), v.data(), y.data());
    kernels_.contact_transpose_times(j_entries.data(), gamma.data(), z.data());
    EXPECT_LT((y - expected).cwiseAbs().maxCoeff(), 1e-14);
    EXPECT_LT((z - expected_transposed).cwiseAbs().maxCoeff(), 1e-14);
  }
}

// v_c = J v (+ b) and Jᵀγ over a list of contact records against the sums
// written out: contacts on two bodies and on one, rows stacked out of
// order, a list that skips a record and visits the others out of order,
// and a record of another kind, where the kernels stop; its rows and the
// velocities of the bodies no contact touches are left as they were.
TEST_P(BodyBlockKernels, ContactRowListProducts) {
  using Rows3x6 = Eigen::Matrix<double, 3, 6>;
  constexpr int kRecords = 5, kBodies = 4;
  for (int trial = 0; trial < 10; ++trial) {
    std::vector<Rows3x6> blocks(2 * kRecords, Rows3x6::Random());
    for (Rows3x6& block : blocks) block = Rows3x6::Random();
    std::vector<Eigen::Vector3d> biases(kRecords);
    for (Eigen::Vector3d& bias : biases) bias = Eigen::Vector3d::Random();
    // Record k: bodies (k, k + 1 mod 4), one body for k = 1, another kind
    // for k = 3; its rows at 3 × (4 − k).
    std::vector<ContactRows> records(kRecords);
    for (int k = 0; k < kRecords; ++k) {
      if (k == 3) continue;
      records[k].jacobian[0] = blocks[2 * k].data();
      records[k].jacobian[1] = k == 1 ? nullptr : blocks[2 * k + 1].data();
      records[k].velocity_offset[0] = 6 * k % (6 * kBodies);
      records[k].velocity_offset[1] = 6 * (k + 1) % (6 * kBodies);
      records[k].bias = biases[k].data();
      records[k].row_offset = 3 * (kRecords - 1 - k);
    }
    const Eigen::VectorXd v = Eigen::VectorXd::Random(6 * kBodies);
    const Eigen::VectorXd gamma = Eigen::VectorXd::Random(3 * kRecords);
    const std::vector<int> list = {4, 0, 2, 1, 3, 0};
    for (const bool with_bias : {false, true}) {
      const Eigen::VectorXd y0 = Eigen::VectorXd::Random(3 * kRecords);
      const Eigen::VectorXd z0 = Eigen::VectorXd::Random(6 * kBodies);
      Eigen::VectorXd expected = y0, expected_transposed = z0;
      for (int k : {4, 0, 2, 1}) {
        const ContactRows& r = records[k];
        for (int row = 0; row < 3; ++row) {
          double sum = with_bias ? biases[k](row) : 0.0;
          for (int b = 0; b < 2 && r.jacobian[b] != nullptr; ++b) {
            for (int c = 0; c < 6; ++c) {
              sum += blocks[2 * k + b](row, c) * v(r.velocity_offset[b] + c);
              expected_transposed(r.velocity_offset[b] + c) +=
                  blocks[2 * k + b](row, c) * gamma(r.row_offset + row);
            }
          }
          expected(r.row_offset + row) = sum;
        }
      }
      Eigen::VectorXd y = y0, z = z0;
      EXPECT_EQ(kernels_.contact_rows_times(records.data(), list.data(), 0, list.size(),
                                            v.data(), with_bias, y.data()),
                4u);
      EXPECT_EQ(kernels_.contact_rows_transpose_times(
                    records.data(), list.data(), 0, list.size(), gamma.data(), z.data()),
                4u);
      EXPECT_LT((y - expected).cwiseAbs().maxCoeff(), 1e-14);
      EXPECT_LT((z - expected_transposed).cwiseAbs().maxCoeff(), 1e-14);
      // Without a list, from record 0 on: records 0–2, then the stop at 3;
      // from 4 on: record 4 alone, to the end.
      y = y0;
      EXPECT_EQ(kernels_.contact_rows_times(records.data(), nullptr, 0, kRecords,
                                            v.data(), with_bias, y.data()),
                3u);
      EXPECT_EQ(kernels_.contact_rows_times(records.data(), nullptr, 4, kRecords,
                                            v.data(), with_bias, y.data()),
                static_cast<std::size_t>(kRecords));
      EXPECT_LT((y - expected).cwiseAbs().maxCoeff(), 1e-14);
    }
  }
}

// Y = G J for 3 × 6 slices of taller matrices (strides 4 and 5), G at the
// end of its buffer, against the sums written out; Y's other rows untouched.
TEST_P(BodyBlockKernels, HessianTimesJacobian) {
  for (int trial = 0; trial < 20; ++trial) {
    const Eigen::Matrix3d g0 = Eigen::Matrix3d::Random();
    const std::vector<double> g(g0.data(), g0.data() + 9);
    const Eigen::MatrixXd j_rows = Eigen::MatrixXd::Random(4, 6);
    const Eigen::MatrixXd y0 = Eigen::MatrixXd::Random(5, 6);
    Eigen::MatrixXd expected = y0;
    for (int r = 0; r < 3; ++r) {
      for (int c = 0; c < 6; ++c) {
        expected(r + 2, c) = 0.0;
        for (int k = 0; k < 3; ++k) expected(r + 2, c) += g0(r, k) * j_rows(k + 1, c);
      }
    }
    Eigen::MatrixXd y = y0;
    kernels_.hessian_times_jacobian(g.data(), &j_rows(1, 0), 4, &y(2, 0), 5);
    EXPECT_LT((y - expected).cwiseAbs().maxCoeff(), 1e-14);
  }
}

INSTANTIATE_TEST_SUITE_P(Variants, BodyBlockKernels,
                         ::testing::Values(&PortableKernels, &Avx2Kernels,
                                           &DispatchedKernels),
                         [](const ::testing::TestParamInfo<KernelSet (*)()>& info) {
                           return std::string(info.param().name);
                         });

}  // namespace
}  // namespace coulomb
