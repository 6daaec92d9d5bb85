#pragma once

#include <array>
#include <cstdint>
#include <utility>
#include <vector>

#include "coulomb/geometry/contact_point.h"

namespace coulomb {

// Reduces the contact points of one pair to at most `max_count` (AL §VII-A1
// clusters the bolt–nut contacts to 120, after Jain et al.'s review of data
// clustering). Points are compared by d² = |p_i − p_j|² + ℓ² |n_i − n_j|²,
// so that points on opposite faces (normals apart) are far apart even when
// close in space; ℓ = `length_scale` [m], the size of the pair.
// Many points (more than 8 per cluster) are first merged by a grid: points
// in the same cell and normal class become one, the cell doubling until few
// enough remain. Seeds are then chosen by farthest-point sampling from the deepest point
// (each new seed the point farthest from the seeds so far, which covers the contact
// region evenly and is deterministic); every point joins its nearest seed. A cluster is
// represented by its deepest member (its p, n and φ: the conservative choice for
// non-penetration), with the summed weights of its members.
class ContactClustering {
 public:
  // Replaces *points (all of one pair) by the representatives, in seed order;
  // a no-op when there are at most max_count. Reuses its buffers.
  void Reduce(int max_count, double length_scale, std::vector<ContactPoint>* points);

 private:
  static constexpr int kPointsPerSeed = 8;
  // Merges points of a grid cell and normal class (deepest member, summed
  // weight), doubling the cell from 1/32 of the extent until at most
  // `target` remain or one cell holds them all (one point per normal class
  // is left then, up to 27).
  void MergeByGrid(int target, std::vector<ContactPoint>* points);
  // Sorts cell_keys_ by key, points with equal keys in their order, by a
  // radix sort over the key's low `key_bits` bits (the others are zero).
  void SortCellKeys(int key_bits);
  // Moves every point's nearest seed to `seed` where that is nearer; returns
  // the point now farthest from its nearest seed (the first of equals).
  int AddSeed(int seed);

  // The points' features (p, ℓ n), one row per coordinate: the inner loop
  // runs over contiguous arrays.
  std::vector<double> features_[6];
  std::vector<double> nearest_distance2_;
  // 64-bit, as wide as the distances, for AddSeed's pass on vectors.
  std::vector<std::int64_t> nearest_seed_;
  std::vector<int> seeds_;
  std::vector<ContactPoint> representatives_;
  std::vector<std::pair<std::uint64_t, std::uint32_t>>
      cell_keys_;  // (cell, class), point
  std::vector<std::pair<std::uint64_t, std::uint32_t>> sorted_cell_keys_;
  std::array<std::uint32_t, (1 << 12) + 1> digit_starts_{};  // SortCellKeys' counts
};

}  // namespace coulomb
