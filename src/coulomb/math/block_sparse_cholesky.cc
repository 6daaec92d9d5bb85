#include "coulomb/math/block_sparse_cholesky.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "coulomb/math/body_block_kernels.h"
#include "coulomb/math/dense_cholesky.h"
#include "coulomb/math/small_block_products.h"

namespace coulomb {
namespace {

// Rigid bodies make 6×6 blocks: those get kernels of fixed size (unrolled by
// the compiler); any other size goes through Eigen's blocked dynamic code,
// which is the faster one for large supernodes.
constexpr int kBodyBlock = 6;

}  // namespace

BlockSparseCholesky::BlockSparseCholesky(const BlockSparsityPattern& pattern)
    : subtract_body_outer_products_(SubtractOuterProducts6Kernel()),
      factor_body_pivot_(FactorPivot6Kernel()),
      solve_against_body_pivot_(SolveAgainstPivot6Kernel()),
      solve_body_lower_(SolveLower6Kernel()),
      solve_body_lower_transpose_(SolveLowerTranspose6Kernel()),
      subtract_body_column_times_(SubtractColumnTimes6Kernel()),
      subtract_body_column_transpose_times_(SubtractColumnTransposeTimes6Kernel()) {
  Analyze(pattern);
}

void BlockSparseCholesky::Analyze(const BlockSparsityPattern& pattern) {
  block_sizes_ = pattern.block_sizes;
  MinimumDegreeElimination(pattern, &elimination_, &elimination_workspace_);
  const int n = pattern.num_blocks();
  num_rows_ = 0;
  block_offsets_.resize(n);
  size_t num_values = 0, num_stored_blocks = 0;
  for (int block = 0; block < n; ++block) {
    block_offsets_[block] = num_rows_;
    num_rows_ += block_sizes_[block];
    num_stored_blocks += 1 + elimination_.below_diagonal[block].size();
    for (int row : elimination_.below_diagonal[block])
      num_values += static_cast<size_t>(block_sizes_[row]) * block_sizes_[block];
    num_values += static_cast<size_t>(block_sizes_[block]) * block_sizes_[block];
  }
  values_.resize(num_values);
  kept_.resize(num_values);
  inverse_diagonals_.resize(static_cast<size_t>(kBodyBlock) * n);
  stored_blocks_.clear();
  stored_blocks_.reserve(num_stored_blocks);
  diagonal_storage_.resize(n);
  below_storage_.Reset(n);
  below_offsets_.Reset(n);
  column_begin_.resize(n);
  column_end_.resize(n);
  int64_t offset = 0;
  const auto add_stored_block = [&](int rows, int cols, int column) {
    stored_blocks_.push_back({offset, rows, cols, column});
    offset += static_cast<int64_t>(rows) * cols;
    return static_cast<int>(stored_blocks_.size()) - 1;
  };
  for (int col : elimination_.order) {
    column_begin_[col] = offset;
    diagonal_storage_[col] = add_stored_block(block_sizes_[col], block_sizes_[col], col);
    for (int row : elimination_.below_diagonal[col]) {
      below_storage_[col].push_back(
          add_stored_block(block_sizes_[row], block_sizes_[col], col));
      below_offsets_[col].push_back(block_offsets_[row]);
    }
    column_end_[col] = offset;
  }
  AnalyzeUpdates();
}

void BlockSparseCholesky::AnalyzeUpdates() {
  // Column col updates L_{rows[a], rows[b]} (a ≥ b), a block of column
  // rows[b], found through a scatter of that column's rows; the updates are
  // listed a by a, b by b (the order of the sums).
  const int n = num_blocks();
  std::vector<int>& storage_in_column = storage_in_column_;
  std::vector<int>& targets = update_targets_;  // (a, b) at a (a + 1) / 2 + b
  storage_in_column.assign(n, -1);
  update_blocks_.Reset(n);
  update_shapes_.Reset(n);
  body_column_.assign(n, 0);
  for (int col = 0; col < n; ++col) {
    const auto& rows = elimination_.below_diagonal[col];
    targets.resize(rows.size() * (rows.size() + 1) / 2);
    for (size_t b = 0; b < rows.size(); ++b) {
      const int target_col = rows[b];
      const auto& target_rows = elimination_.below_diagonal[target_col];
      for (size_t k = 0; k < target_rows.size(); ++k)
        storage_in_column[target_rows[k]] = below_storage_[target_col][k];
      storage_in_column[target_col] = diagonal_storage_[target_col];
      // rows are sorted by position, so rows[a] comes after rows[b].
      for (size_t a = b; a < rows.size(); ++a)
        targets[a * (a + 1) / 2 + b] = storage_in_column[rows[a]];
      for (int row : target_rows) storage_in_column[row] = -1;
      storage_in_column[target_col] = -1;
    }
    bool all_bodies = block_sizes_[col] == kBodyBlock;
    for (size_t a = 0; a < rows.size(); ++a) {
      for (size_t b = 0; b <= a; ++b) {
        const StoredBlockInfo& target = stored_blocks_[targets[a * (a + 1) / 2 + b]];
        update_blocks_[col].push_back({target.offset,
                                       stored_blocks_[below_storage_[col][a]].offset,
                                       stored_blocks_[below_storage_[col][b]].offset});
        update_shapes_[col].push_back({target.rows, target.cols, target.column});
        all_bodies = all_bodies && target.rows == kBodyBlock && target.cols == kBodyBlock;
      }
    }
    body_column_[col] = all_bodies;
  }
}

BlockSparseCholesky::BlockHandle BlockSparseCholesky::Handle(int i, int j) const {
  const bool i_after_j = elimination_.position[i] >= elimination_.position[j];
  const int row = i_after_j ? i : j, col = i_after_j ? j : i;
  if (row == col) return {diagonal_storage_[col], false};
  // below_diagonal[col] is sorted by position.
  const auto& rows = elimination_.below_diagonal[col];
  const auto it = std::lower_bound(rows.begin(), rows.end(), row, [&](int a, int b) {
    return elimination_.position[a] < elimination_.position[b];
  });
  if (it == rows.end() || *it != row) {
    throw std::logic_error("BlockSparseCholesky: block (" + std::to_string(i) + ", " +
                           std::to_string(j) + ") is not in the sparsity pattern");
  }
  return {below_storage_[col][it - rows.begin()], !i_after_j};
}

Eigen::Map<Eigen::MatrixXd> BlockSparseCholesky::StoredBlock(int storage) {
  const auto& info = stored_blocks_[storage];
  return {values_.data() + info.offset, info.rows, info.cols};
}

template <typename Visit>
void BlockSparseCholesky::ForMarkedStorage(const std::vector<char>& columns,
                                           Visit&& visit) const {
  int64_t begin = 0, end = 0;  // the range gathered so far (empty)
  for (int col : elimination_.order) {
    if (!columns[col]) continue;
    if (column_begin_[col] != end) {
      if (end > begin) visit(begin, end);
      begin = column_begin_[col];
    }
    end = column_end_[col];
  }
  if (end > begin) visit(begin, end);
}

void BlockSparseCholesky::SetZero(const std::vector<char>* active) {
  if (active == nullptr) {
    std::fill(values_.begin(), values_.end(), 0.0);
    return;
  }
  ForMarkedStorage(*active, [this](int64_t begin, int64_t end) {
    std::fill(values_.begin() + begin, values_.begin() + end, 0.0);
  });
}

void BlockSparseCholesky::KeepMatrix(const std::vector<char>& columns) {
  ForMarkedStorage(columns, [this](int64_t begin, int64_t end) {
    std::copy(values_.begin() + begin, values_.begin() + end, kept_.begin() + begin);
  });
}

void BlockSparseCholesky::RestoreMatrix(const std::vector<char>& columns) {
  ForMarkedStorage(columns, [this](int64_t begin, int64_t end) {
    std::copy(kept_.begin() + begin, kept_.begin() + end, values_.begin() + begin);
  });
}

namespace {

// L L ᵀ = H for the lower triangle of the n × n block at `data`, in place
// (a pivot of another size than a body's). False if a pivot is not positive
// (or not a number).
bool FactorPivot(double* data, int n) { return CholeskyInPlace(data, n); }

// X Lᵀ = H for X in place (X, H: rows × n; L: n × n lower, from FactorPivot).
void SolveAgainstPivot(const double* pivot, int n, double* block, int rows) {
  Eigen::Map<const Eigen::MatrixXd> l(pivot, n, n);
  Eigen::Map<Eigen::MatrixXd> x(block, rows, n);
  l.transpose().triangularView<Eigen::Upper>().solveInPlace<Eigen::OnTheRight>(x);
}

// T −= A Bᵀ (T: ra × rb, A: ra × n, B: rb × n). Kept out of line: inlined,
// its register saves would burden the loop of body-block updates that calls
// it for the other sizes.
template <int RA, int RB, int N>
__attribute__((noinline)) void SubtractOuterProduct(double* target, const double* left,
                                                    const double* right, int ra, int rb,
                                                    int n) {
  Eigen::Map<Eigen::Matrix<double, RA, RB>> t(target, ra, rb);
  Eigen::Map<const Eigen::Matrix<double, RA, N>> a(left, ra, n);
  Eigen::Map<const Eigen::Matrix<double, RB, N>> b(right, rb, n);
  t.noalias() -= a * b.transpose();
}

}  // namespace

bool BlockSparseCholesky::Factor(const std::vector<char>* active) {
  for (int col : elimination_.order) {
    if (active != nullptr && !(*active)[col]) continue;
    if (!FactorColumn(col)) return false;
  }
  return true;
}

void BlockSparseCholesky::AddAncestors(std::vector<char>* columns,
                                       const std::vector<char>* active) const {
  // A column's parent in the elimination tree is the first block below its
  // diagonal (they are sorted by position), eliminated after it: one pass in
  // elimination order closes the set.
  for (int col : elimination_.order) {
    const auto& rows = elimination_.below_diagonal[col];
    if ((*columns)[col] && !rows.empty()) (*columns)[rows.front()] = 1;
  }
  if (active == nullptr) return;
  for (size_t col = 0; col < columns->size(); ++col)
    (*columns)[col] = (*columns)[col] && (*active)[col];
}

inline void BlockSparseCholesky::ApplyUpdate(int n, const BodyBlockUpdate& blocks,
                                             const UpdateShape& shape) {
  double* values = values_.data();
  if (n == kBodyBlock && shape.target_rows == kBodyBlock &&
      shape.target_cols == kBodyBlock) {
    subtract_body_outer_products_(values, &blocks, 1);
  } else {
    SubtractOuterProduct<Eigen::Dynamic, Eigen::Dynamic, Eigen::Dynamic>(
        values + blocks.target, values + blocks.left, values + blocks.right,
        shape.target_rows, shape.target_cols, n);
  }
}

bool BlockSparseCholesky::Refactor(const std::vector<char>& refactor,
                                   const std::vector<char>* active) {
  for (int col : elimination_.order) {
    if (active != nullptr && !(*active)[col]) continue;
    if (refactor[col]) {
      if (!FactorColumn(col)) return false;
      continue;
    }
    // L's column col is kept; the columns refactored need its updates again.
    for (size_t u = 0; u < update_blocks_[col].size(); ++u) {
      if (refactor[update_shapes_[col][u].target_column])
        ApplyUpdate(block_sizes_[col], update_blocks_[col][u], update_shapes_[col][u]);
    }
  }
  return true;
}

bool BlockSparseCholesky::FactorColumn(int col) {
  const int n = block_sizes_[col];
  const bool body_pivot = n == kBodyBlock;
  double* pivot = values_.data() + stored_blocks_[diagonal_storage_[col]].offset;
  double* inverse_diagonal = inverse_diagonals_.data() + kBodyBlock * col;
  if (!(body_pivot ? factor_body_pivot_(pivot, inverse_diagonal) : FactorPivot(pivot, n)))
    return false;
  const auto& below = below_storage_[col];
  if (body_column_[col]) {
    // All 6 × 6: L_ik = H_ik L_kk⁻ᵀ for the blocks below the pivot (stored
    // one after another) and the column's updates, one call each.
    if (below.empty()) return true;
    solve_against_body_pivot_(pivot, inverse_diagonal,
                              values_.data() + stored_blocks_[below.front()].offset,
                              below.size());
    subtract_body_outer_products_(values_.data(), update_blocks_[col].data(),
                                  update_blocks_[col].size());
    return true;
  }
  for (int storage : below) {  // L_ik = H_ik L_kk⁻ᵀ
    const StoredBlockInfo& info = stored_blocks_[storage];
    double* block = values_.data() + info.offset;
    if (body_pivot && info.rows == kBodyBlock) {
      solve_against_body_pivot_(pivot, inverse_diagonal, block, 1);
    } else {
      SolveAgainstPivot(pivot, n, block, info.rows);
    }
  }
  for (size_t u = 0; u < update_blocks_[col].size(); ++u)
    ApplyUpdate(n, update_blocks_[col][u], update_shapes_[col][u]);
  return true;
}

template <int N>
void BlockSparseCholesky::ForwardColumn(int col, Eigen::Ref<Eigen::VectorXd> b) const {
  const int n = block_sizes_[col];
  Eigen::Map<Eigen::Matrix<double, N, 1>> x_col(b.data() + block_offsets_[col], n);
  if constexpr (N == kBodyBlock) {
    solve_body_lower_(BlockData(diagonal_storage_[col]),
                      inverse_diagonals_.data() + kBodyBlock * col, x_col.data());
  } else {
    Eigen::Map<const Eigen::MatrixXd> pivot(BlockData(diagonal_storage_[col]), n, n);
    pivot.triangularView<Eigen::Lower>().solveInPlace(x_col);
  }
  const auto& below = below_storage_[col];
  if (below.empty()) return;
  if (body_column_[col]) {  // b_r −= L_rk x_k, the blocks one after another
    subtract_body_column_times_(BlockData(below.front()), x_col.data(), b.data(),
                                below_offsets_[col].data(), below.size());
    return;
  }
  for (size_t r = 0; r < below.size(); ++r) {
    AddBlockTimes(BlockData(below[r]), stored_blocks_[below[r]].rows, n, x_col.data(),
                  b.data() + below_offsets_[col][r], -1.0);
  }
}

template <int N>
void BlockSparseCholesky::BackwardColumn(int col, Eigen::Ref<Eigen::VectorXd> b) const {
  const int n = block_sizes_[col];
  Eigen::Map<Eigen::Matrix<double, N, 1>> x_col(b.data() + block_offsets_[col], n);
  const auto& below = below_storage_[col];
  if (body_column_[col]) {  // x_k −= L_rkᵀ b_r, the blocks one after another
    if (!below.empty()) {
      subtract_body_column_transpose_times_(BlockData(below.front()), b.data(),
                                            below_offsets_[col].data(), below.size(),
                                            x_col.data());
    }
  } else {
    for (size_t r = 0; r < below.size(); ++r) {
      AddBlockTransposeTimes(BlockData(below[r]), stored_blocks_[below[r]].rows, n,
                             b.data() + below_offsets_[col][r], x_col.data(), -1.0);
    }
  }
  if constexpr (N == kBodyBlock) {
    solve_body_lower_transpose_(BlockData(diagonal_storage_[col]),
                                inverse_diagonals_.data() + kBodyBlock * col,
                                x_col.data());
  } else {
    Eigen::Map<const Eigen::MatrixXd> pivot(BlockData(diagonal_storage_[col]), n, n);
    pivot.transpose().triangularView<Eigen::Upper>().solveInPlace(x_col);
  }
}

void BlockSparseCholesky::Solve(Eigen::Ref<Eigen::VectorXd> b,
                                const std::vector<char>* active) const {
  // Forward: L y = b.
  for (int col : elimination_.order) {
    if (active != nullptr && !(*active)[col]) continue;
    if (block_sizes_[col] == kBodyBlock) {
      ForwardColumn<kBodyBlock>(col, b);
    } else {
      ForwardColumn<Eigen::Dynamic>(col, b);
    }
  }
  // Backward: Lᵀ x = y.
  for (auto it = elimination_.order.rbegin(); it != elimination_.order.rend(); ++it) {
    if (active != nullptr && !(*active)[*it]) continue;
    if (block_sizes_[*it] == kBodyBlock) {
      BackwardColumn<kBodyBlock>(*it, b);
    } else {
      BackwardColumn<Eigen::Dynamic>(*it, b);
    }
  }
}

}  // namespace coulomb
