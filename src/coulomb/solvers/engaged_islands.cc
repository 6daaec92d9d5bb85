#include "coulomb/solvers/engaged_islands.h"

#include <algorithm>
#include <utility>

namespace coulomb {

int EngagedIslands::Find(int clique) {
  while (parent_[clique] != clique) {
    parent_[clique] = parent_[parent_[clique]];
    clique = parent_[clique];
  }
  return clique;
}

void EngagedIslands::Unite(int a, int b) {
  a = Find(a);
  b = Find(b);
  if (a == b) return;
  if (b < a) std::swap(a, b);
  parent_[b] = a;
}

void EngagedIslands::Build(const ContactProblem& problem,
                           const std::vector<char>& engaged,
                           const std::vector<int>& supernode_of_clique) {
  const int num_cliques = problem.num_cliques();
  const int num_constraints = problem.num_constraints();
  // Room for every Join until the cliques form one island: each new island
  // appends its lists after the live ones (at most all cliques and
  // constraints), which AppendUnion moves to the front when the room is short.
  clique_ranges_.reserve(2 * num_cliques + 1);
  constraint_ranges_.reserve(2 * num_cliques + 1);
  clique_entries_.reserve(2 * num_cliques);
  constraint_entries_.reserve(2 * num_constraints);
  fill_.reserve(num_cliques);
  joined_.reserve(num_cliques);
  crossing_.reserve(num_constraints);
  island_of_constraint_.reserve(num_constraints);
  moved_.reserve(num_constraints);
  crossing_of_clique_.reserve(2 * num_constraints);
  parent_.resize(num_cliques);
  for (int clique = 0; clique < num_cliques; ++clique) parent_[clique] = clique;
  if (!supernode_of_clique.empty()) {
    first_of_supernode_.assign(num_cliques, -1);
    for (int clique = 0; clique < num_cliques; ++clique) {
      int& first = first_of_supernode_[supernode_of_clique[clique]];
      if (first < 0) {
        first = clique;
      } else {
        Unite(first, clique);
      }
    }
  }
  for (int index = 0; index < num_constraints; ++index) {
    if (!engaged[index]) continue;
    const std::vector<JacobianBlock>& blocks = problem.constraint(index).jacobian;
    for (size_t b = 1; b < blocks.size(); ++b) Unite(blocks[0].clique, blocks[b].clique);
  }
  NumberIslands(num_cliques);
  AssignConstraints(problem);
  ListCrossingByClique(problem);
}

void EngagedIslands::NumberIslands(int num_cliques) {
  // A root is its island's smallest clique: islands numbered in that order.
  island_of_clique_.resize(num_cliques);
  int num_islands = 0;
  for (int clique = 0; clique < num_cliques; ++clique) {
    const int root = Find(clique);
    island_of_clique_[clique] = root == clique ? num_islands++ : island_of_clique_[root];
  }
  num_nonempty_ = num_islands;
  clique_ranges_.assign(num_islands, Range{});
  for (int clique = 0; clique < num_cliques; ++clique)
    ++clique_ranges_[island_of_clique_[clique]].end;
  fill_.resize(num_islands);
  for (int island = 0, begin = 0; island < num_islands; ++island) {
    Range& range = clique_ranges_[island];
    range = {begin, begin + range.end};
    fill_[island] = begin;
    begin = range.end;
  }
  clique_entries_.resize(num_cliques);
  for (int clique = 0; clique < num_cliques; ++clique)
    clique_entries_[fill_[island_of_clique_[clique]]++] = clique;
}

void EngagedIslands::AssignConstraints(const ContactProblem& problem) {
  const int num_constraints = problem.num_constraints();
  constraint_ranges_.assign(num_islands(), Range{});
  crossing_.clear();
  island_of_constraint_.resize(num_constraints);
  for (int index = 0; index < num_constraints; ++index) {
    const std::vector<JacobianBlock>& blocks = problem.constraint(index).jacobian;
    int island = island_of_clique_[blocks[0].clique];
    for (size_t b = 1; b < blocks.size(); ++b) {
      if (island_of_clique_[blocks[b].clique] != island) island = -1;
    }
    island_of_constraint_[index] = island;
    if (island < 0) {
      crossing_.push_back(index);
    } else {
      ++constraint_ranges_[island].end;
    }
  }
  for (int island = 0, begin = 0; island < num_islands(); ++island) {
    Range& range = constraint_ranges_[island];
    range = {begin, begin + range.end};
    fill_[island] = begin;
    begin = range.end;
  }
  constraint_entries_.resize(num_constraints - crossing_.size());
  for (int index = 0; index < num_constraints; ++index) {
    const int island = island_of_constraint_[index];
    if (island >= 0) constraint_entries_[fill_[island]++] = index;
  }
}

void EngagedIslands::ListCrossingByClique(const ContactProblem& problem) {
  crossing_stale_ = false;
  is_crossing_.assign(problem.num_constraints(), 0);
  crossing_of_clique_start_.assign(problem.num_cliques() + 1, 0);
  for (int index : crossing_) {
    is_crossing_[index] = 1;
    for (const JacobianBlock& block : problem.constraint(index).jacobian)
      ++crossing_of_clique_start_[block.clique + 1];
  }
  for (int clique = 0; clique < problem.num_cliques(); ++clique)
    crossing_of_clique_start_[clique + 1] += crossing_of_clique_start_[clique];
  crossing_of_clique_.resize(crossing_of_clique_start_.back());
  fill_.assign(crossing_of_clique_start_.begin(), crossing_of_clique_start_.end() - 1);
  for (int index : crossing_) {
    for (const JacobianBlock& block : problem.constraint(index).jacobian)
      crossing_of_clique_[fill_[block.clique]++] = index;
  }
}

const std::vector<int>& EngagedIslands::crossing() const {
  if (crossing_stale_) {
    std::erase_if(crossing_, [this](int index) { return !is_crossing_[index]; });
    crossing_stale_ = false;
  }
  return crossing_;
}

bool EngagedIslands::Inside(const ContactProblem& problem, int constraint,
                            int island) const {
  const std::vector<JacobianBlock>& blocks = problem.constraint(constraint).jacobian;
  return std::all_of(blocks.begin(), blocks.end(), [&](const JacobianBlock& block) {
    return island_of_clique_[block.clique] == island;
  });
}

EngagedIslands::Range EngagedIslands::AppendUnion(std::vector<int>* entries,
                                                  std::vector<Range>* ranges,
                                                  const std::vector<int>& islands,
                                                  int extra) {
  int size = extra;
  for (int island : islands) size += (*ranges)[island].end - (*ranges)[island].begin;
  if (entries->size() + size > entries->capacity()) {
    // The live ranges lie in increasing island order: moved forward in place.
    int write = 0;
    for (Range& range : *ranges) {
      const int length = range.end - range.begin;
      std::copy(entries->begin() + range.begin, entries->begin() + range.end,
                entries->begin() + write);
      range = {write, write + length};
      write += length;
    }
    entries->resize(write);
  }
  const int begin = static_cast<int>(entries->size());
  for (int island : islands) {
    const Range range = (*ranges)[island];
    for (int k = range.begin; k < range.end; ++k) entries->push_back((*entries)[k]);
  }
  return {begin, static_cast<int>(entries->size())};
}

int EngagedIslands::Join(const ContactProblem& problem, int constraint) {
  joined_.clear();
  for (const JacobianBlock& block : problem.constraint(constraint).jacobian) {
    const int island = island_of_clique_[block.clique];
    if (std::find(joined_.begin(), joined_.end(), island) == joined_.end())
      joined_.push_back(island);
  }
  if (joined_.size() < 2) return -1;
  const int joint = num_islands();
  Range cliques = AppendUnion(&clique_entries_, &clique_ranges_, joined_, 0);
  std::sort(clique_entries_.begin() + cliques.begin,
            clique_entries_.begin() + cliques.end);
  for (int k = cliques.begin; k < cliques.end; ++k)
    island_of_clique_[clique_entries_[k]] = joint;
  // The crossing constraints now inside the new island leave crossing_.
  // Each spans two of the islands taken in at least, so acts on a clique of
  // one that is not the largest: only those cliques' lists are read.
  const int largest =
      *std::max_element(joined_.begin(), joined_.end(), [&](int a, int b) {
        return clique_ranges_[a].end - clique_ranges_[a].begin <
               clique_ranges_[b].end - clique_ranges_[b].begin;
      });
  moved_.clear();
  for (int island : joined_) {
    if (island == largest) continue;
    for (int clique : Entries(clique_entries_, clique_ranges_[island])) {
      for (int index : crossing_at_build(clique)) {
        if (!is_crossing_[index] || !Inside(problem, index, joint)) continue;
        is_crossing_[index] = 0;
        moved_.push_back(index);
      }
    }
  }
  crossing_stale_ = crossing_stale_ || !moved_.empty();
  Range constraints = AppendUnion(&constraint_entries_, &constraint_ranges_, joined_,
                                  static_cast<int>(moved_.size()));
  constraint_entries_.insert(constraint_entries_.end(), moved_.begin(), moved_.end());
  constraints.end = static_cast<int>(constraint_entries_.size());
  std::sort(constraint_entries_.begin() + constraints.begin,
            constraint_entries_.begin() + constraints.end);
  for (int island : joined_) {
    clique_ranges_[island] = Range{};
    constraint_ranges_[island] = Range{};
  }
  clique_ranges_.push_back(cliques);
  constraint_ranges_.push_back(constraints);
  num_nonempty_ -= static_cast<int>(joined_.size()) - 1;
  return joint;
}

}  // namespace coulomb
