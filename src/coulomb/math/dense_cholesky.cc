#include "coulomb/math/dense_cholesky.h"

#include <cmath>
#include <cstddef>

namespace coulomb {
namespace {

// X ← L⁻¹ X for `Width` columns of X at x (n entries each, contiguous), by
// columns of L: x_k is final once the columns before k are subtracted. Each
// entry of L is loaded once for all the columns (a contact's three rows
// take one pass over L, not three).
template <int Width>
void SolveLowerColumns(const double* l, Eigen::Index n, double* x) {
  for (Eigen::Index k = 0; k < n; ++k) {
    const double* l_k = l + k * n;
    double x_k[Width];
    for (int c = 0; c < Width; ++c) {
      x[c * n + k] /= l_k[k];
      x_k[c] = x[c * n + k];
    }
    for (Eigen::Index i = k + 1; i < n; ++i) {
      const double l_ik = l_k[i];
      for (int c = 0; c < Width; ++c) x[c * n + i] -= l_ik * x_k[c];
    }
  }
}

}  // namespace

bool CholeskyInPlace(double* a, int n) {
  if (n > kPlainLoopsMaxSize) {
    Eigen::Map<Eigen::MatrixXd> matrix(a, n, n);
    Eigen::LLT<Eigen::Ref<Eigen::MatrixXd>> factor(matrix);  // in place
    // (Eigen's LLT refuses pivots ≤ 0 only: a NaN or ∞ in A ends up on L's
    // diagonal.)
    return factor.info() == Eigen::Success && matrix.diagonal().allFinite();
  }
  // Left-looking: column j of L from A's column j less the columns before it,
  // two at a time (column j loaded and stored once per pair; the same
  // subtractions in the same order as one at a time).
  for (int j = 0; j < n; ++j) {
    double* column_j = a + static_cast<ptrdiff_t>(j) * n;
    int k = 0;
    for (; k + 1 < j; k += 2) {
      const double* column_k = a + static_cast<ptrdiff_t>(k) * n;
      const double* column_k1 = column_k + n;
      const double l_jk = column_k[j], l_jk1 = column_k1[j];
      for (int i = j; i < n; ++i)
        column_j[i] = (column_j[i] - column_k[i] * l_jk) - column_k1[i] * l_jk1;
    }
    if (k < j) {
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
  int done = 0;
  for (; columns - done >= 3; done += 3) SolveLowerColumns<3>(l.data(), n, x + done * n);
  if (columns - done == 2) SolveLowerColumns<2>(l.data(), n, x + done * n);
  if (columns - done == 1) SolveLowerColumns<1>(l.data(), n, x + done * n);
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
