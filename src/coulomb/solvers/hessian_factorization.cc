#include "coulomb/solvers/hessian_factorization.h"

#include <algorithm>

#include "coulomb/solvers/block_sparse_hessian_factorization.h"
#include "coulomb/solvers/dense_hessian_factorization.h"

namespace coulomb {

HessianFactorization::HessianFactorization(const ContactProblem& problem,
                                           bool skips_inactive)
    : partition_(problem),
      skips_inactive_(skips_inactive),
      times_contact_rows_(Times3x3By3x6Kernel()) {
  LayOutPartition(problem);
}

void HessianFactorization::Rebuild(const ContactProblem& problem) {
  loaded_revision_ = 0;
  ++values_version_;
  partition_.Rebuild(problem);
  LayOutPartition(problem);
  AnalyzePattern(problem);
}

void HessianFactorization::LayOutPartition(const ContactProblem& problem) {
  permuted_.resize(problem.num_dofs());
  active_supernodes_.assign(partition_.num_supernodes(), 1);
  supernode_values_version_.assign(partition_.num_supernodes(), 0);
  LayOutConstraintRows(problem);
}

void HessianFactorization::ReassignConstraints(const ContactProblem& problem) {
  loaded_revision_ = 0;
  ++values_version_;
  partition_.AssignConstraints(problem);
  LayOutConstraintRows(problem);
  AssignConstraintTerms(problem);
}

void HessianFactorization::LayOutConstraintRows(const ContactProblem& problem) {
  // Rows stack constraint by constraint on every supernode a constraint
  // touches; constraint_rows_ lists them supernode by supernode (a counting
  // sort, constraints ascending within a supernode as their rows are).
  const int num_supernodes = partition_.num_supernodes();
  rows_on_supernode_.assign(num_supernodes, 0);
  constraint_rows_start_.assign(num_supernodes + 1, 0);
  stacked_row_.Reset(problem.num_constraints());
  for (int index = 0; index < problem.num_constraints(); ++index) {
    const int rows = problem.constraint_size(index);
    for (int supernode : partition_.supernodes_of_constraint[index]) {
      stacked_row_[index].push_back(rows_on_supernode_[supernode]);
      rows_on_supernode_[supernode] += rows;
      ++constraint_rows_start_[supernode + 1];
    }
  }
  for (int supernode = 0; supernode < num_supernodes; ++supernode)
    constraint_rows_start_[supernode + 1] += constraint_rows_start_[supernode];
  stacked_j_.LayOut(rows_on_supernode_, partition_.supernode_size);
  stacked_gj_.LayOut(rows_on_supernode_, partition_.supernode_size);
  constraint_rows_.resize(constraint_rows_start_.back());
  next_constraint_row_.assign(constraint_rows_start_.begin(),
                              constraint_rows_start_.end() - 1);
  for (int index = 0; index < problem.num_constraints(); ++index) {
    const int rows = problem.constraint_size(index);
    const auto& supernodes = partition_.supernodes_of_constraint[index];
    for (size_t k = 0; k < supernodes.size(); ++k) {
      constraint_rows_[next_constraint_row_[supernodes[k]]++] = {
          index, stacked_row_[index][k], rows};
    }
  }
  zero_hessian_.assign(problem.num_constraints(), 0);
  ListActiveConstraints();
  block_places_.Reset(problem.num_constraints());
  for (int index = 0; index < problem.num_constraints(); ++index) {
    const auto& supernodes = partition_.supernodes_of_constraint[index];
    for (const JacobianBlock& block : problem.constraint(index).jacobian) {
      const int supernode = partition_.supernode_of_clique[block.clique];
      const auto k =
          std::find(supernodes.begin(), supernodes.end(), supernode) - supernodes.begin();
      block_places_[index].push_back({supernode, stacked_row_[index][k],
                                      partition_.offset_in_supernode[block.clique]});
    }
  }
}

void HessianFactorization::LoadJacobians(const ContactProblem& problem) {
  // A new solve forms its islands anew: a supernode still set aside from
  // the last one kept a factor (and a kept H) that may couple it to
  // supernodes of another island now, through constraints the new solve
  // compares as unchanged or as zero. Its factors are then not kept.
  if (problem.revision() == loaded_revision_) {
    const bool any_aside = std::find(active_supernodes_.begin(), active_supernodes_.end(),
                                     0) != active_supernodes_.end();
    if (any_aside) ++values_version_;
    return;
  }
  ++values_version_;
  loaded_revision_ = problem.revision();
  for (int index = 0; index < problem.num_constraints(); ++index) {
    const auto& blocks = problem.constraint(index).jacobian;
    for (size_t b = 0; b < blocks.size(); ++b) {
      const BlockPlace& place = block_places_[index][b];
      Eigen::Map<Eigen::MatrixXd> stacked = stacked_j_[place.supernode];
      const Eigen::MatrixXd& j = blocks[b].matrix;
      if (j.rows() == 3 && j.cols() == 6) {  // a contact on a free body
        Eigen::Map<Eigen::Matrix<double, 3, 6>, 0, Eigen::OuterStride<>>(
            &stacked(place.row, place.column), Eigen::OuterStride<>(stacked.rows())) =
            Eigen::Map<const Eigen::Matrix<double, 3, 6>>(j.data());
      } else {
        stacked.block(place.row, place.column, j.rows(), j.cols()) = j;
      }
    }
  }
}

void HessianFactorization::UpdateHessianTimesJacobians(
    const ContactProblem& problem, const std::vector<ConstraintMatrix>& hessians) {
  for (int index : active_constraints_) {
    const auto& blocks = problem.constraint(index).jacobian;
    zero_hessian_[index] = (hessians[index].array() == 0.0).all();
    for (size_t b = 0; b < blocks.size(); ++b) {
      const BlockPlace& place = block_places_[index][b];
      Eigen::Map<Eigen::MatrixXd> gj = stacked_gj_[place.supernode];
      const Eigen::MatrixXd& j = blocks[b].matrix;
      if (zero_hessian_[index]) {
        gj.block(place.row, place.column, j.rows(), j.cols()).setZero();
      } else if (j.rows() == 3 && j.cols() == 6) {  // a contact on a free body
        times_contact_rows_(hessians[index].data(), j.data(), 3,
                            &gj(place.row, place.column), static_cast<int>(gj.rows()));
      } else if (j.rows() == 3) {  // a contact on a larger clique: 3 × 3 times 3 × n
        gj.block(place.row, place.column, 3, j.cols()).noalias() =
            Eigen::Map<const Eigen::Matrix3d>(hessians[index].data()).lazyProduct(j);
      } else {
        gj.block(place.row, place.column, j.rows(), j.cols()).noalias() =
            hessians[index] * j;
      }
    }
  }
}

void HessianFactorization::HessianChangeTimesJacobian(int constraint,
                                                      const ConstraintMatrix& hessian,
                                                      double* change) const {
  const int rows = static_cast<int>(hessian.rows());
  const auto factored = factored_hessian(constraint, rows);
  const auto& supernodes = partition_.supernodes_of_constraint[constraint];
  for (size_t k = 0; k < supernodes.size(); ++k) {
    const double* j = stacked_j_[supernodes[k]].data() + stacked_row_[constraint][k];
    const int stride = static_cast<int>(stacked_j_[supernodes[k]].rows());
    const int cols = partition_.supernode_size[supernodes[k]];
    if (rows == 3 && cols == 6) {  // a contact on a free body: fixed size
      const Eigen::Matrix3d delta_g = Eigen::Map<const Eigen::Matrix3d>(hessian.data()) -
                                      Eigen::Map<const Eigen::Matrix3d>(factored.data());
      times_contact_rows_(delta_g.data(), j, stride, change, 3);
    } else {
      const ConstraintMatrix delta_g = hessian - factored;  // (on the stack: ≤ 6 × 6)
      Eigen::Map<Eigen::MatrixXd>(change, rows, cols).noalias() =
          delta_g * Eigen::Map<const Eigen::MatrixXd, 0, Eigen::OuterStride<>>(
                        j, rows, cols, Eigen::OuterStride<>(stride));
    }
    change += rows * cols;
  }
}

void HessianFactorization::SetActiveCliques(const std::vector<char>& active_cliques) {
  if (!skips_inactive_) return;
  bool taken_back = false, set_aside = false, unfactored = false;
  for (int s = 0; s < partition_.num_supernodes(); ++s) {
    const char active = active_cliques[partition_.cliques_of_supernode[s].front()];
    if (active && !active_supernodes_[s]) {
      taken_back = true;
      unfactored = unfactored || supernode_values_version_[s] != values_version_;
    }
    set_aside = set_aside || (!active && active_supernodes_[s]);
    active_supernodes_[s] = active;
  }
  // A supernode set aside leaves the others' factor valid, and keeps its own
  // (no factorization touches it meanwhile): taken back in, it needs a new
  // one only if it has none of these values (aside since they were loaded).
  if (taken_back) {
    if (unfactored) ++active_version_;
    ListActiveConstraints();
  } else if (set_aside) {
    DropInactiveConstraints();
  }
}

void HessianFactorization::SetCliquesAside(std::span<const int> cliques) {
  if (!skips_inactive_) return;
  bool set_aside = false;
  for (int clique : cliques) {
    char& active = active_supernodes_[partition_.supernode_of_clique[clique]];
    set_aside = set_aside || active;
    active = 0;
  }
  if (set_aside) DropInactiveConstraints();
}

void HessianFactorization::DropInactiveConstraints() {
  // The list only shrinks: no pass over every constraint.
  std::erase_if(active_constraints_,
                [&](int index) { return !constraint_active(index); });
}

void HessianFactorization::ListActiveConstraints() {
  // Room for every constraint: CountChangedHessians lists without allocating.
  const int num_constraints = static_cast<int>(zero_hessian_.size());
  active_constraints_.reserve(num_constraints);
  changed_list_.reserve(num_constraints);
  active_constraints_.clear();
  for (int index = 0; index < num_constraints; ++index) {
    if (constraint_active(index)) active_constraints_.push_back(index);
  }
}

namespace {

// Whether the `size` entries at a and b are equal: a fixed-size comparison
// for a contact's 3 × 3 G_i, the common case.
bool SameEntries(const double* a, const double* b, size_t size) {
  using Contact = Eigen::Matrix<double, 9, 1>;
  if (size == 9) return Eigen::Map<const Contact>(a) == Eigen::Map<const Contact>(b);
  return std::equal(a, a + size, b);
}

}  // namespace

void HessianFactorization::CountChangedHessians(
    const std::vector<ConstraintMatrix>& hessians) {
  num_changed_hessians_ = -1;
  if (!has_factor_ || factored_values_version_ != values_version_ ||
      factored_active_version_ != active_version_)
    return;
  if (factored_offsets_.size() != hessians.size() + 1) return;
  changed_list_.clear();
  // Within one values_version every G_i keeps its size, the one factored:
  // the entries suffice. Only the active G_i are compared: one set aside is
  // not evaluated meanwhile, and is compared again once taken back in.
  for (int i : active_constraints_) {
    const size_t offset = factored_offsets_[i];
    if (!SameEntries(hessians[i].data(), factored_hessians_.data() + offset,
                     factored_offsets_[i + 1] - offset)) {
      changed_list_.push_back(i);
    }
  }
  num_changed_hessians_ = static_cast<int>(changed_list_.size());
}

bool HessianFactorization::Factor(const ContactProblem& problem,
                                  const std::vector<ConstraintMatrix>& hessians) {
  CountChangedHessians(hessians);
  if (num_changed_hessians_ == 0) return true;
  // (AssembleAndFactor may compare with the last factor: see Refactor.)
  has_factor_ = AssembleAndFactor(problem, hessians);
  if (!has_factor_) {  // whatever is left is no factor, of any supernode
    std::fill(supernode_values_version_.begin(), supernode_values_version_.end(), 0);
    return false;
  }
  if (num_changed_hessians_ < 0) {  // every active supernode factored anew
    for (size_t s = 0; s < active_supernodes_.size(); ++s) {
      if (active_supernodes_[s]) supernode_values_version_[s] = values_version_;
    }
  }
  factored_values_version_ = values_version_;
  factored_active_version_ = active_version_;
  KeepFactoredHessians(hessians);
  return true;
}

void HessianFactorization::KeepFactoredHessians(
    const std::vector<ConstraintMatrix>& hessians) {
  const auto keep = [&](size_t i) {
    const double* g = hessians[i].data();
    double* copy = factored_hessians_.data() + factored_offsets_[i];
    const size_t size = factored_offsets_[i + 1] - factored_offsets_[i];
    if (size == 9) {  // a contact: a fixed-size copy (std::copy_n calls memmove)
      using Contact = Eigen::Matrix<double, 9, 1>;
      Eigen::Map<Contact>{copy} = Eigen::Map<const Contact>(g);
    } else {
      std::copy_n(g, size, copy);
    }
  };
  if (num_changed_hessians_ >= 0) {  // the others are kept already, in place
    for (int i : changed_list_) keep(i);
    return;
  }
  // The storage is kept: no allocation once grown.
  factored_offsets_.resize(hessians.size() + 1);
  factored_offsets_[0] = 0;
  for (size_t i = 0; i < hessians.size(); ++i)
    factored_offsets_[i + 1] =
        factored_offsets_[i] + static_cast<size_t>(hessians[i].size());
  factored_hessians_.resize(factored_offsets_.back());
  // Only the active ones are compared later (CountChangedHessians). An
  // inactive one keeps the G_i of the last whole factorization its supernode
  // was active in, of these values, as its factor columns do; a supernode
  // with none is taken back in with a new active version, whose first
  // factorization comes here again (SetActiveCliques).
  for (int i : active_constraints_) keep(i);
}

void HessianFactorization::Solve(Eigen::Ref<Eigen::VectorXd> b) const {
  if (partition_.identity_order) return SolvePermuted(b);
  const auto& original = partition_.original_dof;
  for (size_t k = 0; k < original.size(); ++k) permuted_[k] = b[original[k]];
  SolvePermuted(permuted_);
  for (size_t k = 0; k < original.size(); ++k) b[original[k]] = permuted_[k];
}

std::unique_ptr<HessianFactorization> MakeHessianFactorization(
    LinearSolverType type, const ContactProblem& problem) {
  if (type == LinearSolverType::kDense) {
    return std::make_unique<DenseHessianFactorization>(problem);
  }
  return std::make_unique<BlockSparseHessianFactorization>(problem);
}

}  // namespace coulomb
