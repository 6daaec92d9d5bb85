#pragma once

#include <cstdint>
#include <vector>

#include "coulomb/math/block_sparsity_pattern.h"
#include "coulomb/math/reusable_lists.h"

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
  ReusableLists<int> below_diagonal;
};

// The remaining graph while blocks are eliminated: adjacency lists
// (unsorted), weighted degrees, the heap of the blocks left by (degree,
// block) with each block's slot in it, and the marks of a list being
// updated. Kept between calls so that an elimination of a pattern met
// before allocates nothing.
struct MinimumDegreeWorkspace {
  ReusableLists<int> graph;
  std::vector<int> degree;
  std::vector<std::uint64_t> heap;
  std::vector<int> heap_slot;
  std::vector<int> mark;
};

BlockElimination MinimumDegreeElimination(const BlockSparsityPattern& pattern);
// The same into *elimination, reusing its storage and the workspace's.
void MinimumDegreeElimination(const BlockSparsityPattern& pattern,
                              BlockElimination* elimination,
                              MinimumDegreeWorkspace* workspace);

}  // namespace coulomb
