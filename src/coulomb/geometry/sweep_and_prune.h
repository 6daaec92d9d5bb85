#pragma once

#include <utility>
#include <vector>

#include <Eigen/Dense>

namespace coulomb {

// Broad phase over bounding spheres by sweep and prune: every sphere i is
// the interval [c_i − r_i, c_i + r_i] on one axis (the axis along which the
// centres spread most); after sorting the intervals by their lower ends, a
// sweep visits each pair whose intervals come within `margin` and reports
// it if the spheres come within `margin`, in O(n log n + visited pairs)
// instead of the O(n²) of testing all pairs. Spheres of infinite radius
// (half-spaces) are paired with every other sphere.
//
// The sort order is kept between calls and repaired by insertion sort, which
// is linear when bodies move a little per step; buffers are reused, so after
// the first calls nothing is allocated.
class SweepAndPrune {
 public:
  // Appends, after clearing `pairs`, every (i, j) with i < j whose spheres
  // are within margin [m] of each other (‖c_i − c_j‖ ≤ r_i + r_j + margin),
  // sorted by (i, j).
  void FindCandidatePairs(const std::vector<Eigen::Vector3d>& centers,
                          const std::vector<double>& radii, double margin,
                          std::vector<std::pair<int, int>>* pairs);

 private:
  int SpreadAxis(const std::vector<Eigen::Vector3d>& centers) const;
  void SortByLowerEnd();
  // found_ sorted by (i, j) into *pairs (each pair is found once).
  void SortPairs(int n, std::vector<std::pair<int, int>>* pairs);
  // `from` into *to (of its size) by key(pair) in [0, n), stable.
  template <typename Key>
  void CountingSort(int n, const std::vector<std::pair<int, int>>& from,
                    std::vector<std::pair<int, int>>* to, Key&& key);

  std::vector<int> order_;      // bounded spheres by increasing lower end
  std::vector<int> unbounded_;  // spheres of infinite radius
  std::vector<double> lower_;   // interval ends on the sweep axis, by index
  std::vector<double> upper_;
  std::vector<std::pair<int, int>> found_;      // pairs in sweep order
  std::vector<std::pair<int, int>> by_second_;  // SortPairs' workspace
  std::vector<int> bucket_start_;
};

}  // namespace coulomb
