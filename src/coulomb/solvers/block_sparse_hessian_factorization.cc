#include "coulomb/solvers/block_sparse_hessian_factorization.h"

namespace coulomb {

BlockSparseHessianFactorization::BlockSparseHessianFactorization(
    const ContactProblem& problem)
    : HessianFactorization(problem), cholesky_(partition().pattern) {
  const SupernodePartition& p = partition();
  for (int s = 0; s < p.num_supernodes(); ++s)
    diagonal_handles_.push_back(cholesky_.Handle(s, s));
  for (int index = 0; index < problem.num_constraints(); ++index) {
    const auto& supernodes = p.supernodes_of_constraint[index];
    const int rows = problem.constraint(index).potential->num_equations();
    for (int a = 0; a < static_cast<int>(supernodes.size()); ++a) {
      for (int b = 0; b < a; ++b) {
        terms_.push_back(
            {index, rows, a, b, cholesky_.Handle(supernodes[a], supernodes[b])});
      }
    }
  }
}

bool BlockSparseHessianFactorization::Factor(
    const ContactProblem& problem, const std::vector<ConstraintMatrix>& hessians) {
  UpdateHessianTimesJacobians(problem, hessians);
  cholesky_.SetZero();
  for (int s = 0; s < partition().num_supernodes(); ++s) {
    auto diagonal = cholesky_.MutableBlock(diagonal_handles_[s]);
    AddCliqueMatrices(problem, s, diagonal);
    // Only the lower triangle of a diagonal block is factored: half the flops.
    if (diagonal_product_.size() < static_cast<size_t>(diagonal.size()))
      diagonal_product_.resize(diagonal.size());
    Eigen::Map<Eigen::MatrixXd> product(diagonal_product_.data(), diagonal.rows(),
                                        diagonal.cols());
    product.noalias() =
        stacked_jacobian(s).transpose() * stacked_hessian_times_jacobian(s);
    diagonal.triangularView<Eigen::Lower>() += product;
  }
  for (const Term& term : terms_) {
    cholesky_.AddToBlock(
        term.handle,
        jacobian_block(term.constraint, term.a, term.rows).transpose() *
            hessian_times_jacobian_block(term.constraint, term.b, term.rows));
  }
  return cholesky_.Factor();
}

void BlockSparseHessianFactorization::SolvePermuted(Eigen::Ref<Eigen::VectorXd> b) const {
  cholesky_.Solve(b);
}

}  // namespace coulomb
