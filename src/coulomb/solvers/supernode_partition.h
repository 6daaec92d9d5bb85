#pragma once

#include <vector>

#include "coulomb/contact/contact_problem.h"
#include "coulomb/math/block_sparsity_pattern.h"
#include "coulomb/math/reusable_lists.h"

namespace coulomb {

// Groups the cliques of a contact problem into supernodes for the Hessian
// factorization. Cliques touched by exactly the same (non-empty) set of
// constraints are indistinguishable in H = A + JᵀGJ: they have the same
// coupling, so merging them into one dense block adds no fill and replaces
// many small block operations by a few larger ones. This matters for FCLIB
// problems with a diagonal M (one-dof cliques, a contact touching twelve).
// Cliques touched by no constraint stay alone (they are independent), and so
// do cliques of kBodyDofs or more: two rigid bodies touched only by the
// contacts between them would make one supernode of 12 dofs, which stores
// what their two 6 × 6 blocks and their coupling do, but takes the Hessian
// assembly and factorization off their fixed-size body paths.
//
// Supernode s holds cliques_of_supernode[s] in that order; the Hessian is
// factored in the permuted dof order that lists supernodes one after another.
struct SupernodePartition {
  static constexpr int kBodyDofs = 6;  // cliques this large are never merged
  ReusableLists<int> cliques_of_supernode;
  std::vector<int> supernode_of_clique;
  std::vector<int> offset_in_supernode;  // per clique, dofs before it in its supernode
  std::vector<int> supernode_offset;     // per supernode, in the permuted order
  std::vector<int> supernode_size;
  // Whether the permuted order is the original one (every clique listed
  // where it starts, as free bodies are): a vector needs no permuting, and
  // original_dof is left empty.
  bool identity_order = false;
  std::vector<int> original_dof;  // original_dof[permuted position]
  // Per constraint: the supernodes it touches (each with all its cliques).
  ReusableLists<int> supernodes_of_constraint;
  BlockSparsityPattern pattern;  // over supernodes

  explicit SupernodePartition(const ContactProblem& problem);
  // The partition of another problem, reusing this one's storage.
  void Rebuild(const ContactProblem& problem);
  // supernodes_of_constraint for a problem with the coupling of the one the
  // partition was built from (CliqueCoupling::Update): the supernodes,
  // which depend only on the set of clique tuples, stay.
  void AssignConstraints(const ContactProblem& problem);

  int num_supernodes() const { return static_cast<int>(supernode_size.size()); }

 private:
  // Rebuild's workspace: the constraints touching each clique (ascending),
  // those of clique c at constraint_entries_[constraint_starts_[c], …[c + 1]).
  std::vector<int> constraint_starts_, constraint_entries_, next_constraint_entry_;
  // original_dof, unless the order is the identity.
  void ListOriginalDofs(const ContactProblem& problem);
};

}  // namespace coulomb
