#pragma once

#include <cstdint>
#include <vector>

#include <Eigen/Dense>

#include "coulomb/math/block_sparsity_pattern.h"
#include "coulomb/math/body_block_kernels.h"
#include "coulomb/math/minimum_degree_elimination.h"
#include "coulomb/math/reusable_lists.h"

namespace coulomb {

// Supernodal (block) Cholesky factorization H = L Lᵀ of a symmetric positive
// definite block-sparse matrix, with blocks as supernodes.
//
// Construction does the symbolic work once (minimum-degree ordering, fill,
// storage and the list of block updates); numeric factorizations then reuse
// it for any matrix with the same pattern, without allocating. Blocks are
// addressed in the caller's numbering through handles; a block is stored
// below the diagonal in elimination order, so asking for (i, j) may hand out
// the storage of H_ji = H_ijᵀ (the handle says so).
//
// Blocks of 6 rows (free rigid bodies) go through fixed-size kernels, other
// sizes through Eigen's dynamic ones.
//
// Usage per factorization: SetZero(), AddToBlock(...) for every term,
// Factor(), then Solve(b) any number of times.
class BlockSparseCholesky {
 public:
  struct BlockHandle {
    int storage = -1;         // index of the stored block
    bool transposed = false;  // the stored block is H_ji (= H_ijᵀ)
  };

  explicit BlockSparseCholesky(const BlockSparsityPattern& pattern);
  // Redoes the symbolic work for another pattern, reusing the storage.
  void Analyze(const BlockSparsityPattern& pattern);

  int num_blocks() const { return static_cast<int>(block_offsets_.size()); }
  int num_rows() const { return num_rows_; }
  int block_offset(int block) const { return block_offsets_[block]; }
  int block_size(int block) const { return block_sizes_[block]; }
  const BlockElimination& elimination() const { return elimination_; }
  // Number of stored scalars of L (diagonal blocks stored whole).
  int64_t num_factor_entries() const { return static_cast<int64_t>(values_.size()); }

  // Handle of block (i, j); (i, j) must be a diagonal block or in the pattern.
  BlockHandle Handle(int i, int j) const;

  // Zeroes the stored blocks (with `active`, only those of the marked
  // columns, as in Factor).
  void SetZero(const std::vector<char>* active = nullptr);

  // The stored block of a handle. Of a diagonal block only the lower
  // triangle is read by Factor().
  Eigen::Map<Eigen::MatrixXd> MutableBlock(const BlockHandle& handle) {
    return StoredBlock(handle.storage);
  }

  // H_ij += block (through a handle from Handle(i, j)).
  template <typename Derived>
  void AddToBlock(const BlockHandle& handle, const Eigen::MatrixBase<Derived>& block) {
    auto stored = StoredBlock(handle.storage);
    if (handle.transposed) {
      stored.transpose().noalias() += block;  // no temporary for a product
    } else {
      stored.noalias() += block;
    }
  }

  // Factors in place. Returns false if a pivot block is not positive definite.
  // With `active` (one flag per block), only the marked blocks are factored;
  // no block of H may couple a marked block to an unmarked one: none stored
  // (unions of islands), or those stored exactly zero. The factor of the
  // marked blocks is then theirs alone (its blocks towards unmarked ones
  // come out zero), and the others are simply left out.
  bool Factor(const std::vector<char>* active = nullptr);

  // The column (caller's numbering) whose storage holds a handle's block.
  int ColumnOf(const BlockHandle& handle) const {
    return stored_blocks_[handle.storage].column;
  }
  // Marks the ancestors in the elimination tree of the marked columns: the
  // columns of L that change when the marked columns of H do. With `active`
  // (as in Factor), the columns not active are unmarked at the end: reached
  // only through blocks that are zero, their factor does not change (and a
  // restore of H would overwrite it), while the active ancestors beyond them
  // stay marked.
  void AddAncestors(std::vector<char>* columns,
                    const std::vector<char>* active = nullptr) const;
  // Factors again after new values in the columns marked in `refactor` alone
  // (closed under AddAncestors with the same `active`; RestoreMatrix or
  // SetZero(&refactor), then AddToBlock on their
  // blocks): the other columns keep L from the last Factor or Refactor of a
  // matrix equal to this one in them, and their updates of the marked columns
  // are applied again. `active` as in Factor, unchanged since that Factor.
  bool Refactor(const std::vector<char>& refactor, const std::vector<char>* active);

