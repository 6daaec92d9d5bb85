#include "coulomb/solvers/supernode_partition.h"

#include <algorithm>
#include <map>

namespace coulomb {
namespace {

std::vector<std::vector<int>> ConstraintsOfClique(const ContactProblem& problem) {
  std::vector<std::vector<int>> constraints(problem.num_cliques());
  for (int index = 0; index < problem.num_constraints(); ++index) {
    for (const JacobianBlock& block : problem.constraint(index).jacobian) {
      constraints[block.clique].push_back(index);  // ascending by construction
    }
  }
  return constraints;
}

}  // namespace

SupernodePartition::SupernodePartition(const ContactProblem& problem) {
  const std::vector<std::vector<int>> constraints_of_clique =
      ConstraintsOfClique(problem);
  std::map<std::vector<int>, int> supernode_of_key;
  supernode_of_clique.resize(problem.num_cliques());
  offset_in_supernode.resize(problem.num_cliques());
  for (int clique = 0; clique < problem.num_cliques(); ++clique) {
    const std::vector<int>& key = constraints_of_clique[clique];
    int supernode = num_supernodes();
    if (!key.empty()) {
      const auto [entry, inserted] = supernode_of_key.try_emplace(key, supernode);
      supernode = entry->second;
    }
    if (supernode == num_supernodes()) {
      cliques_of_supernode.emplace_back();
      supernode_size.push_back(0);
    }
    cliques_of_supernode[supernode].push_back(clique);
    supernode_of_clique[clique] = supernode;
    offset_in_supernode[clique] = supernode_size[supernode];
    supernode_size[supernode] += problem.clique_size(clique);
  }
  for (int supernode = 0; supernode < num_supernodes(); ++supernode) {
    supernode_offset.push_back(static_cast<int>(original_dof.size()));
    for (int clique : cliques_of_supernode[supernode]) {
      for (int k = 0; k < problem.clique_size(clique); ++k) {
        original_dof.push_back(problem.clique_offset(clique) + k);
      }
    }
  }
  pattern.block_sizes = supernode_size;
  pattern.neighbors.resize(num_supernodes());
  AssignConstraints(problem);
  for (const std::vector<int>& touched : supernodes_of_constraint) {
    for (size_t a = 0; a < touched.size(); ++a) {
      for (size_t b = 0; b < a; ++b) pattern.AddCoupling(touched[a], touched[b]);
    }
  }
}

void SupernodePartition::AssignConstraints(const ContactProblem& problem) {
  supernodes_of_constraint.resize(problem.num_constraints());
  for (int index = 0; index < problem.num_constraints(); ++index) {
    std::vector<int>& touched = supernodes_of_constraint[index];
    touched.clear();
    for (const JacobianBlock& block : problem.constraint(index).jacobian) {
      const int supernode = supernode_of_clique[block.clique];
      if (std::find(touched.begin(), touched.end(), supernode) == touched.end()) {
        touched.push_back(supernode);
      }
    }
  }
}

}  // namespace coulomb
