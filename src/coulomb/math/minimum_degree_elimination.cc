#include "coulomb/math/minimum_degree_elimination.h"

#include <algorithm>
#include <functional>
#include <utility>

namespace coulomb {

BlockElimination MinimumDegreeElimination(const BlockSparsityPattern& pattern) {
  BlockElimination elimination;
  MinimumDegreeWorkspace workspace;
  MinimumDegreeElimination(pattern, &elimination, &workspace);
  return elimination;
}

void MinimumDegreeElimination(const BlockSparsityPattern& pattern,
                              BlockElimination* result,
                              MinimumDegreeWorkspace* workspace) {
  const int num_blocks = pattern.num_blocks();
  const std::vector<int>& sizes = pattern.block_sizes;
  BlockElimination& elimination = *result;
  elimination.position.assign(num_blocks, -1);
  elimination.below_diagonal.Reset(num_blocks);
  elimination.order.clear();
  elimination.order.reserve(num_blocks);
  // Blocks without neighbors have degree 0: the greedy order takes them
  // first, by index, and they fill nothing (most blocks of a scene whose
  // bodies are apart).
  for (int block = 0; block < num_blocks; ++block) {
    if (!pattern.neighbors[block].empty()) continue;
    elimination.position[block] = static_cast<int>(elimination.order.size());
    elimination.order.push_back(block);
  }
  // The remaining graph: adjacency lists (unsorted) and weighted degrees.
  // The heap holds (degree, block) pairs, smallest on top; an entry is
  // stale, and skipped, once its block is eliminated or its degree has
  // changed, so the pair popped first among the current ones is the
  // smallest (degree, block).
  ReusableLists<int>& graph = workspace->graph;
  std::vector<int>& degree = workspace->degree;
  std::vector<std::pair<int, int>>& heap = workspace->heap;
  graph.Reset(num_blocks);
  degree.assign(num_blocks, 0);
  heap.clear();
  const auto push = [&heap](int block_degree, int block) {
    heap.emplace_back(block_degree, block);
    std::push_heap(heap.begin(), heap.end(), std::greater<>());
  };
  for (int block = 0; block < num_blocks; ++block) {
    if (pattern.neighbors[block].empty()) continue;
    graph[block] = pattern.neighbors[block];
    for (int neighbor : graph[block]) degree[block] += sizes[neighbor];
    push(degree[block], block);
  }
  // mark[b] == stamp: b is in the adjacency list being updated.
  std::vector<int>& mark = workspace->mark;
  mark.assign(num_blocks, -1);
  int stamp = 0;
  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end(), std::greater<>());
    const auto [pivot_degree, pivot] = heap.back();
    heap.pop_back();
    if (elimination.position[pivot] >= 0 || pivot_degree != degree[pivot]) continue;
    elimination.position[pivot] = static_cast<int>(elimination.order.size());
    elimination.order.push_back(pivot);
    std::vector<int>& remaining = elimination.below_diagonal[pivot];
    remaining = graph[pivot];  // a copy: both lists keep their storage
    for (int a : remaining) {
      // Drop the pivot from a's list, then connect a to the pivot's other
      // neighbours it is not yet adjacent to (the fill-in).
      std::vector<int>& adjacent = graph[a];
      adjacent.erase(std::find(adjacent.begin(), adjacent.end(), pivot));
      degree[a] -= sizes[pivot];
      ++stamp;
      for (int b : adjacent) mark[b] = stamp;
      for (int b : remaining) {
        if (b == a || mark[b] == stamp) continue;
        adjacent.push_back(b);
        degree[a] += sizes[b];
      }
      push(degree[a], a);
    }
  }
  for (auto& rows : elimination.below_diagonal) {
    std::sort(rows.begin(), rows.end(), [&](int a, int b) {
      return elimination.position[a] < elimination.position[b];
    });
  }
}

}  // namespace coulomb
