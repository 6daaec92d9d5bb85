#include "coulomb/solvers/dense_hessian_factorization.h"

namespace coulomb {

DenseHessianFactorization::DenseHessianFactorization(const ContactProblem& problem)
    : HessianFactorization(problem),
      h_(problem.num_dofs(), problem.num_dofs()),
      llt_(problem.num_dofs()) {}

bool DenseHessianFactorization::Factor(const ContactProblem& problem,
                                       const std::vector<ConstraintMatrix>& hessians) {
  UpdateHessianTimesJacobian(problem, hessians);
  h_.setZero();
  for (int clique = 0; clique < problem.num_cliques(); ++clique) {
    const int offset = problem.clique_offset(clique);
    const int size = problem.clique_size(clique);
    h_.block(offset, offset, size, size) = problem.clique_matrix(clique);
  }
  for (int index = 0; index < problem.num_constraints(); ++index) {
    const auto& jacobian = problem.constraint(index).jacobian;
    for (size_t a = 0; a < jacobian.size(); ++a) {
      const int row_offset = problem.clique_offset(jacobian[a].clique);
      for (size_t b = 0; b < jacobian.size(); ++b) {
        const int col_offset = problem.clique_offset(jacobian[b].clique);
        h_.block(row_offset, col_offset, jacobian[a].matrix.cols(), jacobian[b].matrix.cols())
            .noalias() += jacobian[a].matrix.transpose() * hessian_times_jacobian(index, b);
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
