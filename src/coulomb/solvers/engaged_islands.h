#pragma once

#include <span>
#include <vector>

#include "coulomb/contact/contact_problem.h"

namespace coulomb {

// The islands of a SAP solve: cliques joined by the constraints that carry
// an impulse, not by every constraint (SAP §IV-D's islands are the connected
// components of the clique graph of all constraints).
//
// A constraint that vanishes without impulse (ConvexConstraint::
// VanishesWithoutImpulse: γ = 0, ℓ_i = 0 and G_i = 0 wherever HasImpulse is
// false) adds nothing to ℓ_p, ∇ℓ_p or H = A + JᵀGJ while it has no impulse.
// The cliques it alone couples are then independent sub-problems: each can
// take its own Newton step length and meet its own share of the stopping
// test, for as long as that constraint stays disengaged. A speculative
// contact between two bodies that never touch thus no longer ties them into
// one island.
//
// Build makes the connected components of the graph whose edges are the
// constraints marked engaged, and the cliques of each supernode of the
// factorization (factored as one pivot, they are iterated together). A
// constraint whose cliques all lie in one island belongs to it; one that
// spans several is crossing. When a crossing constraint engages, Join makes
// one new island of the islands it spans and leaves those empty: the other
// islands keep their numbers, and so whatever a solver keeps per island.
//
// Storage is sized once per problem size: neither Build nor Join allocates
// for a problem no larger than one seen before.
class EngagedIslands {
 public:
  // The islands of `problem` for the constraints with engaged[index] != 0;
  // supernode_of_clique (empty: every clique its own) groups cliques that
  // must share an island.
  void Build(const ContactProblem& problem, const std::vector<char>& engaged,
             const std::vector<int>& supernode_of_clique);
  // One new island of the islands that crossing constraint `constraint`
  // spans, with every crossing constraint now inside it; returns its number,
  // or −1 if an earlier Join already put those cliques together.
  int Join(const ContactProblem& problem, int constraint);

  // Islands ever numbered, the ones emptied by Join included (no cliques).
  int num_islands() const { return static_cast<int>(clique_ranges_.size()); }
  int num_nonempty_islands() const { return num_nonempty_; }
  int island_of_clique(int clique) const { return island_of_clique_[clique]; }
  // Each island's cliques and constraints, in increasing order.
  std::span<const int> cliques(int island) const {
    return Entries(clique_entries_, clique_ranges_[island]);
  }
  std::span<const int> constraints(int island) const {
    return Entries(constraint_entries_, constraint_ranges_[island]);
  }
  // The constraints spanning several islands, in increasing order.
  const std::vector<int>& crossing() const;
  bool is_crossing(int constraint) const { return is_crossing_[constraint] != 0; }
  // Whether any constraint was crossing at Build.
  bool any_crossing_at_build() const { return !crossing_of_clique_.empty(); }
  // The constraints crossing at Build that act on `clique` (in increasing
  // order; one that Join has taken inside an island since is listed still:
  // is_crossing tells).
  std::span<const int> crossing_at_build(int clique) const {
    return {crossing_of_clique_.data() + crossing_of_clique_start_[clique],
            static_cast<size_t>(crossing_of_clique_start_[clique + 1] -
                                crossing_of_clique_start_[clique])};
  }

 private:
  struct Range {
    int begin = 0, end = 0;
  };
  static std::span<const int> Entries(const std::vector<int>& entries, Range range) {
    return {entries.data() + range.begin, static_cast<size_t>(range.end - range.begin)};
  }
  // Union–find over cliques (path halving; the smaller index as the root).
  int Find(int clique);
  void Unite(int a, int b);
  // island_of_clique_ and the cliques' lists from the roots.
  void NumberIslands(int num_cliques);
  // The constraints' lists and crossing_ from island_of_clique_.
  void AssignConstraints(const ContactProblem& problem);
  // is_crossing_ and the crossing constraints of each clique from crossing_.
  void ListCrossingByClique(const ContactProblem& problem);
  // Appends the union of the listed islands' entries (sorted) to `entries`
  // as a new range, after moving the ranges in use to the front if the
  // spare room is short; `extra` more entries are appended by the caller.
  Range AppendUnion(std::vector<int>* entries, std::vector<Range>* ranges,
                    const std::vector<int>& islands, int extra);
  // Whether every clique of `constraint` lies in `island`.
  bool Inside(const ContactProblem& problem, int constraint, int island) const;

  int num_nonempty_ = 0;
  std::vector<int> parent_;
  std::vector<int> first_of_supernode_;
  std::vector<int> island_of_clique_;
  std::vector<Range> clique_ranges_, constraint_ranges_;
  std::vector<int> clique_entries_, constraint_entries_;
  // crossing_ drops the constraints Join takes inside an island only when
  // asked for (crossing()): a Join costs what the islands it takes in hold,
  // not a pass over every crossing constraint.
  mutable std::vector<int> crossing_;
  mutable bool crossing_stale_ = false;
  std::vector<char> is_crossing_;  // per constraint
  std::vector<int> crossing_of_clique_start_, crossing_of_clique_;
  // Workspace: per island its next free entry and per constraint its island
  // (−1: crossing) while Build lists them; the islands a Join takes in, and
  // the crossing constraints it moves inside the new island.
  std::vector<int> fill_;
  std::vector<int> island_of_constraint_;
  std::vector<int> joined_;
  std::vector<int> moved_;
};

}  // namespace coulomb
