#include "coulomb/solvers/block_sparse_hessian_factorization.h"

#include <utility>

namespace coulomb {
namespace {

constexpr int kBodyDofs = 6;  // a free rigid body: blocks of fixed size

}  // namespace

BlockSparseHessianFactorization::BlockSparseHessianFactorization(
    const ContactProblem& problem)
    : HessianFactorization(problem, /*skips_inactive=*/true),
      cholesky_(BlockSparsityPattern{}),
      add_contact_term_(AddTransposeProduct3x6Kernel()) {
  AnalyzePattern(problem);
}

void BlockSparseHessianFactorization::AnalyzePattern(const ContactProblem& problem) {
  const SupernodePartition& p = partition();
  cholesky_.Analyze(p.pattern);
  diagonal_handles_.clear();
  for (int s = 0; s < p.num_supernodes(); ++s)
    diagonal_handles_.push_back(cholesky_.Handle(s, s));
  AssignConstraintTerms(problem);
}

void BlockSparseHessianFactorization::AssignConstraintTerms(
    const ContactProblem& problem) {
  const SupernodePartition& p = partition();
  assembled_sizes_.clear();
  for (int size : p.supernode_size)
    assembled_sizes_.push_back(size != kBodyDofs ? size : 0);
  assembled_.LayOut(assembled_sizes_, assembled_sizes_);
  assembled_version_.assign(p.num_supernodes(), 0);
  updates_since_assembly_.assign(p.num_supernodes(), 0);
  terms_.clear();
  for (int index = 0; index < problem.num_constraints(); ++index) {
    const auto& supernodes = p.supernodes_of_constraint[index];
    const int rows = problem.constraint_size(index);
    for (int a = 0; a < static_cast<int>(supernodes.size()); ++a) {
      for (int b = 0; b < a; ++b) {
        const BlockSparseCholesky::BlockHandle handle =
            cholesky_.Handle(supernodes[a], supernodes[b]);
        terms_.push_back(
            {index, rows, a, b, supernodes[a], cholesky_.ColumnOf(handle), handle});
      }
    }
  }
}

bool BlockSparseHessianFactorization::AssembleAndFactor(
    const ContactProblem& problem, const std::vector<ConstraintMatrix>& hessians) {
  const std::vector<char>& active = active_supernodes();
  if (num_changed_hessians() > 0) return Refactor(problem, hessians);
  UpdateHessianTimesJacobians(problem, hessians);
  cholesky_.SetZero(&active);
  for (int s = 0; s < partition().num_supernodes(); ++s) {
    if (active[s]) AddDiagonalBlock(problem, hessians, s, /*refactoring=*/false);
  }
  for (const Term& term : terms_) {
    if (active[term.supernode] && !zero_hessian(term.constraint))
      AddOffDiagonalTerm(term);
  }
  return cholesky_.Factor(&active);
}

bool BlockSparseHessianFactorization::Refactor(
    const ContactProblem& problem, const std::vector<ConstraintMatrix>& hessians) {
  const std::vector<char>& active = active_supernodes();
  const SupernodePartition& p = partition();
  refactor_.assign(p.num_supernodes(), 0);
  for (int index = 0; index < problem.num_constraints(); ++index) {
    if (!changed_hessians()[index]) continue;
    for (int s : p.supernodes_of_constraint[index]) refactor_[s] = active[s];
  }
  cholesky_.AddAncestors(&refactor_);
  UpdateHessianTimesJacobians(problem, hessians, &changed_hessians());
  cholesky_.SetZero(&refactor_);
  for (int s = 0; s < p.num_supernodes(); ++s) {
    if (refactor_[s]) AddDiagonalBlock(problem, hessians, s, /*refactoring=*/true);
  }
  for (const Term& term : terms_) {
    if (refactor_[term.column] && !zero_hessian(term.constraint))
      AddOffDiagonalTerm(term);
  }
  return cholesky_.Refactor(refactor_, &active);
}

void BlockSparseHessianFactorization::AddDiagonalBlock(
    const ContactProblem& problem, const std::vector<ConstraintMatrix>& hessians, int s,
    bool refactoring) {
  auto diagonal = cholesky_.MutableBlock(diagonal_handles_[s]);
  const Eigen::Map<const Eigen::MatrixXd> j = stacked_jacobian(s);
  if (j.cols() != kBodyDofs) {
    diagonal.triangularView<Eigen::Lower>() +=
        AssembledDenseBlock(problem, hessians, s, refactoring);
    return;
  }
  AddCliqueMatrices(problem, s, diagonal);
  // Jᵀ(GJ) = Σ_i J_iᵀ (GJ)_i over the constraints i on the supernode, those
  // with G_i = 0 (no contact) left out; a contact's 3 × 6 slice through the
  // body-block kernel. Only the lower triangle of a diagonal block is read by the
  // Cholesky: the whole 6 × 6 sum is cheaper than masking it.
  const Eigen::Map<const Eigen::MatrixXd> gj = stacked_hessian_times_jacobian(s);
  Eigen::Map<Eigen::Matrix<double, kBodyDofs, kBodyDofs>> block(diagonal.data());
  for (const StackedRows& rows : constraint_rows(s)) {
    if (zero_hessian(rows.constraint)) continue;
    if (rows.rows == 3) {
      add_contact_term_(block.data(), j.data() + rows.row, static_cast<int>(j.rows()),
                        gj.data() + rows.row, static_cast<int>(gj.rows()));
      continue;
    }
    for (int row = rows.row; row < rows.row + rows.rows; ++row)
      block.noalias() += j.row(row).transpose() * gj.row(row);
  }
}

Eigen::Map<const Eigen::MatrixXd> BlockSparseHessianFactorization::AssembledDenseBlock(
    const ContactProblem& problem, const std::vector<ConstraintMatrix>& hessians, int s,
    bool refactoring) {
  const Eigen::Map<const Eigen::MatrixXd> j = stacked_jacobian(s);
  Eigen::Map<Eigen::MatrixXd> assembled = assembled_[s];
  int changed_rows = 0;
  if (refactoring) {
    for (const StackedRows& rows : constraint_rows(s)) {
      if (changed_hessians()[rows.constraint]) changed_rows += rows.rows;
    }
  }
  const bool update = refactoring && assembled_version_[s] == values_version() &&
                      updates_since_assembly_[s] < kMaxIncrementalUpdates &&
                      2 * changed_rows <= j.rows();
  if (!update) {
    // A_s + Jᵀ(GJ), the lower triangle only (Eigen's triangular product:
    // half the work of the full one).
    assembled.setZero();
    AddCliqueMatrices(problem, s, assembled);
    if (j.rows() > 0) {  // (Eigen's triangular product reads an empty J's null data)
      assembled.triangularView<Eigen::Lower>() +=
          j.transpose() * stacked_hessian_times_jacobian(s);
    }
    assembled_version_[s] = values_version();
    updates_since_assembly_[s] = 0;
    return std::as_const(assembled_)[s];
  }
  // Few G_i changed since the last Factor: H changes by J_iᵀ (G_i − G_i,old) J_i.
  for (const StackedRows& rows : constraint_rows(s)) {
    if (!changed_hessians()[rows.constraint]) continue;
    const auto j_i = j.middleRows(rows.row, rows.rows);
    if (delta_gj_.size() < static_cast<size_t>(j_i.size())) delta_gj_.resize(j_i.size());
    Eigen::Map<Eigen::MatrixXd> delta_gj(delta_gj_.data(), j_i.rows(), j_i.cols());
    delta_gj.noalias() =
        (hessians[rows.constraint] - factored_hessian(rows.constraint, rows.rows)) * j_i;
    assembled.triangularView<Eigen::Lower>() += j_i.transpose() * delta_gj;
  }
  if (changed_rows > 0) ++updates_since_assembly_[s];
  return std::as_const(assembled_)[s];
}

void BlockSparseHessianFactorization::AddOffDiagonalTerm(const Term& term) {
  const auto j_a = jacobian_block(term.constraint, term.a, term.rows);
  const auto gj_b = hessian_times_jacobian_block(term.constraint, term.b, term.rows);
  if (term.rows == 3 && j_a.cols() == kBodyDofs && gj_b.cols() == kBodyDofs) {
    // J_aᵀ (G J_b) into the stored block, or its transpose (G J_b)ᵀ J_a.
    double* block = cholesky_.MutableBlock(term.handle).data();
    const int j_stride = static_cast<int>(j_a.outerStride());
    const int gj_stride = static_cast<int>(gj_b.outerStride());
    if (term.handle.transposed) {
      add_contact_term_(block, gj_b.data(), gj_stride, j_a.data(), j_stride);
    } else {
      add_contact_term_(block, j_a.data(), j_stride, gj_b.data(), gj_stride);
    }
  } else {
    cholesky_.AddToBlock(term.handle, j_a.transpose() * gj_b);
  }
}

void BlockSparseHessianFactorization::SolvePermuted(Eigen::Ref<Eigen::VectorXd> b) const {
  cholesky_.Solve(b, &active_supernodes());
}

}  // namespace coulomb
