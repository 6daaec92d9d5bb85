#include "coulomb/math/minimum_degree_elimination.h"

#include <algorithm>
#include <set>
#include <utility>

namespace coulomb {
namespace {

int WeightedDegree(const std::set<int>& neighbors, const std::vector<int>& block_sizes) {
  int degree = 0;
  for (int neighbor : neighbors) degree += block_sizes[neighbor];
  return degree;
}

}  // namespace

BlockElimination MinimumDegreeElimination(const BlockSparsityPattern& pattern) {
  const int num_blocks = pattern.num_blocks();
  BlockElimination elimination;
  elimination.position.assign(num_blocks, -1);
  elimination.below_diagonal.resize(num_blocks);
  // Blocks without neighbors have degree 0: the greedy order takes them
  // first, by index, and they fill nothing (most blocks of a scene whose
  // bodies are apart).
  for (int block = 0; block < num_blocks; ++block) {
    if (!pattern.neighbors[block].empty()) continue;
    elimination.position[block] = static_cast<int>(elimination.order.size());
    elimination.order.push_back(block);
  }
  std::vector<std::set<int>> graph(num_blocks);
  std::vector<int> degree(num_blocks);
  std::set<std::pair<int, int>> queue;  // (degree, block)
  for (int block = 0; block < num_blocks; ++block) {
    if (pattern.neighbors[block].empty()) continue;
    graph[block].insert(pattern.neighbors[block].begin(), pattern.neighbors[block].end());
    degree[block] = WeightedDegree(graph[block], pattern.block_sizes);
    queue.emplace(degree[block], block);
  }

  while (!queue.empty()) {
    const int pivot = queue.begin()->second;
    queue.erase(queue.begin());
    elimination.position[pivot] = static_cast<int>(elimination.order.size());
    elimination.order.push_back(pivot);
    const std::set<int> remaining(std::move(graph[pivot]));
    elimination.below_diagonal[pivot].assign(remaining.begin(), remaining.end());
    for (int a : remaining) {
      graph[a].erase(pivot);
      for (int b : remaining) {
        if (a != b) graph[a].insert(b);  // fill-in
      }
      queue.erase({degree[a], a});
      degree[a] = WeightedDegree(graph[a], pattern.block_sizes);
      queue.emplace(degree[a], a);
    }
  }
  for (auto& rows : elimination.below_diagonal) {
    std::sort(rows.begin(), rows.end(), [&](int a, int b) {
      return elimination.position[a] < elimination.position[b];
    });
  }
  return elimination;
}

}  // namespace coulomb
