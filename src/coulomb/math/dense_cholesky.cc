#include "coulomb/math/dense_cholesky.h"

#include <cmath>
#include <cstddef>

namespace coulomb {

bool CholeskyInPlace(double* a, int n) {
  if (n > kPlainLoopsMaxSize) {
    Eigen::Map<Eigen::MatrixXd> matrix(a, n, n);
    Eigen::LLT<Eigen::Ref<Eigen::MatrixXd>> factor(matrix);  // in place
    // (Eigen's LLT refuses pivots ≤ 0 only: a NaN or ∞ in A ends up on L's
    // diagonal.)
    return factor.info() == Eigen::Success && matrix.diagonal().allFinite();
  }
  // Left-looking: column j of L from A's column j less the columns before it.
  for (int j = 0; j < n; ++j) {
    double* column_j = a + static_cast<ptrdiff_t>(j) * n;
    for (int k = 0; k < j; ++k) {
      const double* column_k = a + static_cast<ptrdiff_t>(k) * n;
      const double l_jk = column_k[j];
      for (int i = j; i < n; ++i) column_j[i] -= column_k[i] * l_jk;
    }
    if (!(column_j[j] > 0.0) || !std::isfinite(column_j[j])) return false;
    const double pivot = std::sqrt(column_j[j]);
    column_j[j] = pivot;
    for (int i = j + 1; i < n; ++i) column_j[i] /= pivot;
  }
  return true;
}

void SolveLowerInPlace(const Eigen::MatrixXd& l, double* x, int columns) {
  const Eigen::Index n = l.rows();
  if (n > kPlainLoopsMaxSize) {
    Eigen::Map<Eigen::MatrixXd> x_matrix(x, n, columns);
    l.triangularView<Eigen::Lower>().solveInPlace(x_matrix);
    return;
  }
  // By columns of L: x_k is final once the columns before k are subtracted.
  for (Eigen::Index k = 0; k < n; ++k) {
    const double* l_k = l.data() + k * n;
    for (int c = 0; c < columns; ++c) {
      double* x_c = x + c * n;
      x_c[k] /= l_k[k];
      const double x_k = x_c[k];
      for (Eigen::Index i = k + 1; i < n; ++i) x_c[i] -= l_k[i] * x_k;
    }
  }
}

void SolveLowerTransposeInPlace(const Eigen::MatrixXd& l, double* x) {
  const Eigen::Index n = l.rows();
  if (n > kPlainLoopsMaxSize) {
    Eigen::Map<Eigen::VectorXd> x_vector(x, n);
    l.triangularView<Eigen::Lower>().transpose().solveInPlace(x_vector);
    return;
  }
  // Row k of Lᵀ is column k of L below the diagonal: a dot product.
  for (Eigen::Index k = n - 1; k >= 0; --k) {
    const double* l_k = l.data() + k * n;
    double sum = x[k];
    for (Eigen::Index i = k + 1; i < n; ++i) sum -= l_k[i] * x[i];
    x[k] = sum / l_k[k];
  }
}

}  // namespace coulomb
