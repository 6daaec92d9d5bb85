#include "coulomb/geometry/sweep_and_prune.h"
#include "coulomb/geometry/static_box_tree.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
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

// The static boxes near a query box, found in the tree, are exactly those
// the brute-force test finds, for boxes of very different sizes (grains,
// bricks, walls across the region, one box holding all others), spheres
// smaller than their boxes, queries inside and outside the region, and
// margins of 0 and 1 cm.
// The counting sorts order pairs as std::sort does, repeated pairs and
// empty lists included, and the sorter keeps working when reused for lists
// of other lengths and ranges.
TEST(IndexPairSorter, SortsAsStdSortDoes) {
  std::mt19937 random(7);
  IndexPairSorter sorter;
  std::vector<std::pair<int, int>> sorted;
  for (const int n : {1, 5, 300, 20, 8000}) {
    for (const size_t count : {size_t{0}, size_t{1}, size_t{50}, size_t{3000}}) {
      std::uniform_int_distribution<int> index(0, n - 1);
      std::vector<std::pair<int, int>> pairs;
      for (size_t k = 0; k < count; ++k) {
        const int i = index(random);
        pairs.emplace_back(i, index(random));
      }
      sorter.Sort(n, pairs, &sorted);
      std::sort(pairs.begin(), pairs.end());
      EXPECT_EQ(sorted, pairs) << n << " " << count;
    }
  }
}

// The tree finds what the sweep's pair test finds, each entry at one fixed
// place, reported by increasing place.
TEST(StaticBoxTree, FindsExactlyTheBoxesNearAQuery) {
  std::mt19937 random(5);
  std::uniform_real_distribution<double> position(-1.0, 1.0), unit(0.0, 1.0);
  std::vector<Eigen::AlignedBox3d> boxes;
  std::vector<double> radii;
  std::vector<int> ids;
  for (int k = 0; k < 700; ++k) {
    const Eigen::Vector3d center(position(random), position(random), position(random));
    Eigen::Vector3d half = Eigen::Vector3d::Constant(k % 2 == 0 ? 0.002 : 0.05);
    if (k % 50 == 7) half = {1.2, 0.01, 0.4};  // a wall
    if (k == 300) half = Eigen::Vector3d::Constant(2.0);
    half =
        half.cwiseProduct(Eigen::Vector3d(0.5 + unit(random), 0.5 + unit(random), 1.0));
    boxes.emplace_back(center - half, center + half);
    radii.push_back(k % 3 == 0 ? half.minCoeff() : half.norm());
    ids.push_back(1000 + 3 * k);
  }
  StaticBoxTree tree;
  tree.Build(boxes, radii, ids);
  ASSERT_EQ(tree.size(), 700);
  size_t most = 0;
  std::map<int, int> place_of_id;  // as the queries report it
  for (int q = 0; q < 80; ++q) {
    const Eigen::Vector3d center =
        1.3 * Eigen::Vector3d(position(random), position(random), position(random));
    const Eigen::Vector3d half = Eigen::Vector3d::Constant(0.01 + 0.2 * unit(random));
    const Eigen::AlignedBox3d query(center - half, center + half);
    const double radius = q % 2 == 0 ? half.norm() : half.minCoeff();
    for (const double margin : {0.0, 0.01}) {
      std::vector<int> found;
      int last_place = -1;
      tree.ForEachNear(query, radius, margin, [&](int id, int place) {
        found.push_back(id);
        ASSERT_GT(place, last_place) << "query " << q;  // by increasing place
        ASSERT_LT(place, tree.size());
        last_place = place;
        const auto [known, inserted] = place_of_id.emplace(id, place);
        ASSERT_EQ(known->second, place) << "entry " << id << " changed its place";
      });
      std::sort(found.begin(), found.end());
      std::vector<int> expected;
      for (size_t k = 0; k < boxes.size(); ++k) {
        if (!ClosePairs({boxes[k], query}, {radii[k], radius}, margin).empty())
          expected.push_back(ids[k]);
      }
      ASSERT_EQ(found, expected) << "query " << q << ", margin " << margin;
      most = std::max(most, found.size());
    }
  }
  EXPECT_GT(most, 5u);  // the queries do meet boxes
  // An empty tree finds nothing.
  tree.Build({}, {}, {});
  int visits = 0;
  tree.ForEachNear(Eigen::AlignedBox3d(Eigen::Vector3d::Zero(), Eigen::Vector3d::Ones()),
                   1.0, 0.1, [&](int, int) { ++visits; });
  EXPECT_EQ(visits, 0);
}

}  // namespace
}  // namespace coulomb
