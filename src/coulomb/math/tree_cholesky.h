#pragma once

#include <vector>

#include <Eigen/Dense>

namespace coulomb {

// Cholesky factorization H = Lᵀ L of an SPD matrix with branch-induced
// sparsity, without fill-in (Featherstone, Rigid Body Dynamics Algorithms,
// §6.5 "LTL" factorization).
//
// The dofs of a kinematic tree form a tree themselves: parent[k] is the dof
// k hangs from (the previous dof of its joint, or the last dof of the parent
// joint), −1 at a root, and parent[k] < k. A mass matrix has H_kl ≠ 0 only
// when k is an ancestor of l or l of k; L (lower triangular, H = Lᵀ L) has
// the same pattern, so factoring costs Σ_k depth(k)² instead of n³/3, and a
// solve Σ_k depth(k) per triangle. Entries of H outside the pattern are
// never read (they must be zero).
class TreeCholesky {
 public:
  // parent: per dof, as above. Throws std::invalid_argument unless
  // −1 ≤ parent[k] < k.
  explicit TreeCholesky(std::vector<int> parent = {});
  void SetParents(const std::vector<int>& parent);
  int size() const { return static_cast<int>(parent_.size()); }
  const std::vector<int>& parents() const { return parent_; }

  // H to be filled before Factor(): size × size; only the lower triangle's
  // branch entries H(l, k), k an ancestor of l or k = l, are read.
  Eigen::MatrixXd& mutable_matrix() { return matrix_; }
  // Factors in place; false if H is not positive definite.
  bool Factor();
  // x ← H⁻¹ x (after a successful Factor()).
  void SolveInPlace(Eigen::Ref<Eigen::VectorXd> x) const;
  // X ← L⁻ᵀ X for the `columns` columns of X (size × columns, column-major),
  // the first half of a solve: H⁻¹ = L⁻¹ L⁻ᵀ, so (L⁻ᵀX)ᵀ(L⁻ᵀX) = Xᵀ H⁻¹ X.
  // A column nonzero only on a dof and its ancestors stays so, and its
  // zeros cost a test each.
  void SolveFactorTransposeInPlace(double* x, int columns) const;
  // L in the lower triangle (after Factor()); its diagonal is positive
  // unless Factor() failed.
  const Eigen::MatrixXd& factor() const { return matrix_; }

 private:
  std::vector<int> parent_;
  Eigen::MatrixXd matrix_;  // H, then L in its lower triangle
};

}  // namespace coulomb
