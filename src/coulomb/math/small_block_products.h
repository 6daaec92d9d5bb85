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

}  // namespace coulomb

#undef COULOMB_ALWAYS_INLINE
