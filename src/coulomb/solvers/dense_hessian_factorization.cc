#include "coulomb/solvers/dense_hessian_factorization.h"

namespace coulomb {

DenseHessianFactorization::DenseHessianFactorization(const ContactProblem& problem)
    : HessianFactorization(problem, /*skips_inactive=*/false),
      h_(problem.num_dofs(), problem.num_dofs()),
      llt_(problem.num_dofs()) {}

void DenseHessianFactorization::AnalyzePattern(const ContactProblem& problem) {
  h_.resize(problem.num_dofs(), problem.num_dofs());
}

bool DenseHessianFactorization::AssembleAndFactor(
    const ContactProblem& problem, const std::vector<ConstraintMatrix>& hessians) {
  UpdateHessianTimesJacobians(problem, hessians);
  const SupernodePartition& p = partition();
  h_.setZero();  // LLT reads only the lower triangle, so only it is assembled
  for (int s = 0; s < p.num_supernodes(); ++s) {
    auto diagonal = h_.block(p.supernode_offset[s], p.supernode_offset[s],
                             p.supernode_size[s], p.supernode_size[s]);
    AddCliqueMatrices(problem, s, diagonal);
    // (A supernode no constraint touches has an empty stack: Eigen's
    // triangular product would take a reference into its null storage.)
    if (stacked_jacobian(s).rows() == 0) continue;
    diagonal.triangularView<Eigen::Lower>() +=
        stacked_jacobian(s).transpose() * stacked_hessian_times_jacobian(s);
  }
  // Supernode pairs of a constraint: J_rᵀ G J_c with r after c (lower triangle).
  for (int index = 0; index < problem.num_constraints(); ++index) {
    const auto& supernodes = p.supernodes_of_constraint[index];
    const int rows = problem.constraint_size(index);
    for (int a = 0; a < static_cast<int>(supernodes.size()); ++a) {
      for (int b = 0; b < a; ++b) {
        const bool a_after_b =
            p.supernode_offset[supernodes[a]] > p.supernode_offset[supernodes[b]];
        const int r = a_after_b ? a : b;
        const int c = a_after_b ? b : a;
        h_.block(p.supernode_offset[supernodes[r]], p.supernode_offset[supernodes[c]],
                 p.supernode_size[supernodes[r]], p.supernode_size[supernodes[c]])
            .noalias() += jacobian_block(index, r, rows).transpose() *
                          hessian_times_jacobian_block(index, c, rows);
      }
    }
  }
  llt_.compute(h_);
  return llt_.info() == Eigen::Success;
}

void DenseHessianFactorization::SolvePermuted(Eigen::Ref<Eigen::VectorXd> b) const {
  llt_.solveInPlace(b);
}

}  // namespace coulomb
