#include "coulomb/solvers/hessian_factorization.h"

#include "coulomb/solvers/block_sparse_hessian_factorization.h"
#include "coulomb/solvers/dense_hessian_factorization.h"

namespace coulomb {

HessianFactorization::HessianFactorization(const ContactProblem& problem)
    : partition_(problem), permuted_(problem.num_dofs()) {
  std::vector<int> rows_on_supernode(partition_.num_supernodes(), 0);
  stacked_row_.resize(problem.num_constraints());
  for (int index = 0; index < problem.num_constraints(); ++index) {
    const int rows = problem.constraint(index).potential->num_equations();
    for (int supernode : partition_.supernodes_of_constraint[index]) {
      stacked_row_[index].push_back(rows_on_supernode[supernode]);
      rows_on_supernode[supernode] += rows;
    }
  }
  for (int supernode = 0; supernode < partition_.num_supernodes(); ++supernode) {
    stacked_j_.emplace_back(rows_on_supernode[supernode],
                            partition_.supernode_size[supernode]);
    stacked_gj_.emplace_back(rows_on_supernode[supernode],
                             partition_.supernode_size[supernode]);
  }
}

void HessianFactorization::UpdateStackedJacobians(
    const ContactProblem& problem, const std::vector<ConstraintMatrix>& hessians) {
  for (int index = 0; index < problem.num_constraints(); ++index) {
    const auto& supernodes = partition_.supernodes_of_constraint[index];
    for (const JacobianBlock& block : problem.constraint(index).jacobian) {
      const int supernode = partition_.supernode_of_clique[block.clique];
      const int k =
          static_cast<int>(std::find(supernodes.begin(), supernodes.end(), supernode) -
                           supernodes.begin());
      const int row = stacked_row_[index][k];
      const int col = partition_.offset_in_supernode[block.clique];
      const auto rows = Eigen::seqN(row, block.matrix.rows());
      const auto cols = Eigen::seqN(col, block.matrix.cols());
      stacked_j_[supernode](rows, cols) = block.matrix;
      stacked_gj_[supernode](rows, cols).noalias() = hessians[index] * block.matrix;
    }
  }
}

void HessianFactorization::Solve(Eigen::Ref<Eigen::VectorXd> b) const {
  const auto& original = partition_.original_dof;
  for (size_t k = 0; k < original.size(); ++k) permuted_[k] = b[original[k]];
  SolvePermuted(permuted_);
  for (size_t k = 0; k < original.size(); ++k) b[original[k]] = permuted_[k];
}

std::unique_ptr<HessianFactorization> MakeHessianFactorization(
    LinearSolverType type, const ContactProblem& problem) {
  if (type == LinearSolverType::kDense) {
    return std::make_unique<DenseHessianFactorization>(problem);
  }
  return std::make_unique<BlockSparseHessianFactorization>(problem);
}

}  // namespace coulomb