  // A copy of H for the caller to update in place between factorizations:
  // KeepMatrix copies the stored blocks of the marked columns as assembled
  // (call it after the AddToBlock calls, before Factor or Refactor),
  // MutableKeptBlock addresses a block of the copy as MutableBlock does, and
  // RestoreMatrix copies the marked columns back, in place of SetZero and
  // AddToBlock before a Refactor.
  void KeepMatrix(const std::vector<char>& columns);
  void RestoreMatrix(const std::vector<char>& columns);
  Eigen::Map<Eigen::MatrixXd> MutableKeptBlock(const BlockHandle& handle) {
    const auto& info = stored_blocks_[handle.storage];
    return {kept_.data() + info.offset, info.rows, info.cols};
  }

  // Solves H x = b in place (b in the caller's numbering); with `active`, for
  // the blocks marked as in Factor (the other entries of b are left as given).
  void Solve(Eigen::Ref<Eigen::VectorXd> b,
             const std::vector<char>* active = nullptr) const;

 private:
  struct StoredBlockInfo {
    int64_t offset;
    int rows;
    int cols;
    int column;  // the column block it belongs to (caller's numbering)
  };
  // Of an update target −= L_{a,k} L_{b,k}ᵀ after eliminating column k
  // (the three blocks' offsets in values_ are a BodyBlockUpdate): the
  // target's size and the column it belongs to.
  struct UpdateShape {
    int target_rows;
    int target_cols;
    int target_column;
  };

  // Eliminates column block `col`: factors its pivot, scales the blocks
  // below it and updates the blocks they fill.
  bool FactorColumn(int col);
  // One of the updates of a column of size n (after its elimination).
  void ApplyUpdate(int n, const BodyBlockUpdate& blocks, const UpdateShape& shape);
  // The two halves of Solve for one column block, N its size if fixed.
  template <int N>
  void ForwardColumn(int col, Eigen::Ref<Eigen::VectorXd> b) const;
  template <int N>
  void BackwardColumn(int col, Eigen::Ref<Eigen::VectorXd> b) const;
  const double* BlockData(int storage) const {
    return values_.data() + stored_blocks_[storage].offset;
  }
  Eigen::Map<Eigen::MatrixXd> StoredBlock(int storage);
  // The updates from the elimination and the storage layout.
  void AnalyzeUpdates();

  // The 6 × 6 kernels for this processor (body_block_kernels.h).
  OuterProducts6Kernel subtract_body_outer_products_;
  PivotFactor6Kernel factor_body_pivot_;
  PivotSolve6Kernel solve_against_body_pivot_;
  TriangularSolve6Kernel solve_body_lower_;
  TriangularSolve6Kernel solve_body_lower_transpose_;
  ColumnTimes6Kernel subtract_body_column_times_;
  ColumnTransposeTimes6Kernel subtract_body_column_transpose_times_;
  int num_rows_ = 0;
  std::vector<int> block_sizes_;
  std::vector<int> block_offsets_;
  BlockElimination elimination_;
  MinimumDegreeWorkspace elimination_workspace_;
  std::vector<double> values_;
  std::vector<double> kept_;  // KeepMatrix's copy of H, laid out as values_
  // Per block of 6 rows, from its last factorization: 1 / L(j, j) of its
  // pivot, j = 0…5, at 6 × block.
  std::vector<double> inverse_diagonals_;
  std::vector<StoredBlockInfo> stored_blocks_;
  // Column k (caller's numbering): its diagonal block and the storage of
  // L_{i,k} for i in elimination_.below_diagonal[k], in the same order.
  std::vector<int> diagonal_storage_;
  // Column k's blocks are stored one after another: values_[column_begin_[k],
  // column_end_[k]), the columns in elimination order.
  std::vector<int64_t> column_begin_, column_end_;
  // Calls visit(begin, end) for the storage of the marked columns, columns
  // adjacent in storage as one range: a few long copies or fills instead of
  // one short one per column.
  template <typename Visit>
  void ForMarkedStorage(const std::vector<char>& columns, Visit&& visit) const;
  ReusableLists<int> below_storage_;
  // Column k: the offsets of the blocks i below its diagonal in a vector
  // (block_offsets_[i]), in the same order.
  ReusableLists<int> below_offsets_;
  // Per column, its updates in order: their blocks (the list kernel's form)
  // and their shapes.
  ReusableLists<BodyBlockUpdate> update_blocks_;
  ReusableLists<UpdateShape> update_shapes_;
  // Per column: whether its pivot and the blocks below it are all 6 × 6 (a
  // body column, whose updates go to the list kernel in one call).
  std::vector<char> body_column_;
  std::vector<int> storage_in_column_, update_targets_;  // AnalyzeUpdates' workspace
};

}  // namespace coulomb
