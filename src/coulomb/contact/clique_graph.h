#pragma once

#include <vector>

#include "coulomb/contact/contact_problem.h"
#include "coulomb/math/block_sparsity_pattern.h"

namespace coulomb {

// The graph of a contact problem (SAP §IV-D): nodes are cliques, and two
// cliques are coupled when a constraint touches both. Its block pattern is
// the pattern of H = A + JᵀGJ. Connected components ("islands") are
// independent sub-problems: no constraint couples two islands.
struct CliqueGraph {
  BlockSparsityPattern pattern;
  int num_islands = 0;
  std::vector<int> island_of_clique;
  std::vector<int> island_of_constraint;
  std::vector<std::vector<int>> cliques_of_island;
  std::vector<std::vector<int>> constraints_of_island;

  explicit CliqueGraph(const ContactProblem& problem);

  // True if `problem` has the same cliques and constraint–clique incidence
  // as the problem this graph was built from (so symbolic work can be reused).
  bool Matches(const ContactProblem& problem) const;

 private:
  std::vector<int> signature_;
};

}  // namespace coulomb
