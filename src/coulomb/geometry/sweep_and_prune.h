#pragma once

#include <span>
#include <utility>
#include <vector>

#include <Eigen/Dense>
#include <Eigen/Geometry>

namespace coulomb {

// Sorts pairs of indices in [0, n) by (first, second) in O(n + pairs): two
// stable counting sorts, by the second index, then by the first. Its
// workspace is kept from call to call.
class IndexPairSorter {
 public:
  // `from` sorted into *to (resized to it).
  void Sort(int n, const std::vector<std::pair<int, int>>& from,
            std::vector<std::pair<int, int>>* to);

 private:
  // `from` into *to (of its size) by key(pair) in [0, n), stable.
  template <typename Key>
  void CountingSort(int n, const std::vector<std::pair<int, int>>& from,
                    std::vector<std::pair<int, int>>* to, Key&& key);

  std::vector<std::pair<int, int>> by_second_;
  std::vector<int> bucket_start_;
};

// Broad phase over axis-aligned boxes and bounding spheres by sweep and
// prune in strips. Every box is the interval [lower_i, upper_i] on the axis
// along which the box centres spread most (the sweep axis), and covers the
// strips of the axis they spread along next (across) that its interval
// there, grown by `margin`, meets. Within each strip, the boxes sorted by
// their lower ends, a sweep visits each pair whose intervals come within
// `margin` and reports it if the boxes come within `margin` of each other
// on every axis and the spheres (centred on the boxes) within `margin` too.
// A pair is reported in one strip only, the one holding the larger of the
// two boxes' lower ends across (both boxes cover it whenever they meet).
// Where fewer than four strips twice as wide as the boxes fit, one sweep
// over all boxes does (the strips would not pay for themselves).
// That costs O(n log n + visited pairs) instead of the O(n²) of testing all
// pairs, and the strips keep the visited pairs near the kept ones when the
// boxes spread over a plane: a sweep along one axis alone would visit every
// box of a row of the plane. Each test drops pairs the other keeps: a
// wall's box is thin where its sphere reaches across the scene, and two
// boxes side by side on a diagonal have boxes that meet where their spheres
// do not. Boxes with an infinite corner (half-spaces) are paired with every
// other box.
//
// The sort order is kept between calls and repaired by insertion sort, which
// is linear when bodies move a little per step, and the strips are filled in
// that order (a stable counting sort); buffers are reused, so after the
// first calls nothing is allocated.
class SweepAndPrune {
 public:
  // Appends, after clearing `pairs`, every (i, j) with i < j whose boxes are
  // within margin [m] of each other on every axis (no gap wider than
  // margin) and whose spheres (centre boxes[i].center(), radius radii[i])
  // are within margin, sorted by (i, j). A pair of geometries within margin
  // of each other passes both tests: they are conservative. `fixed` (empty,
  // or one flag per box): pairs of two fixed boxes are not reported, as
  // fixed geometry never collides with fixed geometry (a terrain's
  // thousands of adjacent prisms, a floor and walls).
  void FindCandidatePairs(const std::vector<Eigen::AlignedBox3d>& boxes,
                          const std::vector<double>& radii, double margin,
                          std::vector<std::pair<int, int>>* pairs,
                          std::span<const char> fixed = {});

 private:
  // The axes along which centers_ spread most and next most.
  std::pair<int, int> SpreadAxes() const;
  void SortByLowerEnd();
  // The strips across: their width from the boxes' extents, each box's
  // first and last strip, and strip_entries_ filled in order_'s order;
  // false (nothing filled) if fewer than kMinStrips would do.
  bool FillStrips(const std::vector<Eigen::AlignedBox3d>& boxes, double margin,
                  int across);
  // Appends to found_ the pairs of `entries` (sorted by lower end) that
  // strip `strip` reports, or all of them for strip −1 (a single sweep).
  void SweepStrip(std::span<const int> entries, int strip,
                  const std::vector<Eigen::AlignedBox3d>& boxes,
                  const std::vector<double>& radii, double margin);

  static constexpr double kMinStrips = 4.0;

  // Whether both boxes are fixed (FindCandidatePairs' `fixed`).
  bool BothFixed(int i, int j) const { return !fixed_.empty() && fixed_[i] && fixed_[j]; }

  std::span<const char> fixed_;           // this call's
  std::vector<size_t> next_moving_;       // SweepStrip's, per entry
  std::vector<int> order_;                // bounded boxes by increasing lower end
  std::vector<int> unbounded_;            // boxes with an infinite corner
  std::vector<Eigen::Vector3d> centers_;  // the boxes' centres, by index
  std::vector<double> lower_;             // interval ends on the sweep axis, by index
  std::vector<double> upper_;
  // Strip k holds strip_entries_[strip_start_[k] .. strip_start_[k + 1]);
  // box i covers the strips first_strip_[i] to last_strip_[i].
  std::vector<int> first_strip_, last_strip_, strip_start_, strip_entries_;
  std::vector<std::pair<int, int>> found_;  // pairs in sweep order
  IndexPairSorter pair_sorter_;             // found_ sorted by (i, j)
  std::vector<int> bucket_start_;           // the strips' counting sort
};

}  // namespace coulomb
