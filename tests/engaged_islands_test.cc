#include "coulomb/solvers/engaged_islands.h"

#include <algorithm>
#include <memory>
#include <numeric>
#include <set>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "coulomb/contact/sap_friction_cone.h"

namespace coulomb {
namespace {

// A problem on `num_cliques` 3-dof cliques whose constraints touch the listed
// clique tuples (each block the identity).
ContactProblem WithTuples(int num_cliques, const std::vector<std::vector<int>>& tuples) {
  ContactProblem problem(0.01);
  for (int t = 0; t < num_cliques; ++t) problem.AddClique(Eigen::Matrix3d::Identity());
  problem.SetFreeMotionVelocities(Eigen::VectorXd::Zero(3 * num_cliques));
  for (const std::vector<int>& tuple : tuples) {
    std::vector<JacobianBlock> jacobian;
    for (int clique : tuple)
      jacobian.push_back({clique, Eigen::MatrixXd::Identity(3, 3)});
    problem.AddConstraint(std::move(jacobian),
                          std::make_unique<SapFrictionCone>(SapContactParameters{},
                                                            Eigen::Vector3d::Zero()));
  }
  problem.Finalize();
  return problem;
}

std::vector<int> List(std::span<const int> entries) {
  return {entries.begin(), entries.end()};
}

// With every constraint engaged the islands are the clique graph's
// connected components (SAP §IV-D), numbered by their smallest clique.
TEST(EngagedIslands, EveryConstraintEngagedGivesTheConnectedComponents) {
  const ContactProblem problem = WithTuples(4, {{0, 2}, {3}});
  EngagedIslands islands;
  islands.Build(problem, std::vector<char>(2, 1), {});
  ASSERT_EQ(islands.num_islands(), 3);
  EXPECT_EQ(List(islands.cliques(0)), (std::vector<int>{0, 2}));
  EXPECT_EQ(List(islands.cliques(1)), (std::vector<int>{1}));
  EXPECT_EQ(List(islands.cliques(2)), (std::vector<int>{3}));
  EXPECT_EQ(List(islands.constraints(0)), (std::vector<int>{0}));
  EXPECT_TRUE(islands.constraints(1).empty());
  EXPECT_EQ(List(islands.constraints(2)), (std::vector<int>{1}));
  EXPECT_TRUE(islands.crossing().empty());
  EXPECT_EQ(islands.island_of_clique(2), 0);
}

// A disengaged constraint joins nothing: inside an island it belongs to it,
// between islands it is crossing until Join makes one island of them, with
// its lists in increasing order and the other islands' numbers unchanged.
TEST(EngagedIslands, ADisengagedConstraintCrossesUntilJoined) {
  //                                  0       1       2       3    4       5
  const ContactProblem problem =
      WithTuples(5, {{0, 1}, {1, 2}, {2, 3}, {3}, {4, 0}, {1, 0}});
  EngagedIslands islands;
  islands.Build(problem, {1, 0, 1, 1, 0, 0}, {});
  ASSERT_EQ(islands.num_islands(), 3);
  EXPECT_EQ(List(islands.cliques(1)), (std::vector<int>{2, 3}));
  EXPECT_EQ(List(islands.constraints(0)), (std::vector<int>{0, 5}));
  EXPECT_EQ(List(islands.constraints(1)), (std::vector<int>{2, 3}));
  EXPECT_EQ(islands.crossing(), (std::vector<int>{1, 4}));

  const int joined = islands.Join(problem, 1);
  EXPECT_EQ(joined, 3);
  EXPECT_EQ(List(islands.cliques(joined)), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(List(islands.constraints(joined)), (std::vector<int>{0, 1, 2, 3, 5}));
  EXPECT_TRUE(islands.cliques(0).empty() && islands.constraints(0).empty());
  EXPECT_TRUE(islands.cliques(1).empty() && islands.constraints(1).empty());
  EXPECT_EQ(List(islands.cliques(2)), (std::vector<int>{4}));  // untouched
  EXPECT_EQ(islands.crossing(), (std::vector<int>{4}));
  EXPECT_EQ(islands.num_nonempty_islands(), 2);
  EXPECT_EQ(islands.island_of_clique(2), joined);
  EXPECT_EQ(islands.Join(problem, 5), -1);  // already inside one island

  const int all = islands.Join(problem, 4);
  EXPECT_EQ(List(islands.cliques(all)), (std::vector<int>{0, 1, 2, 3, 4}));
  EXPECT_EQ(List(islands.constraints(all)), (std::vector<int>{0, 1, 2, 3, 4, 5}));
  EXPECT_TRUE(islands.crossing().empty());
  EXPECT_EQ(islands.num_nonempty_islands(), 1);
}

// Cliques of one supernode share an island without any engaged constraint.
TEST(EngagedIslands, CliquesOfOneSupernodeShareAnIsland) {
  const ContactProblem problem = WithTuples(4, {{1, 3}, {0, 2}});
  EngagedIslands islands;
  islands.Build(problem, {0, 0}, {0, 1, 2, 1});
  ASSERT_EQ(islands.num_islands(), 3);
  EXPECT_EQ(List(islands.cliques(1)), (std::vector<int>{1, 3}));
  EXPECT_EQ(List(islands.constraints(1)), (std::vector<int>{0}));
  EXPECT_EQ(islands.crossing(), (std::vector<int>{1}));
}

// A chain of cliques joined link by link, from both ends towards the middle
// so that the joined islands are not the newest ones: the appended lists
// outgrow their room several times and are moved, and each step's islands
// must equal the components of the links joined so far.
TEST(EngagedIslands, JoiningAChainLinkByLinkKeepsEveryIslandExact) {
  const int n = 40;
  std::vector<std::vector<int>> links;
  for (int c = 0; c + 1 < n; ++c) links.push_back({c, c + 1});
  const ContactProblem problem = WithTuples(n, links);
  EngagedIslands islands;
  islands.Build(problem, std::vector<char>(links.size(), 0), {});
  ASSERT_EQ(islands.num_islands(), n);
  std::vector<int> order;
  for (int k = 0; k < (n - 1) / 2; ++k) {
    order.push_back(k);
    order.push_back(n - 2 - k);
  }
  if ((n - 1) % 2 == 1) order.push_back((n - 1) / 2);
  std::set<int> joined_links;
  for (int link : order) {
    ASSERT_GE(islands.Join(problem, link), 0);
    joined_links.insert(link);
    // The reference: cliques c and c + 1 share a component iff link c is in.
    std::vector<int> component(n);
    std::iota(component.begin(), component.end(), 0);
    for (int c = 1; c < n; ++c)
      if (joined_links.count(c - 1)) component[c] = component[c - 1];
    for (int c = 0; c < n; ++c) {
      const std::vector<int> cliques = List(islands.cliques(islands.island_of_clique(c)));
      std::vector<int> expected;
      for (int d = 0; d < n; ++d)
        if (component[d] == component[c]) expected.push_back(d);
      ASSERT_EQ(cliques, expected) << "clique " << c << " after link " << link;
      std::vector<int> expected_links;
      for (int l = 0; l + 1 < n; ++l)
        if (component[l] == component[c] && component[l + 1] == component[c])
          expected_links.push_back(l);
      ASSERT_EQ(List(islands.constraints(islands.island_of_clique(c))), expected_links);
    }
    EXPECT_EQ(islands.crossing().size(), links.size() - joined_links.size());
  }
  EXPECT_EQ(islands.num_nonempty_islands(), 1);
}

// Every crossing constraint between the islands a Join takes in goes inside
// the new island with it, whichever island its cliques lie in (parallel
// constraints, a triangle closed by the second join, a constraint on three
// cliques), and the crossing lists, per constraint and per clique, say so
// after each join: checked against the cliques' islands.
TEST(EngagedIslands, JoinTakesInEveryConstraintBetweenTheIslandsItJoins) {
  const std::vector<std::vector<int>> tuples = {{0, 1}, {0, 1}, {1, 2},    {0, 2},
                                                {3, 4}, {2, 3}, {0, 1, 2}, {4, 5}};
  const ContactProblem problem = WithTuples(6, tuples);
  EngagedIslands islands;
  // Only {3, 4} engaged at the start: it alone is inside an island.
  std::vector<char> engaged(tuples.size(), 0);
  engaged[4] = 1;
  islands.Build(problem, engaged, {});
  std::vector<std::vector<int>> crossing_at_build(6);
  for (size_t index = 0; index < tuples.size(); ++index) {
    if (index == 4) continue;
    for (int clique : tuples[index]) crossing_at_build[clique].push_back(index);
  }
  for (int clique = 0; clique < 6; ++clique)
    EXPECT_EQ(List(islands.crossing_at_build(clique)), crossing_at_build[clique]);
  for (int joined : {0, 2, 5, 7}) {
    ASSERT_GE(islands.Join(problem, joined), 0) << "constraint " << joined;
    std::vector<int> expected;
    for (size_t index = 0; index < tuples.size(); ++index) {
      const int island = islands.island_of_clique(tuples[index][0]);
      const bool inside = std::all_of(
          tuples[index].begin(), tuples[index].end(),
          [&](int clique) { return islands.island_of_clique(clique) == island; });
      if (!inside) expected.push_back(index);
      EXPECT_EQ(islands.is_crossing(index), !inside) << "constraint " << index;
      const std::vector<int> members = List(islands.constraints(island));
      EXPECT_EQ(std::count(members.begin(), members.end(), index), inside ? 1 : 0)
          << "constraint " << index << " after joining " << joined;
    }
    EXPECT_EQ(islands.crossing(), expected) << "after joining " << joined;
  }
  EXPECT_EQ(islands.num_nonempty_islands(), 1);
}

}  // namespace
}  // namespace coulomb
