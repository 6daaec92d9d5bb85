#include "coulomb/solvers/hessian_factorization.h"

#include "coulomb/solvers/block_sparse_hessian_factorization.h"
#include "coulomb/solvers/dense_hessian_factorization.h"

namespace coulomb {

HessianFactorization::HessianFactorization(const ContactProblem& problem) {
  std::vector<int> rows_on_clique(problem.num_cliques(), 0);
  stacked_row_.resize(problem.num_constraints());
  for (int index = 0; index < problem.num_constraints(); ++index) {
    for (const JacobianBlock& block : problem.constraint(index).jacobian) {
      stacked_row_[index].push_back(rows_on_clique[block.clique]);
      rows_on_clique[block.clique] += static_cast<int>(block.matrix.rows());
    }
  }
  for (int clique = 0; clique < problem.num_cliques(); ++clique) {
    stacked_j_.emplace_back(rows_on_clique[clique], problem.clique_size(clique));
    stacked_gj_.emplace_back(rows_on_clique[clique], problem.clique_size(clique));
  }
}

void HessianFactorization::UpdateStackedJacobians(
    const ContactProblem& problem, const std::vector<ConstraintMatrix>& hessians) {
  for (int index = 0; index < problem.num_constraints(); ++index) {
    const auto& jacobian = problem.constraint(index).jacobian;
    for (size_t b = 0; b < jacobian.size(); ++b) {
      const Eigen::MatrixXd& j = jacobian[b].matrix;
      const int row = stacked_row_[index][b];
      stacked_j_[jacobian[b].clique].middleRows(row, j.rows()) = j;
      stacked_gj_[jacobian[b].clique].middleRows(row, j.rows()).noalias() =
          hessians[index] * j;
    }
  }
}

std::unique_ptr<HessianFactorization> MakeHessianFactorization(
    LinearSolverType type, const ContactProblem& problem, const CliqueGraph& graph) {
  if (type == LinearSolverType::kDense) {
    return std::make_unique<DenseHessianFactorization>(problem);
  }
  return std::make_unique<BlockSparseHessianFactorization>(problem, graph);
}

}  // namespace coulomb
