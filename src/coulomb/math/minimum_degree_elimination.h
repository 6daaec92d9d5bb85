#pragma once

#include <vector>

#include "coulomb/math/block_sparsity_pattern.h"

namespace coulomb {

// Symbolic block Cholesky: an elimination order and the fill it creates.
//
// Greedy minimum degree on the block graph: at each step eliminate the block
// whose remaining neighbors hold the fewest scalar unknowns (ties broken by
// block index, so the result is deterministic), then connect its neighbors
// pairwise (the fill-in of the Cholesky factor). Eliminating a block with
// no neighbors costs nothing, so disconnected islands never interact.
struct BlockElimination {
  // order[k] is the block eliminated at step k; position[block] inverts it.
  std::vector<int> order;
  std::vector<int> position;
  // below_diagonal[block]: the blocks i with position[i] > position[block]
  // for which L_{i,block} ≠ 0, sorted by position.
  std::vector<std::vector<int>> below_diagonal;
};

BlockElimination MinimumDegreeElimination(const BlockSparsityPattern& pattern);
// The same into *elimination, reusing its storage.
void MinimumDegreeElimination(const BlockSparsityPattern& pattern,
                              BlockElimination* elimination);

}  // namespace coulomb
