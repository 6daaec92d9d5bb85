#include "coulomb/geometry/contact_clustering.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>

namespace coulomb {
namespace {

// Which of 27 direction classes a unit normal falls in: each component
// below −0.38, between, or above 0.38 (sin 22.4°). A thread's two flanks
// (normal z components ±½) fall in different classes.
int NormalClass(const Eigen::Vector3d& n) {
  int code = 0;
  for (int d = 0; d < 3; ++d) code = 3 * code + (n[d] > 0.38) - (n[d] < -0.38) + 1;
  return code;
}

}  // namespace

void ContactClustering::MergeByGrid(int target, std::vector<ContactPoint>* points) {
  Eigen::AlignedBox3d box;
  for (const ContactPoint& point : *points) box.extend(point.p_W);
  // Cells are numbered from the box's corner, 19 bits per axis: the first
  // cell is 1/32 of the extent, so the indices fit until it has doubled.
  const double extent = std::max(box.sizes().maxCoeff(), 1e-9);
  double cell = extent / 32.0;
  while (static_cast<int>(points->size()) > target) {
    cell_keys_.clear();
    for (size_t i = 0; i < points->size(); ++i) {
      const ContactPoint& point = (*points)[i];
      const Eigen::Vector3d scaled = (point.p_W - box.min()) / cell;
      std::uint64_t key = 0;
      for (int d = 0; d < 3; ++d)
        key = (key << 19) | static_cast<std::uint64_t>(std::min(scaled[d], 524287.0));
      key = (key << 5) | static_cast<std::uint64_t>(NormalClass(point.normal_W));
      cell_keys_.emplace_back(key, static_cast<std::uint32_t>(i));
    }
    std::sort(cell_keys_.begin(), cell_keys_.end());
    representatives_.clear();
    for (size_t k = 0; k < cell_keys_.size(); ++k) {
      const ContactPoint& point = (*points)[cell_keys_[k].second];
      if (k == 0 || cell_keys_[k].first != cell_keys_[k - 1].first) {
        representatives_.push_back(point);
        continue;
      }
      ContactPoint& merged = representatives_.back();
      const double weight = merged.weight + point.weight;
      if (point.phi < merged.phi) merged = point;
      merged.weight = weight;
    }
    points->swap(representatives_);
    // A cell wider than the box holds every point: one per normal class is
    // left, which no larger cell merges (there may be more than `target`).
    if (cell > extent) break;
    cell *= 2.0;
  }
}

int ContactClustering::AddSeed(int seed) {
  const int count = static_cast<int>(nearest_distance2_.size());
  double seed_features[6];
  for (int d = 0; d < 6; ++d) seed_features[d] = features_[d][seed];
  const int newest = static_cast<int>(seeds_.size());
  seeds_.push_back(seed);
  int farthest = 0;
  for (int i = 0; i < count; ++i) {
    double d2 = 0.0;
    for (int d = 0; d < 6; ++d) {
      const double difference = features_[d][i] - seed_features[d];
      d2 += difference * difference;
    }
    if (d2 < nearest_distance2_[i]) {
      nearest_distance2_[i] = d2;
      nearest_seed_[i] = newest;
    }
    if (nearest_distance2_[i] > nearest_distance2_[farthest]) farthest = i;
  }
  return farthest;
}

void ContactClustering::Reduce(int max_count, double length_scale,
                               std::vector<ContactPoint>* points) {
  if (static_cast<int>(points->size()) <= max_count || max_count <= 0) return;
  // Farthest-point sampling costs (points × seeds): merge grid cells first.
  MergeByGrid(kPointsPerSeed * max_count, points);
  const int count = static_cast<int>(points->size());
  if (count <= max_count) return;
  const std::vector<ContactPoint>& p = *points;
  for (int d = 0; d < 6; ++d) features_[d].resize(count);
  for (int i = 0; i < count; ++i) {
    for (int d = 0; d < 3; ++d) {
      features_[d][i] = p[i].p_W[d];
      features_[3 + d][i] = length_scale * p[i].normal_W[d];
    }
  }
  nearest_distance2_.assign(count, std::numeric_limits<double>::infinity());
  nearest_seed_.assign(count, 0);
  seeds_.clear();
  const auto deepest = std::min_element(
      p.begin(), p.end(),
      [](const ContactPoint& a, const ContactPoint& b) { return a.phi < b.phi; });
  int next = AddSeed(static_cast<int>(deepest - p.begin()));
  // Stop at max_count, or when every point coincides with a seed.
  while (static_cast<int>(seeds_.size()) < max_count && nearest_distance2_[next] > 0.0)
    next = AddSeed(next);
  representatives_.clear();
  for (int seed : seeds_) {
    representatives_.push_back(p[seed]);
    representatives_.back().weight = 0.0;
  }
  for (int i = 0; i < count; ++i) {
    ContactPoint& cluster = representatives_[nearest_seed_[i]];
    const double weight = cluster.weight + p[i].weight;
    if (p[i].phi < cluster.phi) cluster = p[i];
    cluster.weight = weight;
  }
  points->swap(representatives_);
}

}  // namespace coulomb
