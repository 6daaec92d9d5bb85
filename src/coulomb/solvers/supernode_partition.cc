#include "coulomb/solvers/supernode_partition.h"

#include <algorithm>

namespace coulomb {
namespace {

// Fills the lists of the constraints touching each clique, ascending: those
// of clique c are entries[starts[c], starts[c + 1]) (a counting sort; next is
// workspace).
void ListConstraintsOfCliques(const ContactProblem& problem, std::vector<int>* starts,
                              std::vector<int>* entries, std::vector<int>* next) {
  starts->assign(problem.num_cliques() + 1, 0);
  for (int index = 0; index < problem.num_constraints(); ++index) {
    for (const JacobianBlock& block : problem.constraint(index).jacobian) {
      ++(*starts)[block.clique + 1];
    }
  }
  for (int clique = 0; clique < problem.num_cliques(); ++clique) {
    (*starts)[clique + 1] += (*starts)[clique];
  }
  entries->resize(starts->back());
  next->assign(starts->begin(), starts->end() - 1);
  for (int index = 0; index < problem.num_constraints(); ++index) {
    for (const JacobianBlock& block : problem.constraint(index).jacobian) {
      (*entries)[(*next)[block.clique]++] = index;
    }
  }
}

}  // namespace

SupernodePartition::SupernodePartition(const ContactProblem& problem) {
  Rebuild(problem);
}

void SupernodePartition::Rebuild(const ContactProblem& problem) {
  // Only cliques smaller than a body may merge: the lists that tell which
  // are touched alike are needed only if there are any.
  bool any_small_clique = false;
  for (int clique = 0; clique < problem.num_cliques(); ++clique)
    any_small_clique = any_small_clique || problem.clique_size(clique) < kBodyDofs;
  if (any_small_clique) {
    ListConstraintsOfCliques(problem, &constraint_starts_, &constraint_entries_,
                             &next_constraint_entry_);
  }
  const auto touched_by_none = [&](int clique) {
    return constraint_starts_[clique] == constraint_starts_[clique + 1];
  };
  const auto touched_alike = [&](int a, int b) {
    const auto entries = constraint_entries_.begin();
    return std::equal(
        entries + constraint_starts_[a], entries + constraint_starts_[a + 1],
        entries + constraint_starts_[b], entries + constraint_starts_[b + 1]);
  };
  supernode_of_clique.resize(problem.num_cliques());
  offset_in_supernode.resize(problem.num_cliques());
  supernode_size.clear();
  cliques_of_supernode.Reset(0);
  const auto mergeable = [&](int clique) {  // the size first: see above
    return problem.clique_size(clique) < kBodyDofs && !touched_by_none(clique);
  };
  for (int clique = 0; clique < problem.num_cliques(); ++clique) {
    // An earlier clique touched by the same constraints is touched by the
    // first of them: only that constraint's cliques are candidates.
    int supernode = num_supernodes();
    if (mergeable(clique)) {
      const int first = constraint_entries_[constraint_starts_[clique]];
      for (const JacobianBlock& block : problem.constraint(first).jacobian) {
        if (block.clique < clique && mergeable(block.clique) &&
            touched_alike(block.clique, clique)) {
          supernode = supernode_of_clique[block.clique];
          break;
        }
      }
    }
    if (supernode == num_supernodes()) {
      cliques_of_supernode.resize(supernode + 1);
      supernode_size.push_back(0);
    }
    cliques_of_supernode[supernode].push_back(clique);
    supernode_of_clique[clique] = supernode;
    offset_in_supernode[clique] = supernode_size[supernode];
    supernode_size[supernode] += problem.clique_size(clique);
  }
  // The permuted order lists supernodes, each clique's dofs together: it is
  // the identity when every clique starts where it is listed.
  supernode_offset.clear();
  identity_order = true;
  int offset = 0;
  for (int supernode = 0; supernode < num_supernodes(); ++supernode) {
    supernode_offset.push_back(offset);
    for (int clique : cliques_of_supernode[supernode]) {
      identity_order = identity_order && problem.clique_offset(clique) == offset;
      offset += problem.clique_size(clique);
    }
  }
  ListOriginalDofs(problem);
  pattern.block_sizes = supernode_size;
  pattern.neighbors.Reset(num_supernodes());
  AssignConstraints(problem);
  for (int index = 0; index < problem.num_constraints(); ++index) {
    const std::vector<int>& touched = supernodes_of_constraint[index];
    for (size_t a = 0; a < touched.size(); ++a) {
      for (size_t b = 0; b < a; ++b) pattern.AddCoupling(touched[a], touched[b]);
    }
  }
}

void SupernodePartition::ListOriginalDofs(const ContactProblem& problem) {
  original_dof.clear();
  if (identity_order) return;
  for (int supernode = 0; supernode < num_supernodes(); ++supernode) {
    for (int clique : cliques_of_supernode[supernode]) {
      for (int k = 0; k < problem.clique_size(clique); ++k) {
        original_dof.push_back(problem.clique_offset(clique) + k);
      }
    }
  }
}

void SupernodePartition::AssignConstraints(const ContactProblem& problem) {
  supernodes_of_constraint.Reset(problem.num_constraints());
  for (int index = 0; index < problem.num_constraints(); ++index) {
    std::vector<int>& touched = supernodes_of_constraint[index];
    for (const JacobianBlock& block : problem.constraint(index).jacobian) {
      const int supernode = supernode_of_clique[block.clique];
      if (std::find(touched.begin(), touched.end(), supernode) == touched.end()) {
        touched.push_back(supernode);
      }
    }
  }
}

}  // namespace coulomb
