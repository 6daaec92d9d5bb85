#include "coulomb/geometry/sweep_and_prune.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace coulomb {

namespace {

// Whether two boxes come within margin of each other on every axis.
bool BoxesMeet(const Eigen::AlignedBox3d& a, const Eigen::AlignedBox3d& b,
               double margin) {
  for (int axis = 0; axis < 3; ++axis) {
    if (a.min()[axis] > b.max()[axis] + margin || b.min()[axis] > a.max()[axis] + margin)
      return false;
  }
  return true;
}

}  // namespace

std::pair<int, int> SweepAndPrune::SpreadAxes() const {
  Eigen::Vector3d sum = Eigen::Vector3d::Zero();
  Eigen::Vector3d sum_of_squares = Eigen::Vector3d::Zero();
  for (const int i : order_) {
    sum += centers_[i];
    sum_of_squares += centers_[i].cwiseProduct(centers_[i]);
  }
  const double n = std::max<double>(1.0, order_.size());
  const Eigen::Vector3d variance = sum_of_squares / n - (sum / n).cwiseProduct(sum / n);
  int axis = 0;
  variance.maxCoeff(&axis);
  const int b = (axis + 1) % 3, c = (axis + 2) % 3;
  return {axis, variance[b] >= variance[c] ? b : c};
}

bool SweepAndPrune::FillStrips(const std::vector<Eigen::AlignedBox3d>& boxes,
                               double margin, int across) {
  // Strips twice as wide as the boxes are on average: most boxes cover one
  // or two. Fewer than kMinStrips would not pay for filling them (a few
  // columns of bodies): one sweep then.
  double low = std::numeric_limits<double>::infinity(), high = -low, extent = 0.0;
  for (const int i : order_) {
    low = std::min(low, boxes[i].min()[across]);
    high = std::max(high, boxes[i].max()[across] + margin);
    extent += boxes[i].max()[across] + margin - boxes[i].min()[across];
  }
  const double mean_extent = extent / std::max<double>(1.0, order_.size());
  const double strips = std::floor((high - low) / (2.0 * mean_extent));
  if (!(strips >= kMinStrips)) return false;
  const int num_strips =
      static_cast<int>(std::min<double>(strips, static_cast<double>(order_.size())));
  const double per_width = num_strips / std::max(high - low, 1e-300);
  // Monotone in x: the strip of the larger of two ends is the larger strip.
  const auto strip_of = [&](double x) {
    return std::clamp(static_cast<int>((x - low) * per_width), 0, num_strips - 1);
  };
  strip_start_.assign(num_strips + 1, 0);
  for (const int i : order_) {
    first_strip_[i] = strip_of(boxes[i].min()[across]);
    last_strip_[i] = strip_of(boxes[i].max()[across] + margin);
    for (int k = first_strip_[i]; k <= last_strip_[i]; ++k) ++strip_start_[k + 1];
  }
  for (int k = 0; k < num_strips; ++k) strip_start_[k + 1] += strip_start_[k];
  strip_entries_.resize(strip_start_.back());
  bucket_start_.assign(strip_start_.begin(), strip_start_.end() - 1);
  for (const int i : order_) {
    for (int k = first_strip_[i]; k <= last_strip_[i]; ++k)
      strip_entries_[bucket_start_[k]++] = i;
  }
  return true;
}

void SweepAndPrune::SweepStrip(std::span<const int> entries, int strip,
                               const std::vector<Eigen::AlignedBox3d>& boxes,
                               const std::vector<double>& radii, double margin) {
  const size_t end = entries.size();
  // A fixed box's window is walked over the boxes that are not fixed only:
  // next_moving_[l] is the first such entry at or after l (end if none), so
  // a terrain's thousands of fixed prisms cost a pass, not their windows.
  next_moving_.resize(end + 1);
  next_moving_[end] = end;
  for (size_t l = end; l-- > 0;)
    next_moving_[l] = !fixed_.empty() && fixed_[entries[l]] ? next_moving_[l + 1] : l;
  for (size_t k = 0; k < end; ++k) {
    const int i = entries[k];
    const bool i_fixed = !fixed_.empty() && fixed_[i];
    const auto next = [&](size_t l) { return i_fixed ? next_moving_[l] : l; };
    for (size_t l = next(k + 1); l < end && lower_[entries[l]] <= upper_[i];
         l = next(l + 1)) {
      // Overlapping on the sweep axis only is common (a row of bodies along
      // another axis): keep the pair if the boxes meet on every axis and the
      // spheres meet, in the one strip that reports it.
      const int j = entries[l];
      if (strip >= 0 && std::max(first_strip_[i], first_strip_[j]) != strip) continue;
      const double reach = radii[i] + radii[j] + margin;
      if ((centers_[i] - centers_[j]).squaredNorm() <= reach * reach &&
          BoxesMeet(boxes[i], boxes[j], margin)) {
        found_.emplace_back(std::min(i, j), std::max(i, j));
      }
    }
  }
}

