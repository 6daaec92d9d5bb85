#include "coulomb/solvers/hessian_factorization.h"

#include "coulomb/solvers/block_sparse_hessian_factorization.h"
#include "coulomb/solvers/dense_hessian_factorization.h"

namespace coulomb {

HessianFactorization::HessianFactorization(const ContactProblem& problem) {
  g_times_j_.resize(problem.num_constraints());
  for (int index = 0; index < problem.num_constraints(); ++index) {
    for (const JacobianBlock& block : problem.constraint(index).jacobian) {
      g_times_j_[index].emplace_back(block.matrix.rows(), block.matrix.cols());
    }
  }
}

void HessianFactorization::UpdateHessianTimesJacobian(
    const ContactProblem& problem, const std::vector<ConstraintMatrix>& hessians) {
  for (int index = 0; index < problem.num_constraints(); ++index) {
    const auto& jacobian = problem.constraint(index).jacobian;
    for (size_t b = 0; b < jacobian.size(); ++b) {
      g_times_j_[index][b].noalias() = hessians[index] * jacobian[b].matrix;
    }
  }
}

std::unique_ptr<HessianFactorization> MakeHessianFactorization(LinearSolverType type,
                                                               const ContactProblem& problem,
                                                               const CliqueGraph& graph) {
  if (type == LinearSolverType::kDense) {
    return std::make_unique<DenseHessianFactorization>(problem);
  }
  return std::make_unique<BlockSparseHessianFactorization>(problem, graph);
}

}  // namespace coulomb
