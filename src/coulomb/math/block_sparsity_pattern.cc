#include "coulomb/math/block_sparsity_pattern.h"

#include <algorithm>

namespace coulomb {

void BlockSparsityPattern::AddCoupling(int i, int j) {
  if (i == j) return;
  auto& row = neighbors[i];
  if (std::find(row.begin(), row.end(), j) != row.end()) return;
  row.push_back(j);
  neighbors[j].push_back(i);
}

int BlockSparsityPattern::ConnectedComponents(std::vector<int>* component_of_block,
                                              std::vector<int>* stack_storage) const {
  component_of_block->assign(num_blocks(), -1);
  int num_components = 0;
  std::vector<int>& stack = *stack_storage;
  stack.clear();
  for (int seed = 0; seed < num_blocks(); ++seed) {
    if ((*component_of_block)[seed] >= 0) continue;
    (*component_of_block)[seed] = num_components;
    stack.push_back(seed);
    while (!stack.empty()) {
      const int block = stack.back();
      stack.pop_back();
      for (int neighbor : neighbors[block]) {
        if ((*component_of_block)[neighbor] >= 0) continue;
        (*component_of_block)[neighbor] = num_components;
        stack.push_back(neighbor);
      }
    }
    ++num_components;
  }
  return num_components;
}

}  // namespace coulomb
