#include "coulomb/geometry/sweep_and_prune.h"

#include <algorithm>
#include <limits>
#include <random>

#include <gtest/gtest.h>

namespace coulomb {
namespace {

// Pairs whose spheres are within margin, by testing all of them.
std::vector<std::pair<int, int>> CloseSpheres(const std::vector<Eigen::Vector3d>& centers,
                                              const std::vector<double>& radii,
                                              double margin) {
  std::vector<std::pair<int, int>> pairs;
  for (size_t i = 0; i < centers.size(); ++i) {
    for (size_t j = i + 1; j < centers.size(); ++j) {
      if (std::isinf(radii[i]) || std::isinf(radii[j]) ||
          (centers[i] - centers[j]).norm() <= radii[i] + radii[j] + margin) {
        pairs.emplace_back(i, j);
      }
    }
  }
  return pairs;
}

TEST(SweepAndPrune, FindsExactlyTheCloseSpherePairsWhileSpheresMove) {
  std::mt19937 random(7);
  std::uniform_real_distribution<double> position(-1.0, 1.0), radius(0.01, 0.15),
      step(-0.02, 0.02);
  std::vector<Eigen::Vector3d> centers(200);
  std::vector<double> radii(200);
  for (size_t i = 0; i < centers.size(); ++i) {
    centers[i] = {position(random), position(random), 0.3 * position(random)};
    radii[i] = radius(random);
  }
  radii[17] = std::numeric_limits<double>::infinity();  // a half-space
  radii[90] = std::numeric_limits<double>::infinity();
  SweepAndPrune broad_phase;
  std::vector<std::pair<int, int>> candidates;
  size_t all_pairs = centers.size() * (centers.size() - 1) / 2, most = 0;
  for (int frame = 0; frame < 30; ++frame) {
    broad_phase.FindCandidatePairs(centers, radii, 0.01, &candidates);
    ASSERT_TRUE(std::is_sorted(candidates.begin(), candidates.end()));
    ASSERT_EQ(std::adjacent_find(candidates.begin(), candidates.end()), candidates.end())
        << "a pair is reported twice";
    // Exactly the close pairs: none missed, none of the pairs that overlap
    // only along the sweep axis.
    ASSERT_EQ(candidates, CloseSpheres(centers, radii, 0.01)) << "frame " << frame;
    most = std::max(most, candidates.size());
    for (Eigen::Vector3d& c : centers)
      c += Eigen::Vector3d{step(random), step(random), 0.0};  // braces: drawn in order
  }
  // Pruning works: far fewer candidates than the 19900 pairs.
  EXPECT_LT(most, all_pairs / 4);
}

}  // namespace
}  // namespace coulomb
