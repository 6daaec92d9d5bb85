#include "coulomb/geometry/sweep_and_prune.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include <gtest/gtest.h>

namespace coulomb {
namespace {

// Pairs whose boxes are within margin of each other on every axis and
// whose spheres (centred on the boxes) are within margin, by testing all of
// them (an unbounded box meets every box).
std::vector<std::pair<int, int>> ClosePairs(const std::vector<Eigen::AlignedBox3d>& boxes,
                                            const std::vector<double>& radii,
                                            double margin) {
  std::vector<std::pair<int, int>> pairs;
  for (size_t i = 0; i < boxes.size(); ++i) {
    for (size_t j = i + 1; j < boxes.size(); ++j) {
      bool close =
          std::isinf(radii[i]) || std::isinf(radii[j]) ||
          (boxes[i].center() - boxes[j].center()).norm() <= radii[i] + radii[j] + margin;
      for (int axis = 0; axis < 3; ++axis) {
        const double gap = std::max(boxes[i].min()[axis] - boxes[j].max()[axis],
                                    boxes[j].min()[axis] - boxes[i].max()[axis]);
        close = close && gap <= margin;  // −∞ for an unbounded box
      }
      if (close) pairs.emplace_back(i, j);
    }
  }
  return pairs;
}

TEST(SweepAndPrune, FindsExactlyTheClosePairsWhileBoxesMove) {
  std::mt19937 random(7);
  std::uniform_real_distribution<double> position(-1.0, 1.0), half_size(0.01, 0.15),
      step(-0.02, 0.02);
  std::vector<Eigen::Vector3d> centers(200), half_sizes(200);
  for (size_t i = 0; i < centers.size(); ++i) {
    centers[i] = {position(random), position(random), 0.3 * position(random)};
    half_sizes[i] = {half_size(random), half_size(random), half_size(random)};
  }
  // Two half-spaces, and a wall: long and thin, across the whole region.
  const double inf = std::numeric_limits<double>::infinity();
  half_sizes[17] = half_sizes[90] = Eigen::Vector3d::Constant(inf);
  half_sizes[120] = {0.02, 1.5, 0.5};
  // Each box's bounding sphere, and for some a sphere inside their box
  // (radius the smallest half size): the two tests then prune different pairs.
  std::vector<double> radii(centers.size());
  for (size_t i = 0; i < radii.size(); ++i)
    radii[i] = i % 3 == 0 ? half_sizes[i].minCoeff() : half_sizes[i].norm();
  SweepAndPrune broad_phase;
  std::vector<Eigen::AlignedBox3d> boxes(centers.size());
  std::vector<std::pair<int, int>> candidates;
  size_t all_pairs = centers.size() * (centers.size() - 1) / 2, most = 0;
  for (int frame = 0; frame < 30; ++frame) {
    for (size_t i = 0; i < boxes.size(); ++i)
      boxes[i] = {centers[i] - half_sizes[i], centers[i] + half_sizes[i]};
    broad_phase.FindCandidatePairs(boxes, radii, 0.01, &candidates);
    ASSERT_TRUE(std::is_sorted(candidates.begin(), candidates.end()));
    ASSERT_EQ(std::adjacent_find(candidates.begin(), candidates.end()), candidates.end())
        << "a pair is reported twice";
    // Exactly the close pairs: none missed, none of the pairs that overlap
    // only along the sweep axis.
    ASSERT_EQ(candidates, ClosePairs(boxes, radii, 0.01)) << "frame " << frame;
    most = std::max(most, candidates.size());
    for (Eigen::Vector3d& c : centers)
      c += Eigen::Vector3d{step(random), step(random), 0.0};  // braces: drawn in order
  }
  // Pruning works: far fewer candidates than the 19900 pairs.
  EXPECT_LT(most, all_pairs / 4);
}

// A terrain's prisms: a grid of fixed boxes touching their neighbours, a
// fixed half-space under them and a few moving boxes among them. Fixed pairs
// are left out, and every other close pair is found, whether the moving box
// comes before or after the fixed one in the sweep.
TEST(SweepAndPrune, LeavesOutPairsOfFixedBoxesOnly) {
  std::mt19937 random(11);
  std::uniform_real_distribution<double> position(-1.0, 1.0);
  std::vector<Eigen::AlignedBox3d> boxes;
  std::vector<double> radii;
  std::vector<char> fixed;
  const auto add = [&](const Eigen::Vector3d& center, const Eigen::Vector3d& half,
                       bool is_fixed) {
    boxes.emplace_back(center - half, center + half);
    radii.push_back(half.norm());
    fixed.push_back(is_fixed);
  };
  for (int r = 0; r < 20; ++r)
    for (int c = 0; c < 20; ++c)
      add({-1.0 + 0.1 * c, -1.0 + 0.1 * r, 0.0}, {0.05, 0.05, 0.1}, true);
  add(Eigen::Vector3d::Zero(),
      Eigen::Vector3d::Constant(std::numeric_limits<double>::infinity()), true);
  for (int k = 0; k < 12; ++k)
    add({position(random), position(random), 0.15}, {0.07, 0.04, 0.06}, false);
  std::vector<std::pair<int, int>> expected;
  for (const auto& [i, j] : ClosePairs(boxes, radii, 0.01))
    if (!(fixed[i] && fixed[j])) expected.emplace_back(i, j);
  SweepAndPrune broad_phase;
  std::vector<std::pair<int, int>> candidates;
  broad_phase.FindCandidatePairs(boxes, radii, 0.01, &candidates, fixed);
  EXPECT_EQ(candidates, expected);
  EXPECT_GT(expected.size(), 12u * 4);  // each moving box meets several prisms
  // Without the flags the fixed pairs come back: the grid's neighbours.
  broad_phase.FindCandidatePairs(boxes, radii, 0.01, &candidates);
  EXPECT_EQ(candidates, ClosePairs(boxes, radii, 0.01));
  EXPECT_GT(candidates.size(), expected.size() + 400);
}

}  // namespace
}  // namespace coulomb
