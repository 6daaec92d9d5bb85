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
    BlockSparseCholesky::BlockHandle handle;
  };

  // After a Factor of this problem (values and active set) where only the
  // flagged changed_hessians() have a new G_i: H changes by J_iᵀ ΔG_i J_i for
  // those alone, added to the copy of H the Cholesky keeps, and only the
  // supernodes they touch and their ancestors in the elimination tree are
  // factored again (BlockSparseCholesky::Refactor). A Newton iteration where
  // a few contacts change region (sticking ones keep G_i = R⁻¹) pays for
  // those contacts' terms and the part of the factor they reach. After
  // kMaxIncrementalUpdates such updates H is assembled anew, which bounds
  // the round-off the differences accumulate; and when more than half of the
  // active constraints on supernodes larger than a body changed
  // (FewHessiansChanged), which one product assembles faster than their
  // changes one by one. (A body's 6 × 6 blocks cost the same either way.)
  bool Refactor(const std::vector<ConstraintMatrix>& hessians);
  bool FewHessiansChanged() const;
  static constexpr int kMaxIncrementalUpdates = 16;
  // ΔH of one changed constraint into the kept H (see Refactor).
  void AddChangedConstraint(int constraint, const ConstraintMatrix& hessian);
  // The same for a contact on one or two bodies (IsBodyContact).
  void AddChangedBodyContact(int constraint, const ConstraintMatrix& hessian);
  // Whether a constraint with `rows` rows is a contact on one or two
  // supernodes of one rigid body each (after AssignConstraintTerms).
  bool IsBodyContact(int constraint, int rows) const {
    return !dense_constraint_[constraint] && rows == 3 &&
           partition().supernodes_of_constraint[constraint].size() <= 2;
  }
  // A body contact's J_iᵀ G J_i, for a 3 × 3 G (column-major), added to the
  // kept copy of H (kept) or to the matrix to be factored.
  void AddBodyContactTerms(int constraint, const double* g, bool kept);
  // H = A + Σ J_iᵀ G_i J_i into the active blocks, when every constraint is
  // a body contact (only_body_contacts_): each contact's terms at once on
  // fixed-size blocks, without stacking G_i J_i first.
  void AssembleBodyContacts(const ContactProblem& problem,
                            const std::vector<ConstraintMatrix>& hessians);

  // Σ A_t + J_sᵀ G J_s into supernode s's diagonal block.
  void AddDiagonalBlock(const ContactProblem& problem, int s);
  // J_aᵀ G J_b into its block below the diagonal.
  void AddOffDiagonalTerm(const Term& term);
  // Where AddTransposeProduct adds: a diagonal block (its lower triangle at
  // least), a block below the diagonal, or one stored transposed.
  enum class Target { kDiagonal, kBlock, kTransposedBlock };
  static Target BlockTarget(const Term& term) {
    return term.handle.transposed ? Target::kTransposedBlock : Target::kBlock;
  }
  // block += J_aᵀ X_b for a constraint's rows J_a on supernode a and X_b
  // (G J_b or its change) on supernode b.
  template <typename JRows, typename XRows>
  void AddTransposeProduct(Eigen::Map<Eigen::MatrixXd> block, Target target,
                           const JRows& j_a, const XRows& x_b) const;

  BlockSparseCholesky cholesky_;
  // A contact's J_aᵀ (G J_b) between two bodies (body_block_kernels.h).
  TransposeProduct3x6Kernel add_contact_term_;
  std::vector<BlockSparseCholesky::BlockHandle> diagonal_handles_;
  std::vector<Term> terms_;
  // Refactor's: the incremental updates since H was last assembled, and
  // one constraint's ΔG_i J_is (sized in AssignConstraintTerms for the
  // largest).
  int incremental_updates_ = 0;
  std::vector<double> change_;
  std::vector<int> change_offset_;  // per supernode of that constraint, into change_
  std::vector<int> terms_start_;    // per constraint, into terms_ (and one past)
  // Per constraint: on a supernode larger than a body; and whether any is.
  std::vector<char> dense_constraint_;
  bool has_dense_constraints_ = false;
  bool only_body_contacts_ = false;  // every constraint IsBodyContact
  // Refactor's: per supernode, to refactor.
  std::vector<char> refactor_;
};

}  // namespace coulomb
