#include "coulomb/math/tree_cholesky.h"

#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <string>

namespace coulomb {

TreeCholesky::TreeCholesky(std::vector<int> parent) { SetParents(parent); }

void TreeCholesky::SetParents(const std::vector<int>& parent) {
  for (int k = 0; k < static_cast<int>(parent.size()); ++k) {
    if (parent[k] < -1 || parent[k] >= k) {
      throw std::invalid_argument("TreeCholesky: parent of dof " + std::to_string(k) +
                                  " is " + std::to_string(parent[k]) +
                                  ", must be in [-1, " + std::to_string(k) + ")");
    }
  }
  parent_ = parent;
  matrix_.resize(size(), size());
}

bool TreeCholesky::Factor() {
  // From the leaves up: L_kk = √H_kk, L_ki = H_ki / L_kk along k's ancestors
  // i, then the ancestors' block loses the outer product of that row.
  for (int k = size() - 1; k >= 0; --k) {
    if (!(matrix_(k, k) > 0.0)) return false;
    const double pivot = std::sqrt(matrix_(k, k));
    matrix_(k, k) = pivot;
    for (int i = parent_[k]; i >= 0; i = parent_[i]) matrix_(k, i) /= pivot;
    for (int i = parent_[k]; i >= 0; i = parent_[i]) {
      for (int j = i; j >= 0; j = parent_[j])
        matrix_(i, j) -= matrix_(k, i) * matrix_(k, j);
    }
  }
  return true;
}

void TreeCholesky::SolveFactorTransposeInPlace(double* x, int columns) const {
  // Lᵀ y = x from the leaves up: y_k = x_k / L_kk, then k's ancestors lose
  // L_ki y_k.
  const int n = size();
  const int* parent = parent_.data();
  const double* l = matrix_.data();  // column-major: L_ki at l[k + i n]
  for (int c = 0; c < columns; ++c) {
    double* column = x + static_cast<ptrdiff_t>(c) * n;
    for (int k = n - 1; k >= 0; --k) {
      if (column[k] == 0.0) continue;
      const double y_k = column[k] / l[k + static_cast<ptrdiff_t>(k) * n];
      column[k] = y_k;
      for (int i = parent[k]; i >= 0; i = parent[i])
        column[i] -= l[k + static_cast<ptrdiff_t>(i) * n] * y_k;
    }
  }
}

void TreeCholesky::SolveInPlace(Eigen::Ref<Eigen::VectorXd> x) const {
  // Lᵀ y = x from the leaves up, then L x = y from the roots down.
  SolveFactorTransposeInPlace(x.data(), 1);
  for (int k = 0; k < size(); ++k) {
    for (int i = parent_[k]; i >= 0; i = parent_[i]) x(k) -= matrix_(k, i) * x(i);
    x(k) /= matrix_(k, k);
  }
}

}  // namespace coulomb
