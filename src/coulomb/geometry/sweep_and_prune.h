#pragma once

#include <utility>
#include <vector>

#include <Eigen/Dense>
#include <Eigen/Geometry>

namespace coulomb {

// Broad phase over axis-aligned boxes and bounding spheres by sweep and
// prune: every box is the interval [lower_i, upper_i] on one axis (the axis
// along which the box centres spread most); after sorting the intervals by
// their lower ends, a sweep visits each pair whose intervals come within
// `margin` and reports it if the boxes come within `margin` of each other
// on every axis and the spheres (centred on the boxes) within `margin` too,
// in O(n log n + visited pairs) instead of the O(n²) of testing all pairs.
// Each test drops pairs the other keeps: a wall's box is thin where its
// sphere reaches across the scene, and two boxes side by side on a diagonal
// have boxes that meet where their spheres do not. Boxes with an infinite
// corner (half-spaces) are paired with every other box.
//
// The sort order is kept between calls and repaired by insertion sort, which
// is linear when bodies move a little per step; buffers are reused, so after
// the first calls nothing is allocated.
class SweepAndPrune {
 public:
  // Appends, after clearing `pairs`, every (i, j) with i < j whose boxes are
  // within margin [m] of each other on every axis (no gap wider than
  // margin) and whose spheres (centre boxes[i].center(), radius radii[i])
  // are within margin, sorted by (i, j). A pair of geometries within margin
  // of each other passes both tests: they are conservative.
  void FindCandidatePairs(const std::vector<Eigen::AlignedBox3d>& boxes,
                          const std::vector<double>& radii, double margin,
                          std::vector<std::pair<int, int>>* pairs);

 private:
  int SpreadAxis() const;  // of centers_
  void SortByLowerEnd();
  // found_ sorted by (i, j) into *pairs (each pair is found once).
  void SortPairs(int n, std::vector<std::pair<int, int>>* pairs);
  // `from` into *to (of its size) by key(pair) in [0, n), stable.
  template <typename Key>
  void CountingSort(int n, const std::vector<std::pair<int, int>>& from,
                    std::vector<std::pair<int, int>>* to, Key&& key);

  std::vector<int> order_;                // bounded boxes by increasing lower end
  std::vector<int> unbounded_;            // boxes with an infinite corner
  std::vector<Eigen::Vector3d> centers_;  // the boxes' centres, by index
  std::vector<double> lower_;             // interval ends on the sweep axis, by index
  std::vector<double> upper_;
  std::vector<std::pair<int, int>> found_;      // pairs in sweep order
  std::vector<std::pair<int, int>> by_second_;  // SortPairs' workspace
  std::vector<int> bucket_start_;
};

}  // namespace coulomb