void SweepAndPrune::SortByLowerEnd() {
  // Insertion sort: linear for the nearly sorted order of the previous call.
  for (size_t k = 1; k < order_.size(); ++k) {
    const int item = order_[k];
    size_t slot = k;
    while (slot > 0 && lower_[order_[slot - 1]] > lower_[item]) {
      order_[slot] = order_[slot - 1];
      --slot;
    }
    order_[slot] = item;
  }
}

void SweepAndPrune::FindCandidatePairs(const std::vector<Eigen::AlignedBox3d>& boxes,
                                       const std::vector<double>& radii, double margin,
                                       std::vector<std::pair<int, int>>* pairs,
                                       std::span<const char> fixed) {
  pairs->clear();
  fixed_ = fixed;
  const int n = static_cast<int>(boxes.size());
  if (static_cast<int>(lower_.size()) != n) {  // a new set of boxes
    lower_.assign(n, 0.0);
    upper_.assign(n, 0.0);
    first_strip_.assign(n, 0);
    last_strip_.assign(n, 0);
    order_.clear();
    unbounded_.clear();
    for (int i = 0; i < n; ++i) {
      const bool bounded = boxes[i].min().allFinite() && boxes[i].max().allFinite();
      (bounded ? order_ : unbounded_).push_back(i);
    }
  }
  centers_.resize(n);
  for (const int i : order_) centers_[i] = boxes[i].center();
  const auto [axis, across] = SpreadAxes();
  for (const int i : order_) {
    lower_[i] = boxes[i].min()[axis];
    upper_[i] = boxes[i].max()[axis] + margin;
  }
  SortByLowerEnd();
  found_.clear();
  if (FillStrips(boxes, margin, across)) {
    const int num_strips = static_cast<int>(strip_start_.size()) - 1;
    for (int strip = 0; strip < num_strips; ++strip) {
      const std::span<const int> entries(strip_entries_.data() + strip_start_[strip],
                                         strip_start_[strip + 1] - strip_start_[strip]);
      SweepStrip(entries, strip, boxes, radii, margin);
    }
  } else {
    SweepStrip(order_, -1, boxes, radii, margin);
  }
  // An unbounded box meets every bounded one and the unbounded after it.
  for (size_t k = 0; k < unbounded_.size(); ++k) {
    const int u = unbounded_[k];
    for (const int i : order_)
      if (!BothFixed(i, u)) found_.emplace_back(std::min(i, u), std::max(i, u));
    for (size_t m = k + 1; m < unbounded_.size(); ++m)
      if (!BothFixed(u, unbounded_[m]))
        found_.emplace_back(std::min(u, unbounded_[m]), std::max(u, unbounded_[m]));
  }
  pair_sorter_.Sort(n, found_, pairs);  // each pair is found once
}

void IndexPairSorter::Sort(int n, const std::vector<std::pair<int, int>>& from,
                           std::vector<std::pair<int, int>>* to) {
  by_second_.resize(from.size());
  to->resize(from.size());
  CountingSort(n, from, &by_second_, [](const auto& pair) { return pair.second; });
  CountingSort(n, by_second_, to, [](const auto& pair) { return pair.first; });
}

template <typename Key>
void IndexPairSorter::CountingSort(int n, const std::vector<std::pair<int, int>>& from,
                                   std::vector<std::pair<int, int>>* to, Key&& key) {
  bucket_start_.assign(n + 1, 0);
  for (const auto& pair : from) ++bucket_start_[key(pair) + 1];
  for (int i = 0; i < n; ++i) bucket_start_[i + 1] += bucket_start_[i];
  for (const auto& pair : from) (*to)[bucket_start_[key(pair)]++] = pair;
}

}  // namespace coulomb
