#include "coulomb/math/block_sparse_cholesky.h"

#include <stdexcept>
#include <string>

namespace coulomb {

BlockSparseCholesky::BlockSparseCholesky(const BlockSparsityPattern& pattern)
    : block_sizes_(pattern.block_sizes), elimination_(MinimumDegreeElimination(pattern)) {
  const int n = pattern.num_blocks();
  block_offsets_.resize(n);
  for (int block = 0; block < n; ++block) {
    block_offsets_[block] = num_rows_;
    num_rows_ += block_sizes_[block];
  }
  diagonal_storage_.resize(n);
  below_storage_.resize(n);
  for (int col : elimination_.order) {
    diagonal_storage_[col] = AddStoredBlock(block_sizes_[col], block_sizes_[col]);
    storage_of_key_[Key(col, col)] = diagonal_storage_[col];
    for (int row : elimination_.below_diagonal[col]) {
      const int storage = AddStoredBlock(block_sizes_[row], block_sizes_[col]);
      below_storage_[col].push_back(storage);
      storage_of_key_[Key(row, col)] = storage;
    }
  }
  updates_.resize(n);
  for (int col = 0; col < n; ++col) {
    const auto& rows = elimination_.below_diagonal[col];
    for (size_t a = 0; a < rows.size(); ++a) {
      for (size_t b = 0; b <= a; ++b) {
        // rows are sorted by position, so rows[a] comes after rows[b].
        const int target = storage_of_key_.at(Key(rows[a], rows[b]));
        updates_[col].push_back({target, below_storage_[col][a], below_storage_[col][b]});
      }
    }
  }
}

int BlockSparseCholesky::AddStoredBlock(int rows, int cols) {
  const int64_t offset = static_cast<int64_t>(values_.size());
  stored_blocks_.push_back({offset, rows, cols});
  values_.resize(values_.size() + static_cast<size_t>(rows) * cols);
  return static_cast<int>(stored_blocks_.size()) - 1;
}

BlockSparseCholesky::BlockHandle BlockSparseCholesky::Handle(int i, int j) const {
  const bool i_after_j = elimination_.position[i] >= elimination_.position[j];
  const auto it = storage_of_key_.find(i_after_j ? Key(i, j) : Key(j, i));
  if (it == storage_of_key_.end()) {
    throw std::logic_error("BlockSparseCholesky: block (" + std::to_string(i) + ", " +
                           std::to_string(j) + ") is not in the sparsity pattern");
  }
  return {it->second, !i_after_j};
}

Eigen::Map<Eigen::MatrixXd> BlockSparseCholesky::StoredBlock(int storage) {
  const auto& info = stored_blocks_[storage];
  return {values_.data() + info.offset, info.rows, info.cols};
}

Eigen::Map<const Eigen::MatrixXd> BlockSparseCholesky::StoredBlock(int storage) const {
  const auto& info = stored_blocks_[storage];
  return {values_.data() + info.offset, info.rows, info.cols};
}

void BlockSparseCholesky::SetZero() { std::fill(values_.begin(), values_.end(), 0.0); }

bool BlockSparseCholesky::Factor() {
  for (int col : elimination_.order) {
    auto diagonal = StoredBlock(diagonal_storage_[col]);
    Eigen::LLT<Eigen::Ref<Eigen::MatrixXd>> pivot(diagonal);  // in place
    if (pivot.info() != Eigen::Success) return false;
    const auto lower_transposed = diagonal.transpose().triangularView<Eigen::Upper>();
    for (int storage : below_storage_[col]) {
      auto block = StoredBlock(storage);
      // L_ik = H_ik L_kk⁻ᵀ, i.e. solve X L_kkᵀ = H_ik.
      lower_transposed.solveInPlace<Eigen::OnTheRight>(block);
    }
    for (const BlockUpdate& update : updates_[col]) {
      StoredBlock(update.target).noalias() -=
          StoredBlock(update.left) * StoredBlock(update.right).transpose();
    }
  }
  return true;
}

void BlockSparseCholesky::Solve(Eigen::Ref<Eigen::VectorXd> b) const {
  // Forward: L y = b.
  for (int col : elimination_.order) {
    auto x_col = b.segment(block_offsets_[col], block_sizes_[col]);
    StoredBlock(diagonal_storage_[col])
        .triangularView<Eigen::Lower>()
        .solveInPlace(x_col);
    const auto& rows = elimination_.below_diagonal[col];
    for (size_t r = 0; r < rows.size(); ++r) {
      b.segment(block_offsets_[rows[r]], block_sizes_[rows[r]]).noalias() -=
          StoredBlock(below_storage_[col][r]) * x_col;
    }
  }
  // Backward: Lᵀ x = y.
  for (auto it = elimination_.order.rbegin(); it != elimination_.order.rend(); ++it) {
    const int col = *it;
    auto x_col = b.segment(block_offsets_[col], block_sizes_[col]);
    const auto& rows = elimination_.below_diagonal[col];
    for (size_t r = 0; r < rows.size(); ++r) {
      x_col.noalias() -= StoredBlock(below_storage_[col][r]).transpose() *
                         b.segment(block_offsets_[rows[r]], block_sizes_[rows[r]]);
    }
    StoredBlock(diagonal_storage_[col])
        .transpose()
        .triangularView<Eigen::Upper>()
        .solveInPlace(x_col);
  }
}

}  // namespace coulomb
