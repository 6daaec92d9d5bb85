#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include <Eigen/Dense>

#include "coulomb/contact/contact_problem.h"
#include "coulomb/math/body_block_kernels.h"
#include "coulomb/math/packed_matrices.h"
#include "coulomb/math/reusable_lists.h"
#include "coulomb/solvers/sap_solver_parameters.h"
#include "coulomb/solvers/supernode_partition.h"

namespace coulomb {

// Factorization of the Newton matrix H = A + Jᵀ G J (SAP §IV-A, docs/math.md §2.3),
// with A = blockdiag(A_t) and G = blockdiag(G_i) ⪰ 0, so H ≻ 0.
//
// Built once per problem pattern (cliques and constraint–clique incidence),
// it keeps its storage and symbolic analysis; Factor() may be called for any
// problem with that pattern and any G. H is assembled per supernode (see
// SupernodePartition) in the permuted dof order; Solve() permutes in and out.
class HessianFactorization {
 public:
  virtual ~HessianFactorization() = default;

  // Copies the problem's Jacobian blocks into the stacked per-supernode
  // storage. Call once per solve, before Factor: J does not change between
  // the Newton iterations of one solve. Nothing to copy when the problem is
  // the one loaded last, unchanged (the same revision); the factor of the
  // last solve is then kept for the next Factor to update, unless that solve
  // left supernodes set aside (their factors are of its islands).
  void LoadJacobians(const ContactProblem& problem);
  // Assembles and factors H for the loaded J. Returns false if H is not
  // numerically SPD. When every G_i equals the last successful Factor's (same
  // J, A and active cliques), the factor is kept as it is: H has not changed.
  bool Factor(const ContactProblem& problem,
              const std::vector<ConstraintMatrix>& hessians);
  // Solves H x = b in place (b in the problem's dof order).
  void Solve(Eigen::Ref<Eigen::VectorXd> b) const;

  // Restricts the following Factor and Solve calls to the cliques marked in
  // `active_cliques` (one flag per clique), which must be whole islands of
  // the constraints whose G_i is not zero (EngagedIslands; each supernode's
  // cliques together): the block-sparse path leaves the others out (their
  // entries of Solve's result are then meaningless), the dense path factors
  // everything. Every clique is active after construction. An island set
  // aside keeps its factor: taken back in, only its G_i that changed since
  // are refactored, unless it was aside since LoadJacobians (then the next
  // Factor is a whole one).
  void SetActiveCliques(const std::vector<char>& active_cliques);
  // The same when the only change since the last call is that `cliques`
  // (whole islands) were set aside: their supernodes alone are visited.
  void SetCliquesAside(std::span<const int> cliques);

  // For a problem with the clique coupling of the one this factorization was
  // built from (CliqueCoupling::Update) but other constraints: keeps the
  // symbolic work (supernodes, ordering, fill) and lays out the new
  // constraints' rows. Then LoadJacobians as for any problem.
  void ReassignConstraints(const ContactProblem& problem);
  // For a problem with another clique coupling (or other cliques): redoes
  // the symbolic work as a new factorization would, reusing the storage.
  void Rebuild(const ContactProblem& problem);

  const SupernodePartition& partition() const { return partition_; }

 protected:
  // Per supernode: factored and solved (see SetActiveCliques).
  const std::vector<char>& active_supernodes() const { return active_supernodes_; }

  // skips_inactive: whether Factor and Solve honour SetActiveCliques (else
  // every clique stays active).
  HessianFactorization(const ContactProblem& problem, bool skips_inactive);

  // Assembles and factors H (Factor, when H may have changed).
  virtual bool AssembleAndFactor(const ContactProblem& problem,
                                 const std::vector<ConstraintMatrix>& hessians) = 0;
  // Within AssembleAndFactor, against the last successful Factor: -1 if it
  // is not of this problem's values and active set (or there is none); else
  // how many G_i differ from its (≥ 1), listed in changed_list() (increasing).
  int num_changed_hessians() const { return num_changed_hessians_; }
  const std::vector<int>& changed_list() const { return changed_list_; }
  // The constraints on active supernodes, increasing.
  const std::vector<int>& active_constraints() const { return active_constraints_; }
  // G_i (size × size) as the last successful Factor had it: within
  // AssembleAndFactor, when num_changed_hessians() ≥ 0, the G_i that H holds.
  Eigen::Map<const Eigen::MatrixXd> factored_hessian(int constraint, int size) const {
    return Eigen::Map<const Eigen::MatrixXd>(
        factored_hessians_.data() + factored_offsets_[constraint], size, size);
  }

