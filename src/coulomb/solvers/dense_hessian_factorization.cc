#include "coulomb/solvers/dense_hessian_factorization.h"

namespace coulomb {

DenseHessianFactorization::DenseHessianFactorization(const ContactProblem& problem)
    : HessianFactorization(problem),
      h_(problem.num_dofs(), problem.num_dofs()),
      llt_(problem.num_dofs()) {}

bool DenseHessianFactorization::Factor(const ContactProblem& problem,
                                       const std::vector<ConstraintMatrix>& hessians) {
  UpdateStackedJacobians(problem, hessians);
  h_.setZero();
  for (int clique = 0; clique < problem.num_cliques(); ++clique) {
    const int offset = problem.clique_offset(clique);
    const int size = problem.clique_size(clique);
    auto diagonal = h_.block(offset, offset, size, size);
    diagonal = problem.clique_matrix(clique);
    // LLT reads only the lower triangle: half the flops.
    diagonal.triangularView<Eigen::Lower>() +=
        stacked_jacobian(clique).transpose() * stacked_hessian_times_jacobian(clique);
  }
  // Off-diagonal clique pairs: J_rᵀ G J_c into the lower triangle (r after c).
  for (int index = 0; index < problem.num_constraints(); ++index) {
    const auto& jacobian = problem.constraint(index).jacobian;
    for (int a = 0; a < static_cast<int>(jacobian.size()); ++a) {
      for (int b = 0; b < a; ++b) {
        const bool a_after_b = problem.clique_offset(jacobian[a].clique) >
                               problem.clique_offset(jacobian[b].clique);
        const JacobianBlock& row = jacobian[a_after_b ? a : b];
        const int col = a_after_b ? b : a;
        const JacobianBlock& column = jacobian[col];
        h_.block(problem.clique_offset(row.clique), problem.clique_offset(column.clique),
                 row.matrix.cols(), column.matrix.cols())
            .noalias() +=
            row.matrix.transpose() * hessian_times_jacobian(problem, index, col);
      }
    }
  }
  llt_.compute(h_);
  return llt_.info() == Eigen::Success;
}

void DenseHessianFactorization::Solve(Eigen::Ref<Eigen::VectorXd> b) const {
  llt_.solveInPlace(b);
}

}  // namespace coulomb
