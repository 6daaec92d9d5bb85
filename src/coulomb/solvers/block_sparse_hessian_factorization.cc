#include "coulomb/solvers/block_sparse_hessian_factorization.h"

#include <algorithm>
#include <array>

#include "coulomb/math/small_block_products.h"

namespace coulomb {
namespace {

constexpr int kBodyDofs = SupernodePartition::kBodyDofs;  // a body: fixed-size blocks

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
  terms_.clear();
  terms_start_.clear();
  dense_constraint_.assign(problem.num_constraints(), 0);
  has_dense_constraints_ = false;
  only_body_contacts_ = true;
  size_t largest_change = 0, most_supernodes = 0;
  for (int index = 0; index < problem.num_constraints(); ++index) {
    terms_start_.push_back(static_cast<int>(terms_.size()));
    const auto& supernodes = p.supernodes_of_constraint[index];
    const int rows = problem.constraint_size(index);
    size_t change = 0;
    for (int a = 0; a < static_cast<int>(supernodes.size()); ++a) {
      change += static_cast<size_t>(rows) * p.supernode_size[supernodes[a]];
      for (int b = 0; b < a; ++b) {
        const BlockSparseCholesky::BlockHandle handle =
            cholesky_.Handle(supernodes[a], supernodes[b]);
        terms_.push_back({index, rows, a, b, supernodes[a], handle});
      }
    }
    largest_change = std::max(largest_change, change);
    dense_constraint_[index] =
        std::any_of(supernodes.begin(), supernodes.end(),
                    [&](int s) { return p.supernode_size[s] != kBodyDofs; });
    has_dense_constraints_ = has_dense_constraints_ || dense_constraint_[index];
    only_body_contacts_ = only_body_contacts_ && IsBodyContact(index, rows);
    most_supernodes = std::max(most_supernodes, supernodes.size());
  }
  terms_start_.push_back(static_cast<int>(terms_.size()));
  if (change_.size() < largest_change) change_.resize(largest_change);
  if (change_offset_.size() < most_supernodes) change_offset_.resize(most_supernodes);
}

bool BlockSparseHessianFactorization::AssembleAndFactor(
    const ContactProblem& problem, const std::vector<ConstraintMatrix>& hessians) {
  const std::vector<char>& active = active_supernodes();
  if (num_changed_hessians() > 0 && incremental_updates_ < kMaxIncrementalUpdates &&
      FewHessiansChanged())
    return Refactor(hessians);
  if (only_body_contacts_) {
    AssembleBodyContacts(problem, hessians);
  } else {
    UpdateHessianTimesJacobians(problem, hessians);
    cholesky_.SetZero(&active);
    for (int s = 0; s < partition().num_supernodes(); ++s) {
      if (active[s]) AddDiagonalBlock(problem, s);
    }
    for (const Term& term : terms_) {
      if (active[term.supernode] && !zero_hessian(term.constraint))
        AddOffDiagonalTerm(term);
    }
  }
  cholesky_.KeepMatrix(active);
  incremental_updates_ = 0;
  return cholesky_.Factor(&active);
}

void BlockSparseHessianFactorization::AssembleBodyContacts(
    const ContactProblem& problem, const std::vector<ConstraintMatrix>& hessians) {
  // Each block gets A_s first, then the constraints' terms in increasing
  // order: the sums of the general path, in its order.
  const std::vector<char>& active = active_supernodes();
  cholesky_.SetZero(&active);
  for (int s = 0; s < partition().num_supernodes(); ++s) {
    if (active[s])
      AddCliqueMatrices(problem, s, cholesky_.MutableBlock(diagonal_handles_[s]));
  }
  for (int index : active_constraints()) {
    const Eigen::Map<const Eigen::Matrix<double, 9, 1>> g(hessians[index].data());
    if ((g.array() != 0.0).any()) AddBodyContactTerms(index, g.data(), /*kept=*/false);
  }
}

bool BlockSparseHessianFactorization::FewHessiansChanged() const {
  if (!has_dense_constraints_) return true;
  // Both lists hold only constraints on active supernodes.
  const auto count_dense = [this](const std::vector<int>& constraints) {
    return std::count_if(constraints.begin(), constraints.end(),
                         [this](int index) { return dense_constraint_[index] != 0; });
  };
  return 2 * count_dense(changed_list()) <= count_dense(active_constraints());
}

bool BlockSparseHessianFactorization::Refactor(
    const std::vector<ConstraintMatrix>& hessians) {
  const std::vector<char>& active = active_supernodes();
  const SupernodePartition& p = partition();
  refactor_.assign(p.num_supernodes(), 0);
  // (Only constraints on active supernodes are compared, hence listed: one
  // on an island set aside is left out with the island.)
  for (int index : changed_list()) {
    AddChangedConstraint(index, hessians[index]);
    for (int s : p.supernodes_of_constraint[index]) refactor_[s] = 1;
  }
  ++incremental_updates_;
  // An inactive ancestor (reached through a zero coupling to an island set
  // aside) keeps its factor columns: left unmarked.
  cholesky_.AddAncestors(&refactor_, &active);
  cholesky_.RestoreMatrix(refactor_);
  return cholesky_.Refactor(refactor_, &active);
}

void BlockSparseHessianFactorization::AddChangedConstraint(
    int constraint, const ConstraintMatrix& hessian) {
  if (IsBodyContact(constraint, static_cast<int>(hessian.rows()))) {
    return AddChangedBodyContact(constraint, hessian);
  }
  HessianChangeTimesJacobian(constraint, hessian, change_.data());
  const auto& supernodes = partition().supernodes_of_constraint[constraint];
  const int rows = static_cast<int>(hessian.rows());
  // ΔG_i J_is of the k-th supernode starts at change_offset_[k].
  int offset = 0;
  for (size_t k = 0; k < supernodes.size(); ++k) {
    change_offset_[k] = offset;
    offset += rows * partition().supernode_size[supernodes[k]];
  }
  const auto change = [&](int k) {
    return Eigen::Map<const Eigen::MatrixXd>(change_.data() + change_offset_[k], rows,
                                             partition().supernode_size[supernodes[k]]);
  };
  for (int k = 0; k < static_cast<int>(supernodes.size()); ++k) {
    AddTransposeProduct(cholesky_.MutableKeptBlock(diagonal_handles_[supernodes[k]]),
                        Target::kDiagonal, jacobian_block(constraint, k, rows),
                        change(k));
  }
  for (int t = terms_start_[constraint]; t < terms_start_[constraint + 1]; ++t) {
    const Term& term = terms_[t];
    AddTransposeProduct(cholesky_.MutableKeptBlock(term.handle), BlockTarget(term),
                        jacobian_block(constraint, term.a, rows), change(term.b));
  }
}

void BlockSparseHessianFactorization::AddChangedBodyContact(
    int constraint, const ConstraintMatrix& hessian) {
  const Eigen::Matrix3d delta_g =
      Eigen::Map<const Eigen::Matrix3d>(hessian.data()) -
      Eigen::Map<const Eigen::Matrix3d>(factored_hessian(constraint, 3).data());
  AddBodyContactTerms(constraint, delta_g.data(), /*kept=*/true);
}

void BlockSparseHessianFactorization::AddBodyContactTerms(int constraint, const double* g,
                                                          bool kept) {
  // The general paths' sums, in their order, on fixed-size blocks: G J_is for
  // each body s, then J_isᵀ (G J_is) on each diagonal block and J_iaᵀ (G J_ib)
  // below it.
  const auto& supernodes = partition().supernodes_of_constraint[constraint];
  const int num_bodies = static_cast<int>(supernodes.size());
  std::array<Eigen::Matrix<double, 3, kBodyDofs>, 2> g_j;
  std::array<const double*, 2> j;
  std::array<int, 2> j_stride;
  for (int k = 0; k < num_bodies; ++k) {
    const auto rows = jacobian_block(constraint, k, 3);
    j[k] = rows.data();
    j_stride[k] = static_cast<int>(rows.outerStride());
    times_contact_rows(g, j[k], j_stride[k], g_j[k].data(), 3);
  }
  const auto block = [&](const BlockSparseCholesky::BlockHandle& handle) {
    return kept ? cholesky_.MutableKeptBlock(handle).data()
                : cholesky_.MutableBlock(handle).data();
  };
  for (int k = 0; k < num_bodies; ++k) {
    add_contact_term_(block(diagonal_handles_[supernodes[k]]), j[k], j_stride[k],
                      g_j[k].data(), 3);
  }
  for (int t = terms_start_[constraint]; t < terms_start_[constraint + 1]; ++t) {
    const Term& term = terms_[t];
    if (term.handle.transposed) {
      add_contact_term_(block(term.handle), g_j[term.b].data(), 3, j[term.a],
                        j_stride[term.a]);
    } else {
      add_contact_term_(block(term.handle), j[term.a], j_stride[term.a],
                        g_j[term.b].data(), 3);
    }
  }
}

void BlockSparseHessianFactorization::AddDiagonalBlock(const ContactProblem& problem,
                                                       int s) {
  auto diagonal = cholesky_.MutableBlock(diagonal_handles_[s]);
  const Eigen::Map<const Eigen::MatrixXd> j = stacked_jacobian(s);
  const Eigen::Map<const Eigen::MatrixXd> gj = stacked_hessian_times_jacobian(s);
  AddCliqueMatrices(problem, s, diagonal);
  if (j.cols() != kBodyDofs) {
    // A_s + Jᵀ(GJ), the lower triangle only: half the work of the whole.
    AddLowerTransposeProduct(j.data(), gj.data(), static_cast<int>(j.rows()),
                             static_cast<int>(j.cols()), diagonal.data());
    return;
  }
  // Jᵀ(GJ) = Σ_i J_iᵀ (GJ)_i over the constraints i on the supernode, those
  // with G_i = 0 (no contact) left out.
  for (const StackedRows& rows : constraint_rows(s)) {
    if (zero_hessian(rows.constraint)) continue;
    AddTransposeProduct(diagonal, Target::kDiagonal, j.middleRows(rows.row, rows.rows),
                        gj.middleRows(rows.row, rows.rows));
  }
}

void BlockSparseHessianFactorization::AddOffDiagonalTerm(const Term& term) {
  AddTransposeProduct(cholesky_.MutableBlock(term.handle), BlockTarget(term),
                      jacobian_block(term.constraint, term.a, term.rows),
                      hessian_times_jacobian_block(term.constraint, term.b, term.rows));
}

template <typename JRows, typename XRows>
void BlockSparseHessianFactorization::AddTransposeProduct(
    Eigen::Map<Eigen::MatrixXd> block, Target target, const JRows& j_a,
    const XRows& x_b) const {
  const bool transposed = target == Target::kTransposedBlock;
  if (j_a.rows() == 3 && j_a.cols() == kBodyDofs && x_b.cols() == kBodyDofs) {
    // A contact between two bodies through the body-block kernel: the whole
    // 6 × 6 product even on a diagonal block (cheaper than masking it).
    const int j_stride = static_cast<int>(j_a.outerStride());
    const int x_stride = static_cast<int>(x_b.outerStride());
    if (transposed) {
      add_contact_term_(block.data(), x_b.data(), x_stride, j_a.data(), j_stride);
    } else {
      add_contact_term_(block.data(), j_a.data(), j_stride, x_b.data(), x_stride);
    }
  } else if (transposed) {
    block.transpose().noalias() += j_a.transpose() * x_b;
  } else if (target == Target::kBlock) {
    block.noalias() += j_a.transpose() * x_b;
  } else if (j_a.rows() > 0) {  // (Eigen's triangular product reads empty rows' data)
    block.triangularView<Eigen::Lower>() += j_a.transpose() * x_b;
  }
}

void BlockSparseHessianFactorization::SolvePermuted(Eigen::Ref<Eigen::VectorXd> b) const {
  cholesky_.Solve(b, &active_supernodes());
}

}  // namespace coulomb