  // Solves H x = b in place, b in the permuted (supernode) order.
  virtual void SolvePermuted(Eigen::Ref<Eigen::VectorXd> b) const = 0;
  // What a derived class keeps per constraint, (re)built after the rows are
  // laid out (the constructor of the derived class calls it itself).
  virtual void AssignConstraintTerms(const ContactProblem& /*problem*/) {}
  // A derived class's own symbolic work for the partition and rows of a
  // problem (its constructor calls it itself; Rebuild through this).
  virtual void AnalyzePattern(const ContactProblem& problem) = 0;

  // Refreshes, for the active supernodes s, G J_s from the stacked rows J_s of every
  // constraint on s (each constraint row-block spans all cliques of s), so
  // that the supernode's diagonal term Σ_i J_isᵀ G_i J_is = J_sᵀ (G J_s) is
  // one product; and zero_hessian(). Both hold what this call was given.
  void UpdateHessianTimesJacobians(const ContactProblem& problem,
                                   const std::vector<ConstraintMatrix>& hessians);
  // For a constraint whose G_i changed since the last successful Factor:
  // (G_i − G_i,factored) J_is on each supernode s it touches, into `change`,
  // the supernodes' blocks one after the other (rows × n_s each,
  // column-major). Within AssembleAndFactor, when num_changed_hessians() ≥ 0.
  void HessianChangeTimesJacobian(int constraint, const ConstraintMatrix& hessian,
                                  double* change) const;
  // Y = G J for a contact's rows on a body (body_block_kernels.h).
  void times_contact_rows(const double* g, const double* j, int j_stride, double* y,
                          int y_stride) const {
    times_contact_rows_(g, j, j_stride, y, y_stride);
  }
  Eigen::Map<const Eigen::MatrixXd> stacked_jacobian(int supernode) const {
    return stacked_j_[supernode];
  }
  Eigen::Map<const Eigen::MatrixXd> stacked_hessian_times_jacobian(int supernode) const {
    return stacked_gj_[supernode];
  }
  // The constraints on supernode s, in the order of their stacked rows:
  // constraint i's `rows` rows start at stacked row `row`.
  struct StackedRows {
    int constraint;
    int row;
    int rows;
  };
  std::span<const StackedRows> constraint_rows(int supernode) const {
    return std::span<const StackedRows>(constraint_rows_)
        .subspan(
            constraint_rows_start_[supernode],
            constraint_rows_start_[supernode + 1] - constraint_rows_start_[supernode]);
  }
  // G_i = 0 at the last UpdateHessianTimesJacobians (no contact): constraint
  // i adds nothing to H.
  bool zero_hessian(int constraint) const { return zero_hessian_[constraint]; }
  // J_is and G_i J_is for the k-th supernode constraint i touches.
  auto jacobian_block(int constraint, int k, int rows) const {
    return stacked_j_[partition_.supernodes_of_constraint[constraint][k]].middleRows(
        stacked_row_[constraint][k], rows);
  }
  auto hessian_times_jacobian_block(int constraint, int k, int rows) const {
    return stacked_gj_[partition_.supernodes_of_constraint[constraint][k]].middleRows(
        stacked_row_[constraint][k], rows);
  }
  // A_t for every clique of supernode s, placed in the s×s diagonal block.
  template <typename Block>
  void AddCliqueMatrices(const ContactProblem& problem, int supernode,
                         Block&& diagonal) const {
    for (int clique : partition_.cliques_of_supernode[supernode]) {
      const int offset = partition_.offset_in_supernode[clique];
      const int size = problem.clique_size(clique);
      if (size == 6 && diagonal.rows() == 6) {  // a free body alone: fixed size
        Eigen::Map<Eigen::Matrix<double, 6, 6>, 0, Eigen::OuterStride<>>(
            diagonal.data(), Eigen::OuterStride<>(diagonal.outerStride())) +=
            Eigen::Map<const Eigen::Matrix<double, 6, 6>>(
                problem.clique_matrix(clique).data());
      } else {
        diagonal.block(offset, offset, size, size) += problem.clique_matrix(clique);
      }
    }
  }

