#pragma once

#include <vector>

#include <Eigen/Dense>

#include "coulomb/solvers/contact_ncp.h"

namespace coulomb {

// The Delassus matrix W = J A⁻¹ Jᵀ of an NCP (m × m, m = 3 × contacts) as a
// dense matrix, assembled clique by clique:
//   W_ij = Σ_t J_it A_t⁻¹ J_jtᵀ   over the cliques t that i and j both touch,
// with A_t⁻¹ through the NCP's clique factorizations: O(Σ_t k_t (n_t² + k_t n_t))
// for k_t constraints on a clique of n_t dofs, never the dense J or A.
// For the dense path of the dual solver on small problems, where one m × m
// product per iteration is cheaper than J, A⁻¹ and Jᵀ applied in turn.
// Storage is reused: a problem of the previous size allocates nothing.
class DelassusMatrix {
 public:
  void Assemble(const ContactNcp& ncp);
  const Eigen::Map<const Eigen::MatrixXd>& matrix() const { return matrix_; }
  // Entries m² of W: how much storage Assemble needs.
  static double Entries(const ContactNcp& ncp) {
    const double m = ncp.problem().num_constraint_equations();
    return m * m;
  }

 private:
  std::vector<double> storage_;
  Eigen::Map<const Eigen::MatrixXd> matrix_{nullptr, 0, 0};
  // Per clique: the (constraint, block) pairs that touch it.
  std::vector<std::vector<std::pair<int, const JacobianBlock*>>> blocks_by_clique_;
  Eigen::MatrixXd a_inverse_jt_;  // A_t⁻¹ J_itᵀ of one clique's blocks, side by side
};

}  // namespace coulomb
