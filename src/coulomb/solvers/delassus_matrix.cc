#include "coulomb/solvers/delassus_matrix.h"

namespace coulomb {

void DelassusMatrix::Assemble(const ContactNcp& ncp) {
  const ContactProblem& problem = ncp.problem();
  const int m = problem.num_constraint_equations();
  if (storage_.size() < static_cast<size_t>(m) * m) storage_.resize(size_t(m) * m);
  Eigen::Map<Eigen::MatrixXd> w(storage_.data(), m, m);
  w.setZero();
  if (blocks_by_clique_.size() < static_cast<size_t>(problem.num_cliques()))
    blocks_by_clique_.resize(problem.num_cliques());
  for (auto& blocks : blocks_by_clique_) blocks.clear();
  for (int i = 0; i < problem.num_constraints(); ++i) {
    for (const JacobianBlock& block : problem.constraint(i).jacobian)
      blocks_by_clique_[block.clique].emplace_back(i, &block);
  }
  for (int t = 0; t < problem.num_cliques(); ++t) {
    const auto& blocks = blocks_by_clique_[t];
    if (blocks.empty()) continue;
    const int n = problem.clique_size(t);
    a_inverse_jt_.resize(n, 3 * static_cast<int>(blocks.size()));
    for (size_t b = 0; b < blocks.size(); ++b)
      a_inverse_jt_.middleCols<3>(3 * b) = blocks[b].second->matrix.transpose();
    ncp.clique_factorization(t).solveInPlace(a_inverse_jt_);
    for (size_t a = 0; a < blocks.size(); ++a) {
      const int row = problem.constraint_offset(blocks[a].first);
      for (size_t b = 0; b < blocks.size(); ++b) {
        const int column = problem.constraint_offset(blocks[b].first);
        w.block<3, 3>(row, column).noalias() +=
            blocks[a].second->matrix * a_inverse_jt_.middleCols<3>(3 * b);
      }
    }
  }
  new (&matrix_) Eigen::Map<const Eigen::MatrixXd>(storage_.data(), m, m);
}

}  // namespace coulomb
