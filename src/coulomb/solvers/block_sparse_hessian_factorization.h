#pragma once

#include <vector>

#include "coulomb/math/block_sparse_cholesky.h"
#include "coulomb/solvers/hessian_factorization.h"

namespace coulomb {

// H = A + JᵀGJ factored by the supernodal block Cholesky (SAP §IV-D): one
// supernode per group of indistinguishable cliques (SupernodePartition),
// minimum-degree ordering, the symbolic analysis done once at construction.
// Islands never fill into each other, so they are factored independently at
// no extra cost.
class BlockSparseHessianFactorization final : public HessianFactorization {
 public:
  explicit BlockSparseHessianFactorization(const ContactProblem& problem);

  bool Factor(const ContactProblem& problem,
              const std::vector<ConstraintMatrix>& hessians) override;

  const BlockSparseCholesky& cholesky() const { return cholesky_; }

 private:
  void SolvePermuted(Eigen::Ref<Eigen::VectorXd> b) const override;
  // terms_ for the problem's constraints.
  void AssignConstraintTerms(const ContactProblem& problem) override;
  // The Cholesky analysis of the supernode pattern, its diagonal handles and
  // the terms.
  void AnalyzePattern(const ContactProblem& problem) override;

  // J_aᵀ (G J_b) goes to block (supernode_a, supernode_b), for a > b in the
  // constraint's supernode list (a = b terms are summed per supernode).
  struct Term {
    int constraint;
    int rows;
    int a;
    int b;
    int supernode;  // supernode a (for the active mask)
    BlockSparseCholesky::BlockHandle handle;
  };

  // Σ A_t + J_sᵀ G J_s into supernode s's diagonal block.
  void AddDiagonalBlock(const ContactProblem& problem, int s);
  // J_aᵀ G J_b into its block below the diagonal.
  void AddOffDiagonalTerm(const Term& term);

  BlockSparseCholesky cholesky_;
  std::vector<BlockSparseCholesky::BlockHandle> diagonal_handles_;
  std::vector<Term> terms_;
  // Storage of a supernode's Jᵀ G J before it enters the lower triangle,
  // grown to the largest supernode seen: a factorization allocates nothing.
  std::vector<double> diagonal_product_;
};

}  // namespace coulomb
