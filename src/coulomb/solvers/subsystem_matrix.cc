#include "coulomb/solvers/subsystem_matrix.h"

namespace coulomb {

void SubsystemMatrix::Reset(const Eigen::MatrixXd& a, const CliqueTree* tree) {
  tree_ = tree;
  a_ = a;
  if (tree_) {
    if (tree_factor_.parents() != tree_->parent) tree_factor_.SetParents(tree_->parent);
    added_inertia_.resize(a.rows());
  }
}

Eigen::MatrixXd& SubsystemMatrix::ResetDense(int size) {
  tree_ = nullptr;
  a_.resize(size, size);
  return a_;
}

void SubsystemMatrix::BeginAssembly() {
  if (!tree_) {
    dense_ = a_;
    return;
  }
  tree_factor_.mutable_matrix() = a_;
  for (Eigen::Matrix<double, 6, 6>& inertia : added_inertia_) inertia.setZero();
}

void SubsystemMatrix::AddLink(
    Eigen::Ref<const Eigen::Matrix<double, 3, Eigen::Dynamic>> jacobian, int body_dof,
    const Eigen::Matrix<double, 3, 6>& map, double penalty) {
  if (tree_ && body_dof >= 0) {
    added_inertia_[body_dof].noalias() += penalty * map.transpose() * map;
    return;
  }
  Eigen::MatrixXd& h = tree_ ? tree_factor_.mutable_matrix() : dense_;
  h.noalias() += penalty * jacobian.transpose() * jacobian;
}

void SubsystemMatrix::AddCompositeInertias() {
  const std::vector<int>& parent = tree_->parent;
  const int n = static_cast<int>(parent.size());
  for (int k = n - 1; k >= 0; --k) {
    if (parent[k] >= 0) added_inertia_[parent[k]] += added_inertia_[k];
  }
  Eigen::MatrixXd& h = tree_factor_.mutable_matrix();
  for (int l = 0; l < n; ++l) {
    const Eigen::Matrix<double, 6, 1> force = added_inertia_[l] * tree_->motion.col(l);
    for (int k = l; k >= 0; k = parent[k]) h(l, k) += tree_->motion.col(k).dot(force);
  }
}

bool SubsystemMatrix::Factor() {
  if (tree_) {
    AddCompositeInertias();
    return tree_factor_.Factor();
  }
  dense_factor_.compute(dense_);
  return dense_factor_.info() == Eigen::Success;
}

void SubsystemMatrix::SolveInPlace(Eigen::Ref<Eigen::VectorXd> x) const {
  if (tree_) {
    tree_factor_.SolveInPlace(x);
  } else {
    dense_factor_.solveInPlace(x);
  }
}

bool SubsystemMatrix::OnOneChain(
    const CliqueTree& tree,
    Eigen::Ref<const Eigen::Matrix<double, 3, Eigen::Dynamic>> jacobian) {
  int deepest = -1;  // the chain ends at the last nonzero column
  for (int k = static_cast<int>(jacobian.cols()) - 1; k >= 0 && deepest < 0; --k) {
    if (!jacobian.col(k).isZero(0.0)) deepest = k;
  }
  int next_on_chain = deepest;
  for (int k = deepest; k >= 0; --k) {
    if (k == next_on_chain) {
      next_on_chain = tree.parent[k];
    } else if (!jacobian.col(k).isZero(0.0)) {
      return false;
    }
  }
  return true;
}

}  // namespace coulomb
