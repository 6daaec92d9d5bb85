#pragma once

#include <vector>

#include "coulomb/math/block_sparse_cholesky.h"
#include "coulomb/solvers/hessian_factorization.h"

namespace coulomb {

// H = A + JᵀGJ factored by the supernodal block Cholesky over the clique
// graph (SAP §IV-D): one supernode per clique, minimum-degree ordering, the
// symbolic analysis done once at construction. Islands never fill into each
// other, so they are factored independently at no extra cost.
class BlockSparseHessianFactorization final : public HessianFactorization {
 public:
  BlockSparseHessianFactorization(const ContactProblem& problem,
                                  const CliqueGraph& graph);

  bool Factor(const ContactProblem& problem,
              const std::vector<ConstraintMatrix>& hessians) override;
  void Solve(Eigen::Ref<Eigen::VectorXd> b) const override;

  const BlockSparseCholesky& cholesky() const { return cholesky_; }

 private:
  // J_aᵀ (G J_b) goes to block (clique_a, clique_b), for a > b in the
  // constraint's block list (a = b terms are summed per clique).
  struct Term {
    int constraint;
    int block_a;
    int block_b;
    BlockSparseCholesky::BlockHandle handle;
  };

  BlockSparseCholesky cholesky_;
  std::vector<BlockSparseCholesky::BlockHandle> diagonal_handles_;
  std::vector<Term> terms_;
};

}  // namespace coulomb
