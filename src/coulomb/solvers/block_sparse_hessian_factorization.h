#pragma once

#include <vector>

#include "coulomb/math/block_sparse_cholesky.h"
#include "coulomb/math/body_block_kernels.h"
#include "coulomb/math/packed_matrices.h"
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

  const BlockSparseCholesky& cholesky() const { return cholesky_; }

 private:
  bool AssembleAndFactor(const ContactProblem& problem,
                         const std::vector<ConstraintMatrix>& hessians) override;
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
    int column;     // the Cholesky column holding the block
    BlockSparseCholesky::BlockHandle handle;
  };

  // After a Factor of this problem (values and active set) where only the
  // flagged changed_hessians() have a new G_i: only the supernodes they
  // touch and their ancestors in the elimination tree are assembled and
  // factored again (BlockSparseCholesky::Refactor): a Newton iteration where
  // a few contacts change region (sticking ones keep G_i = R⁻¹) pays for the
  // part of the factor they reach.
  bool Refactor(const ContactProblem& problem,
                const std::vector<ConstraintMatrix>& hessians);

  // Σ A_t + J_sᵀ G J_s into supernode s's diagonal block; `refactoring`:
  // called by Refactor (changed_hessians() valid).
  void AddDiagonalBlock(const ContactProblem& problem,
                        const std::vector<ConstraintMatrix>& hessians, int s,
                        bool refactoring);
  // A_s + J_sᵀ G J_s of a supernode larger than one body (lower triangle),
  // kept from the last Factor. Within Refactor (`refactoring`: the same J,
  // A, layout and active set as that Factor), when at most half of its
  // constraint rows have a new G_i, it is updated by J_iᵀ ΔG_i J_i for
  // those (an iterate where few contacts change region, CANAL's late inner
  // iterations), else assembled anew; and anew after kMaxIncrementalUpdates
  // updates, which bounds the round-off the differences accumulate.
  Eigen::Map<const Eigen::MatrixXd> AssembledDenseBlock(
      const ContactProblem& problem, const std::vector<ConstraintMatrix>& hessians, int s,
      bool refactoring);
  static constexpr int kMaxIncrementalUpdates = 16;
  // J_aᵀ G J_b into its block below the diagonal.
  void AddOffDiagonalTerm(const Term& term);

  BlockSparseCholesky cholesky_;
  // A contact's J_aᵀ (G J_b) between two bodies (body_block_kernels.h).
  TransposeProduct3x6Kernel add_contact_term_;
  std::vector<BlockSparseCholesky::BlockHandle> diagonal_handles_;
  std::vector<Term> terms_;
  // AssembledDenseBlock's state, per supernode: the block (sized with the
  // layout; empty for a single body, which is added in place), the
  // values_version it was assembled for (0: none) and the updates since.
  // ΔG_i J_i's storage, grown to the largest seen.
  PackedMatrices assembled_;
  std::vector<int> assembled_sizes_;
  std::vector<std::uint64_t> assembled_version_;
  std::vector<int> updates_since_assembly_;
  std::vector<double> delta_gj_;
  // Refactor's: per supernode, to refactor.
  std::vector<char> refactor_;
};

}  // namespace coulomb
