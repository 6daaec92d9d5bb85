#pragma once

#include <cstdint>
#include <vector>

#include "coulomb/contact/contact_problem.h"
#include "coulomb/math/block_sparsity_pattern.h"
#include "coulomb/math/reusable_lists.h"

namespace coulomb {

// The graph of a contact problem (SAP §IV-D): nodes are cliques, and two
// cliques are coupled when a constraint touches both. Its block pattern is
// the pattern of H = A + JᵀGJ. Connected components ("islands") are
// independent sub-problems: no constraint couples two islands.
//
// What the symbolic work depends on (the pattern, the islands, which cliques
// are indistinguishable): the clique sizes and the SET of distinct clique
// tuples the constraints touch — not how many constraints share a tuple, nor
// their order. Two contact points between the same bodies couple exactly as
// one does: a problem whose contact points appear and disappear between
// bodies already in contact has the same coupling, and only the
// per-constraint lists need refreshing (Update).
class CliqueGraph {
 public:
  BlockSparsityPattern pattern;
  int num_islands = 0;
  std::vector<int> island_of_clique;
  ReusableLists<int> cliques_of_island;
  // Per constraint (refreshed by AssignConstraints).
  std::vector<int> island_of_constraint;
  ReusableLists<int> constraints_of_island;

  explicit CliqueGraph(const ContactProblem& problem);

  // True if `problem` has the same cliques and constraint–clique incidence,
  // constraint by constraint, as the problem last built or assigned.
  bool Matches(const ContactProblem& problem) const;
  // The graph of `problem`, in this graph's storage. If `problem` has the
  // clique sizes and the set of constraint clique tuples of the problem this
  // graph was built from, its symbolic work (pattern, islands, supernodes,
  // Cholesky analysis) stays valid: only the per-constraint lists are
  // refreshed, and Update returns false (allocating nothing once the
  // workspace has grown to the problem's size). Otherwise the graph is
  // rebuilt and Update returns true.
  bool Update(const ContactProblem& problem);

 private:
  // Writes the coupling signature of `problem` into *signature: clique count
  // and sizes, then the sorted, deduplicated tuples of one or two cliques
  // (their count, then each as two integers), then the longer ones (each its
  // length, then its sorted cliques).
  void CouplingSignature(const ContactProblem& problem, std::vector<int>* signature);
  // The sorted, deduplicated tuples of tuples_ (longer than two cliques).
  void AppendLongTuples(std::vector<int>* signature);
  // Everything from coupling_signature_ on: pattern, islands, lists.
  void Build(const ContactProblem& problem);
  // The per-constraint lists.
  void AssignConstraints(const ContactProblem& problem);

  std::vector<int> signature_;           // constraint by constraint
  std::vector<int> coupling_signature_;  // the set of tuples
  // Workspace of CouplingSignature.
  std::vector<uint64_t> pair_keys_;
  std::vector<int> tuples_, tuple_starts_, tuple_order_, candidate_;
  std::vector<int> component_stack_;  // Build's workspace
};

}  // namespace coulomb
