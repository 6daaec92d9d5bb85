#include "coulomb/math/tree_cholesky.h"

#include <cmath>
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

void TreeCholesky::SolveInPlace(Eigen::Ref<Eigen::VectorXd> x) const {
  // Lᵀ y = x from the leaves up, then L x = y from the roots down.
  for (int k = size() - 1; k >= 0; --k) {
    x(k) /= matrix_(k, k);
    for (int i = parent_[k]; i >= 0; i = parent_[i]) x(i) -= matrix_(k, i) * x(k);
  }
  for (int k = 0; k < size(); ++k) {
    for (int i = parent_[k]; i >= 0; i = parent_[i]) x(k) -= matrix_(k, i) * x(i);
    x(k) /= matrix_(k, k);
  }
}

}  // namespace coulomb
