#include "coulomb/geometry/static_box_tree.h"

#include <algorithm>
#include <stdexcept>

namespace coulomb {

void StaticBoxTree::Build(const std::vector<Eigen::AlignedBox3d>& boxes,
                          const std::vector<double>& radii, const std::vector<int>& ids) {
  if (radii.size() != boxes.size() || ids.size() != boxes.size())
    throw std::invalid_argument("StaticBoxTree: one radius and one id per box expected");
  entries_.clear();
  nodes_.clear();
  for (size_t k = 0; k < boxes.size(); ++k)
    entries_.push_back({boxes[k], radii[k], ids[k]});
  if (entries_.empty()) return;
  // A binary tree with leaves of at least one entry has fewer than 2n nodes.
  nodes_.reserve(2 * entries_.size());
  nodes_.emplace_back();
  BuildNode(0, 0, size());
}

void StaticBoxTree::BuildNode(int node, int begin, int end) {
  Eigen::AlignedBox3d bounds, centers;
  for (int k = begin; k < end; ++k) {
    bounds.extend(entries_[k].box);
    centers.extend(entries_[k].box.center());
  }
  nodes_[node].bounds = bounds;
  if (end - begin <= kLeafSize) {
    nodes_[node].first = begin;
    nodes_[node].count = end - begin;
    return;
  }
  int axis = 0;
  centers.sizes().maxCoeff(&axis);
  const int middle = begin + (end - begin) / 2;
  std::nth_element(entries_.begin() + begin, entries_.begin() + middle,
                   entries_.begin() + end, [axis](const Entry& a, const Entry& b) {
                     return a.box.center()[axis] < b.box.center()[axis];
                   });
  const int children = static_cast<int>(nodes_.size());
  nodes_[node].first = children;
  nodes_[node].count = 0;
  nodes_.emplace_back();
  nodes_.emplace_back();
  BuildNode(children, begin, middle);
  BuildNode(children + 1, middle, end);
}

}  // namespace coulomb
