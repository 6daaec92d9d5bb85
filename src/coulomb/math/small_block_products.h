#pragma once

#include <cstddef>

#include <Eigen/Dense>

namespace coulomb {

// y += s B x and y += s Bᵀ x for a dense column-major block B (rows × cols),
// with x and y contiguous (segments of larger vectors) and s = ±1.
//
// The blocks of rigid-body contact are 3 × 6 (a contact's rows on a free
// body) and 6 × 6 (a body's mass matrix, a block of its Cholesky factor): for
// those the product runs on fixed-size maps, which the compiler unrolls;
// Eigen's dynamic matrix–vector kernel costs several times more on so few
// entries. Blocks of at most six rows on more columns (a constraint on a
// tree) take plain loops, larger ones Eigen's dynamic path. All of it is
// forced inline:
// these products run per contact in every Newton iteration, and left to its
// heuristics GCC sometimes calls each fixed-size product out of line (seen:
// +5 % instructions in a Newton iteration after an unrelated change to the
// caller's file).
#define COULOMB_ALWAYS_INLINE inline __attribute__((always_inline))
namespace small_block {

// y += product or y −= product, without scaling the product.
template <typename Target, typename Product>
COULOMB_ALWAYS_INLINE void Accumulate(Target&& y, const Product& product, double sign) {
  if (sign < 0.0) {
    y.noalias() -= product;
  } else {
    y.noalias() += product;
  }
}

template <int Rows, int Cols>
COULOMB_ALWAYS_INLINE void AddTimes(const double* block, const double* x, double* y,
                                    double sign) {
  Accumulate(Eigen::Map<Eigen::Matrix<double, Rows, 1>>(y),
             Eigen::Map<const Eigen::Matrix<double, Rows, Cols>>(block) *
                 Eigen::Map<const Eigen::Matrix<double, Cols, 1>>(x),
             sign);
}

template <int Rows, int Cols>
COULOMB_ALWAYS_INLINE void AddTransposeTimes(const double* block, const double* x,
                                             double* y, double sign) {
  Accumulate(Eigen::Map<Eigen::Matrix<double, Cols, 1>>(y),
             Eigen::Map<const Eigen::Matrix<double, Rows, Cols>>(block).transpose() *
                 Eigen::Map<const Eigen::Matrix<double, Rows, 1>>(x),
             sign);
}

// A block of at most kFewRows rows (a constraint's rows on a tree of any
// size): plain loops over its columns. Eigen's dynamic matrix–vector kernel
// sets up blocking and packing whose cost exceeds the 3 × n products of a
// contact on a tree of a few dozen dofs.
inline constexpr int kFewRows = 6;

COULOMB_ALWAYS_INLINE void AddFewRowsTimes(const double* block, int rows, int cols,
                                           const double* x, double* y, double sign) {
  double sum[kFewRows] = {};
  for (int c = 0; c < cols; ++c) {
    const double* column = block + static_cast<ptrdiff_t>(c) * rows;
    for (int r = 0; r < rows; ++r) sum[r] += column[r] * x[c];
  }
  for (int r = 0; r < rows; ++r) y[r] += sign * sum[r];
}

COULOMB_ALWAYS_INLINE void AddFewRowsTransposeTimes(const double* block, int rows,
                                                    int cols, const double* x, double* y,
                                                    double sign) {
  for (int c = 0; c < cols; ++c) {
    const double* column = block + static_cast<ptrdiff_t>(c) * rows;
    double sum = 0.0;
    for (int r = 0; r < rows; ++r) sum += column[r] * x[r];
    y[c] += sign * sum;
  }
}

}  // namespace small_block

// y[0, rows) += sign · B x[0, cols).
COULOMB_ALWAYS_INLINE void AddBlockTimes(const double* block, int rows, int cols,
                                         const double* x, double* y, double sign = 1.0) {
  if (rows == 3 && cols == 6) return small_block::AddTimes<3, 6>(block, x, y, sign);
  if (rows == 6 && cols == 6) return small_block::AddTimes<6, 6>(block, x, y, sign);
  if (rows <= small_block::kFewRows)
    return small_block::AddFewRowsTimes(block, rows, cols, x, y, sign);
  small_block::Accumulate(Eigen::Map<Eigen::VectorXd>(y, rows),
                          Eigen::Map<const Eigen::MatrixXd>(block, rows, cols) *
                              Eigen::Map<const Eigen::VectorXd>(x, cols),
                          sign);
}

// y[0, cols) += sign · Bᵀ x[0, rows).
COULOMB_ALWAYS_INLINE void AddBlockTransposeTimes(const double* block, int rows, int cols,
                                                  const double* x, double* y,
                                                  double sign = 1.0) {
  if (rows == 3 && cols == 6)
    return small_block::AddTransposeTimes<3, 6>(block, x, y, sign);
  if (rows == 6 && cols == 6)
    return small_block::AddTransposeTimes<6, 6>(block, x, y, sign);
  if (rows <= small_block::kFewRows)
    return small_block::AddFewRowsTransposeTimes(block, rows, cols, x, y, sign);
  small_block::Accumulate(
      Eigen::Map<Eigen::VectorXd>(y, cols),
      Eigen::Map<const Eigen::MatrixXd>(block, rows, cols).transpose() *
          Eigen::Map<const Eigen::VectorXd>(x, rows),
      sign);
}

COULOMB_ALWAYS_INLINE void AddBlockTimes(const Eigen::MatrixXd& block, const double* x,
                                         double* y) {
  AddBlockTimes(block.data(), static_cast<int>(block.rows()),
                static_cast<int>(block.cols()), x, y);
}

COULOMB_ALWAYS_INLINE void AddBlockTransposeTimes(const Eigen::MatrixXd& block,
                                                  const double* x, double* y) {
  AddBlockTransposeTimes(block.data(), static_cast<int>(block.rows()),
                         static_cast<int>(block.cols()), x, y);
}

// The lower triangle (the diagonal included) of T += Jᵀ X, for J and X
// rows × n and T n × n, all column-major and contiguous: the Hessian's
// diagonal block of a tree, Jᵀ(GJ) over the rows of its constraints. Entry
// (a, b) is the dot product of columns a of J and b of X; they are taken
// two by two (a 2 × 2 tile of T per pass over the rows: four products for
// four loads), where Eigen's triangular GEMM packs both operands first,
// which costs more than the product at a few dozen dofs.
inline void AddLowerTransposeProduct(const double* j, const double* x, int rows, int n,
                                     double* target) {
  const auto column = [rows](const double* matrix, int c) {
    return matrix + static_cast<ptrdiff_t>(c) * rows;
  };
  const auto dot = [rows](const double* u, const double* v) {
    double sum = 0.0;
    for (int r = 0; r < rows; ++r) sum += u[r] * v[r];
    return sum;
  };
  for (int b = 0; b < n; b += 2) {
    const double* x_b = column(x, b);
    if (b + 1 == n) {  // the last column of an odd n: its diagonal entry
      target[static_cast<ptrdiff_t>(b) * n + b] += dot(column(j, b), x_b);
      break;
    }
    const double* x_b1 = column(x, b + 1);
    double* t_b = target + static_cast<ptrdiff_t>(b) * n;
    double* t_b1 = t_b + n;
    for (int a = b; a < n; a += 2) {
      const double* j_a = column(j, a);
      if (a + 1 == n) {
        t_b[a] += dot(j_a, x_b);
        t_b1[a] += dot(j_a, x_b1);
        break;
      }
      const double* j_a1 = column(j, a + 1);
      double s00 = 0.0, s10 = 0.0, s01 = 0.0, s11 = 0.0;
      for (int r = 0; r < rows; ++r) {
        s00 += j_a[r] * x_b[r];
        s10 += j_a1[r] * x_b[r];
        s01 += j_a[r] * x_b1[r];
        s11 += j_a1[r] * x_b1[r];
      }
      t_b[a] += s00;
      t_b[a + 1] += s10;
      t_b1[a + 1] += s11;
      if (a > b) t_b1[a] += s01;  // (b, b + 1) lies above the diagonal
    }
  }
}

}  // namespace coulomb

#undef COULOMB_ALWAYS_INLINE
