#include "coulomb/math/minimum_degree_elimination.h"

#include <algorithm>
#include <cstdint>
#include <utility>

namespace coulomb {
namespace {

// A binary min-heap of blocks ordered by (degree, block), each block in it
// at most once, at slot[block] (−1 once popped): a block whose degree
// changes moves up or down in place, so the heap never holds more than the
// blocks left. An entry is its key, degree · 2³² + block, compared as one
// integer.
class DegreeHeap {
 public:
  DegreeHeap(int num_blocks, std::vector<std::uint64_t>* heap, std::vector<int>* slot)
      : heap_(*heap), slot_(*slot) {
    heap_.clear();
    slot_.assign(num_blocks, -1);
  }

  bool empty() const { return heap_.empty(); }
  void Push(int block, int degree) {
    heap_.push_back(0);
    SiftUp(static_cast<int>(heap_.size()) - 1, Key(block, degree));
  }
  // The block of least (degree, block), taken out.
  int Pop() {
    const int top = Block(heap_.front());
    slot_[top] = -1;
    const std::uint64_t last = heap_.back();
    heap_.pop_back();
    if (!heap_.empty()) SiftDown(0, last);
    return top;
  }
  // The block's degree is now `degree`.
  void Update(int block, int degree) {
    const int slot = slot_[block];
    const std::uint64_t key = Key(block, degree);
    if (key < heap_[slot]) {
      SiftUp(slot, key);
    } else {
      SiftDown(slot, key);
    }
  }

 private:
  static std::uint64_t Key(int block, int degree) {
    return static_cast<std::uint64_t>(degree) << 32 | static_cast<std::uint32_t>(block);
  }
  static int Block(std::uint64_t key) { return static_cast<int>(key & 0xffffffffu); }
  void Place(std::uint64_t key, int slot) {
    heap_[slot] = key;
    slot_[Block(key)] = slot;
  }
  // Places `key` at `slot` or above it, moving the larger keys down.
  void SiftUp(int slot, std::uint64_t key) {
    while (slot > 0) {
      const int parent = (slot - 1) / 2;
      if (heap_[parent] <= key) break;
      Place(heap_[parent], slot);
      slot = parent;
    }
    Place(key, slot);
  }
  // Places `key` at `slot` or below it, moving the smaller children up.
  void SiftDown(int slot, std::uint64_t key) {
    const int size = static_cast<int>(heap_.size());
    while (true) {
      int child = 2 * slot + 1;
      if (child >= size) break;
      if (child + 1 < size && heap_[child + 1] < heap_[child]) ++child;
      if (key <= heap_[child]) break;
      Place(heap_[child], slot);
      slot = child;
    }
    Place(key, slot);
  }

  std::vector<std::uint64_t>& heap_;
  std::vector<int>& slot_;
};

}  // namespace

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
  // The remaining graph: adjacency lists (unsorted) and weighted degrees,
  // and the blocks left in a heap by (degree, block).
  ReusableLists<int>& graph = workspace->graph;
  std::vector<int>& degree = workspace->degree;
  graph.Reset(num_blocks);
  degree.assign(num_blocks, 0);
  DegreeHeap heap(num_blocks, &workspace->heap, &workspace->heap_slot);
  for (int block = 0; block < num_blocks; ++block) {
    if (pattern.neighbors[block].empty()) continue;
    graph[block] = pattern.neighbors[block];
    for (int neighbor : graph[block]) degree[block] += sizes[neighbor];
    heap.Push(block, degree[block]);
  }
  // mark[b] == stamp: b is in the adjacency list being updated.
  std::vector<int>& mark = workspace->mark;
  mark.assign(num_blocks, -1);
  int stamp = 0;
  while (!heap.empty()) {
    const int pivot = heap.Pop();
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
      heap.Update(a, degree[a]);
    }
  }
  for (auto& rows : elimination.below_diagonal) {
    std::sort(rows.begin(), rows.end(), [&](int a, int b) {
      return elimination.position[a] < elimination.position[b];
    });
  }
}

}  // namespace coulomb
