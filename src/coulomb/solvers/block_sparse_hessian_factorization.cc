#include "coulomb/solvers/block_sparse_hessian_factorization.h"

namespace coulomb {

BlockSparseHessianFactorization::BlockSparseHessianFactorization(
    const ContactProblem& problem, const CliqueGraph& graph)
    : HessianFactorization(problem), cholesky_(graph.pattern) {
  for (int clique = 0; clique < problem.num_cliques(); ++clique) {
    diagonal_handles_.push_back(cholesky_.Handle(clique, clique));
  }
  for (int index = 0; index < problem.num_constraints(); ++index) {
    const auto& jacobian = problem.constraint(index).jacobian;
    for (int a = 0; a < static_cast<int>(jacobian.size()); ++a) {
      for (int b = 0; b < a; ++b) {  // a == b is in the clique's diagonal term
        terms_.push_back(
            {index, a, b, cholesky_.Handle(jacobian[a].clique, jacobian[b].clique)});
      }
    }
  }
}

bool BlockSparseHessianFactorization::Factor(
    const ContactProblem& problem, const std::vector<ConstraintMatrix>& hessians) {
  UpdateStackedJacobians(problem, hessians);
  cholesky_.SetZero();
  for (int clique = 0; clique < problem.num_cliques(); ++clique) {
    cholesky_.AddToBlock(diagonal_handles_[clique], problem.clique_matrix(clique));
    // Only the lower triangle of a diagonal block is factored: half the flops.
    cholesky_.MutableBlock(diagonal_handles_[clique]).triangularView<Eigen::Lower>() +=
        stacked_jacobian(clique).transpose() * stacked_hessian_times_jacobian(clique);
  }
  for (const Term& term : terms_) {
    const auto& j_a = problem.constraint(term.constraint).jacobian[term.block_a].matrix;
    cholesky_.AddToBlock(
        term.handle,
        j_a.transpose() * hessian_times_jacobian(problem, term.constraint, term.block_b));
  }
  return cholesky_.Factor();
}

void BlockSparseHessianFactorization::Solve(Eigen::Ref<Eigen::VectorXd> b) const {
  cholesky_.Solve(b);
}

}  // namespace coulomb
