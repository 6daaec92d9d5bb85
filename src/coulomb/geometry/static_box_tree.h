#pragma once

#include <array>
#include <vector>

#include <Eigen/Dense>
#include <Eigen/Geometry>

namespace coulomb {

// A bounding-volume hierarchy over boxes that never move (the world's own
// geometry: a terrain's thousands of prisms, floors, walls, shelves), built
// once, so that the broad phase visits the few static boxes near each moving
// one instead of sweeping all of them at every step.
//
// Each entry is an axis-aligned box with a bounding sphere centred on the
// box's centre (radius ≥ 0) and the caller's id. A node bounds its entries'
// boxes; a node of more than kLeafSize entries splits them at the median of
// their centres along the axis the centres spread most, so the tree is
// balanced (depth ⌈log₂(n / kLeafSize)⌉) whatever the boxes' sizes.
// ForEachNear reports what the sweep and prune reports (sweep_and_prune.h):
// an entry whose box comes within `margin` of the query box on every axis
// and whose sphere comes within `margin` of the query sphere. It allocates
// nothing.
class StaticBoxTree {
 public:
  // Replaces the tree by one over boxes[k] (finite), radii[k], ids[k].
  void Build(const std::vector<Eigen::AlignedBox3d>& boxes,
             const std::vector<double>& radii, const std::vector<int>& ids);

  int size() const { return static_cast<int>(entries_.size()); }

  // Calls visit(id, place) for each entry within `margin` of `box` on every
  // axis whose sphere is within `margin` of the sphere about box.center() of
  // radius `radius`, by increasing place: the entry's fixed rank in the
  // tree, in [0, size()), so the same entries always come in the same order.
  template <typename Visit>
  void ForEachNear(const Eigen::AlignedBox3d& box, double radius, double margin,
                   Visit&& visit) const {
    if (nodes_.empty()) return;
    const Eigen::AlignedBox3d grown(box.min().array() - margin,
                                    box.max().array() + margin);
    const Eigen::Vector3d center = box.center();
    std::array<int, kMaxDepth> pending;
    int num_pending = 0;
    pending[num_pending++] = 0;
    while (num_pending > 0) {
      const Node& node = nodes_[pending[--num_pending]];
      if (!node.bounds.intersects(grown)) continue;
      if (node.count == 0) {  // the two children, the first on top
        pending[num_pending++] = node.first + 1;
        pending[num_pending++] = node.first;
        continue;
      }
      for (int k = node.first; k < node.first + node.count; ++k) {
        const Entry& entry = entries_[k];
        const double reach = radius + entry.radius + margin;
        if (entry.box.intersects(grown) &&
            (entry.box.center() - center).squaredNorm() <= reach * reach) {
          visit(entry.id, k);
        }
      }
    }
  }

  static constexpr int kLeafSize = 4;

 private:
  struct Entry {
    Eigen::AlignedBox3d box;
    double radius;
    int id;
  };
  // A leaf holds entries_[first, first + count) (their places); an inner
  // node (count 0) has its children at nodes_[first] and nodes_[first + 1],
  // the first over the entries before the second's.
  struct Node {
    Eigen::AlignedBox3d bounds;
    int first = 0;
    int count = 0;
  };
  // Node `node` over entries_[begin, end): its bounds, and its split.
  void BuildNode(int node, int begin, int end);

  // The traversal's stack holds at most one pending sibling per level;
  // 2⁶⁰ entries would not fit in memory.
  static constexpr int kMaxDepth = 64;
  std::vector<Entry> entries_;
  std::vector<Node> nodes_;
};

}  // namespace coulomb
