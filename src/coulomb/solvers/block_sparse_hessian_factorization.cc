#include "coulomb/solvers/block_sparse_hessian_factorization.h"

namespace coulomb {

BlockSparseHessianFactorization::BlockSparseHessianFactorization(
    const ContactProblem& problem)
    : HessianFactorization(problem, /*skips_inactive=*/true),
      cholesky_(BlockSparsityPattern{}) {
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
  terms_.clear();
  for (int index = 0; index < problem.num_constraints(); ++index) {
    const auto& supernodes = p.supernodes_of_constraint[index];
    const int rows = problem.constraint(index).potential->num_equations();
    for (int a = 0; a < static_cast<int>(supernodes.size()); ++a) {
      for (int b = 0; b < a; ++b) {
        terms_.push_back({index, rows, a, b, supernodes[a],
                          cholesky_.Handle(supernodes[a], supernodes[b])});
      }
    }
  }
}

namespace {

constexpr int kBodyDofs = 6;  // a free rigid body: blocks of fixed size

using ContactRows =
    Eigen::Map<const Eigen::Matrix<double, 3, kBodyDofs>, 0, Eigen::OuterStride<>>;

}  // namespace

bool BlockSparseHessianFactorization::Factor(
    const ContactProblem& problem, const std::vector<ConstraintMatrix>& hessians) {
  UpdateHessianTimesJacobians(problem, hessians);
  const std::vector<char>& active = active_supernodes();
  cholesky_.SetZero(&active);
  for (int s = 0; s < partition().num_supernodes(); ++s) {
    if (active[s]) AddDiagonalBlock(problem, s);
  }
  for (const Term& term : terms_) {
    if (active[term.supernode] && !zero_hessian(term.constraint))
      AddOffDiagonalTerm(term);
  }
  return cholesky_.Factor(&active);
}

void BlockSparseHessianFactorization::AddDiagonalBlock(const ContactProblem& problem,
                                                       int s) {
  auto diagonal = cholesky_.MutableBlock(diagonal_handles_[s]);
  AddCliqueMatrices(problem, s, diagonal);
  const Eigen::MatrixXd& j = stacked_jacobian(s);
  const Eigen::MatrixXd& gj = stacked_hessian_times_jacobian(s);
  if (j.cols() == kBodyDofs) {
    // Jᵀ(GJ) = Σ_i J_iᵀ (GJ)_i over the constraints i on the supernode, those
    // with G_i = 0 (no contact) left out; a contact's 3 × 6 slice at fixed
    // size. Only the lower triangle of a diagonal block is read by the
    // Cholesky: the whole 6 × 6 sum is cheaper than masking it.
    Eigen::Map<Eigen::Matrix<double, kBodyDofs, kBodyDofs>> block(diagonal.data());
    const Eigen::OuterStride<> stride(j.rows());
    for (const StackedRows& rows : constraint_rows(s)) {
      if (zero_hessian(rows.constraint)) continue;
      if (rows.rows == 3) {
        block.noalias() += ContactRows(&j(rows.row, 0), stride).transpose() *
                           ContactRows(&gj(rows.row, 0), stride);
        continue;
      }
      for (int row = rows.row; row < rows.row + rows.rows; ++row)
        block.noalias() += j.row(row).transpose() * gj.row(row);
    }
    return;
  }
  if (diagonal_product_.size() < static_cast<size_t>(diagonal.size()))
    diagonal_product_.resize(diagonal.size());
  Eigen::Map<Eigen::MatrixXd> product(diagonal_product_.data(), diagonal.rows(),
                                      diagonal.cols());
  product.noalias() = j.transpose() * gj;
  diagonal.triangularView<Eigen::Lower>() += product;
}

void BlockSparseHessianFactorization::AddOffDiagonalTerm(const Term& term) {
  const auto j_a = jacobian_block(term.constraint, term.a, term.rows);
  const auto gj_b = hessian_times_jacobian_block(term.constraint, term.b, term.rows);
  if (term.rows == 3 && j_a.cols() == kBodyDofs && gj_b.cols() == kBodyDofs) {
    const ContactRows j(j_a.data(), Eigen::OuterStride<>(j_a.outerStride()));
    const ContactRows gj(gj_b.data(), Eigen::OuterStride<>(gj_b.outerStride()));
    cholesky_.AddToBlock(term.handle, j.transpose() * gj);
  } else {
    cholesky_.AddToBlock(term.handle, j_a.transpose() * gj_b);
  }
}

void BlockSparseHessianFactorization::SolvePermuted(Eigen::Ref<Eigen::VectorXd> b) const {
  cholesky_.Solve(b, &active_supernodes());
}

}  // namespace coulomb