 private:
  // num_changed_hessians_ and changed_list_ for `hessians` (one pass).
  void CountChangedHessians(const std::vector<ConstraintMatrix>& hessians);
  // After a successful AssembleAndFactor: the G_i of the active constraints,
  // into factored_hessians_ (only the changed ones when the others are
  // there).
  void KeepFactoredHessians(const std::vector<ConstraintMatrix>& hessians);
  // stacked_row_, block_places_ and the stacks' sizes for the constraints.
  void LayOutConstraintRows(const ContactProblem& problem);
  // Everything but the partition sized for it, and the rows laid out.
  void LayOutPartition(const ContactProblem& problem);
  // active_constraints_ from active_supernodes_ (when
  // the rows are laid out and when a supernode is taken back in; setting
  // supernodes aside shrinks the list in place).
  void ListActiveConstraints();
  // Shrinks active_constraints_ to those on active supernodes.
  void DropInactiveConstraints();

  SupernodePartition partition_;
  PackedMatrices stacked_j_;        // per supernode: m_s × n_s
  PackedMatrices stacked_gj_;       // per supernode: m_s × n_s
  ReusableLists<int> stacked_row_;  // per constraint and touched supernode
  // Per constraint and Jacobian block: where the block goes in stacked_j_.
  struct BlockPlace {
    int supernode, row, column;
  };
  ReusableLists<BlockPlace> block_places_;
  std::vector<int> rows_on_supernode_;      // LayOutConstraintRows' workspace
  std::vector<int> constraint_rows_start_;  // per supernode, into constraint_rows_
  std::vector<StackedRows> constraint_rows_;
  std::vector<int> next_constraint_row_;  // LayOutConstraintRows' workspace
  std::vector<char> zero_hessian_;        // per constraint
  // Whether a constraint touches an active supernode. One between an island
  // set aside and an active one is active: its G_i is zero (SetActiveCliques'
  // islands), and its rows on the active supernode must say so (its G J
  // rows and zero_hessian_ updated), not hold what an earlier problem put
  // there.
  bool constraint_active(int constraint) const {
    for (int supernode : partition_.supernodes_of_constraint[constraint]) {
      if (active_supernodes_[supernode]) return true;
    }
    return false;
  }
  mutable Eigen::VectorXd permuted_;  // Solve() workspace
  bool skips_inactive_;
  std::vector<char> active_supernodes_;
  // Per supernode: the values version its columns of the factor are of (the
  // last whole factorization it was active in; 0: none, or one failed since).
  std::vector<std::uint64_t> supernode_values_version_;
  // What the factor is of (see Factor): the loaded problem's revision (0:
  // none), the versions of the values and of the active set (a new one when
  // a supernode without a factor of these values is taken back in), and
  // the G_i.
  std::uint64_t loaded_revision_ = 0;
  std::uint64_t values_version_ = 1;
  std::uint64_t active_version_ = 1;
  bool has_factor_ = false;  // the last Factor succeeded
  std::uint64_t factored_values_version_ = 0;
  std::uint64_t factored_active_version_ = 0;
  int num_changed_hessians_ = -1;
  std::vector<int> changed_list_;  // the constraints whose G_i changed
  // The constraints on active supernodes (constraint_active), increasing;
  // the loops over constraints run over these.
  std::vector<int> active_constraints_;
  std::vector<double> factored_hessians_;  // the G_i's entries, one after the other
  // Per constraint, where its G_i starts; then where the last one ends.
  std::vector<size_t> factored_offsets_;
  // G_i J_i of a contact on a rigid body (3 × 3 times 3 × 6), for this processor.
  Product3x3By3x6Kernel times_contact_rows_;
};

std::unique_ptr<HessianFactorization> MakeHessianFactorization(
    LinearSolverType type, const ContactProblem& problem);

}  // namespace coulomb
