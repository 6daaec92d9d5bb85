#include "coulomb/geometry/contact_clustering.h"

#include <algorithm>
#include <array>
#include <bit>
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

// Each point's squared distance d² to a new seed in the six features,
// kept with the seed's number (`seed`) where it is below the nearest so
// far. No branch and no dependence from point to point, so the loop runs on
// vectors: compiled for AVX2 as well, chosen by the processor at load time,
// and without fused multiply–adds, so both versions sum d² alike, bit for
// bit.
__attribute__((target_clones("avx2", "default"))) void UpdateNearestSeed(
    int count, const std::vector<double> (&features)[6], const double (&seed_features)[6],
    std::int64_t seed, double* nearest_distance2, std::int64_t* nearest_seed) {
  const double *x = features[0].data(), *y = features[1].data(), *z = features[2].data(),
               *nx = features[3].data(), *ny = features[4].data(),
               *nz = features[5].data();
  const auto [sx, sy, sz, snx, sny, snz] = seed_features;
  for (int i = 0; i < count; ++i) {
    const double d2 = (x[i] - sx) * (x[i] - sx) + (y[i] - sy) * (y[i] - sy) +
                      (z[i] - sz) * (z[i] - sz) + (nx[i] - snx) * (nx[i] - snx) +
                      (ny[i] - sny) * (ny[i] - sny) + (nz[i] - snz) * (nz[i] - snz);
    const bool nearer = d2 < nearest_distance2[i];
    nearest_distance2[i] = std::min(d2, nearest_distance2[i]);
    nearest_seed[i] = nearer ? seed : nearest_seed[i];
  }
}

}  // namespace

void ContactClustering::MergeByGrid(int target, std::vector<ContactPoint>* points) {
  Eigen::AlignedBox3d box;
  for (const ContactPoint& point : *points) box.extend(point.p_W);
  // Cells are numbered from the box's corner, as many bits per axis as the
  // largest index needs (the first cell is 1/32 of the extent, so 6 bits):
  // the key orders the points by cell, then normal class.
  const double extent = std::max(box.sizes().maxCoeff(), 1e-9);
  double cell = extent / 32.0;
  while (static_cast<int>(points->size()) > target) {
    const int index_bits = std::bit_width(static_cast<std::uint64_t>(extent / cell));
    cell_keys_.clear();
    for (size_t i = 0; i < points->size(); ++i) {
      const ContactPoint& point = (*points)[i];
      const Eigen::Vector3d scaled = (point.p_W - box.min()) / cell;
      std::uint64_t key = 0;
      for (int d = 0; d < 3; ++d)
        key = (key << index_bits) | static_cast<std::uint64_t>(scaled[d]);
      key = (key << 5) | static_cast<std::uint64_t>(NormalClass(point.normal_W));
      cell_keys_.emplace_back(key, static_cast<std::uint32_t>(i));
    }
    SortCellKeys(3 * index_bits + 5);
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

void ContactClustering::SortCellKeys(int key_bits) {
  // Least-significant digit first; each pass is stable, so points with equal
  // keys stay in their order, as sorting the (key, point) pairs leaves them.
  constexpr int kDigitBits = 12;
  constexpr std::uint64_t kDigitMask = (std::uint64_t{1} << kDigitBits) - 1;
  sorted_cell_keys_.resize(cell_keys_.size());
  for (int shift = 0; shift < key_bits; shift += kDigitBits) {
    digit_starts_.fill(0);
    for (const auto& entry : cell_keys_)
      ++digit_starts_[((entry.first >> shift) & kDigitMask) + 1];
    for (size_t digit = 1; digit < digit_starts_.size(); ++digit)
      digit_starts_[digit] += digit_starts_[digit - 1];
    for (const auto& entry : cell_keys_)
      sorted_cell_keys_[digit_starts_[(entry.first >> shift) & kDigitMask]++] = entry;
    cell_keys_.swap(sorted_cell_keys_);
  }
}

int ContactClustering::AddSeed(int seed) {
  const int count = static_cast<int>(nearest_distance2_.size());
  const double seed_features[6] = {features_[0][seed], features_[1][seed],
                                   features_[2][seed], features_[3][seed],
                                   features_[4][seed], features_[5][seed]};
  UpdateNearestSeed(count, features_, seed_features,
                    static_cast<std::int64_t>(seeds_.size()), nearest_distance2_.data(),
                    nearest_seed_.data());
  seeds_.push_back(seed);
  int farthest = 0;
  for (int i = 1; i < count; ++i) {
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
