#pragma once

#include <Eigen/Dense>

namespace coulomb {

// y += B x and y += Bᵀ x for a dense block B stored as a dynamic matrix, with
// x and y contiguous (segments of larger vectors).
//
// The blocks of rigid-body contact are 3 × 6 (a contact's rows on a free
// body) and 6 × 6 (a body's mass matrix): for those the product runs on
// fixed-size maps, which the compiler unrolls; Eigen's dynamic matrix–vector
// kernel costs several times more on so few entries. Other sizes take the
// dynamic path.
namespace small_block {

template <int Rows, int Cols>
bool Is(const Eigen::MatrixXd& block) {
  return block.rows() == Rows && block.cols() == Cols;
}

template <int Rows, int Cols>
void AddTimes(const Eigen::MatrixXd& block, const double* x, double* y) {
  Eigen::Map<Eigen::Matrix<double, Rows, 1>>(y).noalias() +=
      Eigen::Map<const Eigen::Matrix<double, Rows, Cols>>(block.data()) *
      Eigen::Map<const Eigen::Matrix<double, Cols, 1>>(x);
}

template <int Rows, int Cols>
void AddTransposeTimes(const Eigen::MatrixXd& block, const double* x, double* y) {
  Eigen::Map<Eigen::Matrix<double, Cols, 1>>(y).noalias() +=
      Eigen::Map<const Eigen::Matrix<double, Rows, Cols>>(block.data()).transpose() *
      Eigen::Map<const Eigen::Matrix<double, Rows, 1>>(x);
}

}  // namespace small_block

// y[0, rows) += B x[0, cols).
inline void AddBlockTimes(const Eigen::MatrixXd& block, const double* x, double* y) {
  if (small_block::Is<3, 6>(block)) return small_block::AddTimes<3, 6>(block, x, y);
  if (small_block::Is<6, 6>(block)) return small_block::AddTimes<6, 6>(block, x, y);
  Eigen::Map<Eigen::VectorXd>(y, block.rows()).noalias() +=
      block * Eigen::Map<const Eigen::VectorXd>(x, block.cols());
}

// y[0, cols) += Bᵀ x[0, rows).
inline void AddBlockTransposeTimes(const Eigen::MatrixXd& block, const double* x,
                                   double* y) {
  if (small_block::Is<3, 6>(block))
    return small_block::AddTransposeTimes<3, 6>(block, x, y);
  if (small_block::Is<6, 6>(block))
    return small_block::AddTransposeTimes<6, 6>(block, x, y);
  Eigen::Map<Eigen::VectorXd>(y, block.cols()).noalias() +=
      block.transpose() * Eigen::Map<const Eigen::VectorXd>(x, block.rows());
}

}  // namespace coulomb
