#pragma once

#include <vector>

#include <Eigen/Dense>

#include "coulomb/contact/clique_tree.h"
#include "coulomb/math/tree_cholesky.h"

namespace coulomb {

// The matrix of SubADMM's subsystem solve (AL eqs. 38–41 and App. A;
// docs/math.md §4.3), for the links l (constraint copies) on the subsystem with
// their penalties β_l:
//   H = A + Σ_l β_l J_lᵀ J_l.
// Dense: assembled and factored by Cholesky, n³/3 (the AL paper's "No Body"
// variant, §VII-D2).
// Tree (the clique's CliqueTree given, links split per body): a body link
// has J_l = map_l J_b, so Σ_l β_l J_lᵀ J_l = Σ_b J_bᵀ ΔI_b J_b with
// ΔI_b = Σ_{l on b} β_l map_lᵀ map_l: the point masses β_l at the contact points
// added to the body inertias (AL eqs. 40–41), and H keeps A's branch-induced
// sparsity. As in CRBA's backward pass, the added inertias are summed over
// subtrees (plain sums: all are world-frame inertias about the world origin),
// ΔI^c_l for the bodies below dof l, and ΔH_kl = S_kᵀ ΔI^c_l S_l for every
// k in chain(l); TreeCholesky factors H without fill-in. Links on the dofs
// themselves (joint limits and controllers, J = e_kᵀ) add β_l J_lᵀ J_l, which
// keeps the pattern as long as their columns lie on one chain
// (OnOneChain).
class SubsystemMatrix {
 public:
  // The subsystem's A (n × n) and its tree (null: dense). Sizes the
  // workspaces; allocates nothing when called again with the same sizes.
  void Reset(const Eigen::MatrixXd& a, const CliqueTree* tree);
  // Dense mode with A (size × size) to be filled by the caller.
  Eigen::MatrixXd& ResetDense(int size);
  bool is_tree() const { return tree_ != nullptr; }

  // H = A, then the links' terms, then Factor().
  void BeginAssembly();
  // A link J (3 × n) with penalty β_l; with body_dof ≥ 0 it is map · J_b of
  // the body moving with that dof (tree mode), else β_l Jᵀ J is added as it is.
  void AddLink(Eigen::Ref<const Eigen::Matrix<double, 3, Eigen::Dynamic>> jacobian,
               int body_dof, const Eigen::Matrix<double, 3, 6>& map, double penalty);
  // Dense mode: H itself, for callers that add β Jᵀ J block by block.
  Eigen::MatrixXd& dense_matrix() { return dense_; }
  // False if H is not positive definite.
  bool Factor();
  void SolveInPlace(Eigen::Ref<Eigen::VectorXd> x) const;

  // True if the nonzero columns of J lie on one chain of the tree (then
  // Jᵀ J has the tree's pattern).
  static bool OnOneChain(
      const CliqueTree& tree,
      Eigen::Ref<const Eigen::Matrix<double, 3, Eigen::Dynamic>> jacobian);

 private:
  void AddCompositeInertias();

  const CliqueTree* tree_ = nullptr;
  Eigen::MatrixXd a_;
  Eigen::MatrixXd dense_;  // H (dense mode)
  Eigen::LLT<Eigen::MatrixXd> dense_factor_;
  TreeCholesky tree_factor_;                                // holds H (tree mode)
  std::vector<Eigen::Matrix<double, 6, 6>> added_inertia_;  // ΔI per dof, then ΔI^c
};

}  // namespace coulomb
