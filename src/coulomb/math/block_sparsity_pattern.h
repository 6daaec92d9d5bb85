#pragma once

#include <vector>

#include "coulomb/math/reusable_lists.h"

namespace coulomb {

// Sparsity of a symmetric block matrix: the size of each diagonal block and,
// for each block row, the other blocks it couples to (a symmetric adjacency:
// j ∈ neighbors[i] ⇔ i ∈ neighbors[j]). The diagonal blocks are always present.
struct BlockSparsityPattern {
  std::vector<int> block_sizes;
  ReusableLists<int> neighbors;

  int num_blocks() const { return static_cast<int>(block_sizes.size()); }

  // Adds the coupling i–j (i ≠ j) if it is not there yet.
  void AddCoupling(int i, int j);

  // Labels each block with the index of its connected component ("island").
  // Returns the number of components; components are numbered in order of
  // their lowest block index. *stack is workspace (its storage is reused).
  int ConnectedComponents(std::vector<int>* component_of_block,
                          std::vector<int>* stack) const;
};

}  // namespace coulomb
