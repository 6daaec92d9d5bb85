#include "coulomb/contact/clique_graph.h"

namespace coulomb {
namespace {

// Clique sizes, then each constraint's size and cliques: the pattern's identity.
std::vector<int> PatternSignature(const ContactProblem& problem) {
  std::vector<int> signature;
  signature.push_back(problem.num_cliques());
  for (int clique = 0; clique < problem.num_cliques(); ++clique) {
    signature.push_back(problem.clique_size(clique));
  }
  for (int index = 0; index < problem.num_constraints(); ++index) {
    const ProblemConstraint& c = problem.constraint(index);
    signature.push_back(static_cast<int>(c.bias.size()));
    signature.push_back(static_cast<int>(c.jacobian.size()));
    for (const JacobianBlock& block : c.jacobian) signature.push_back(block.clique);
  }
  return signature;
}

}  // namespace

CliqueGraph::CliqueGraph(const ContactProblem& problem)
    : signature_(PatternSignature(problem)) {
  const int num_cliques = problem.num_cliques();
  pattern.block_sizes.resize(num_cliques);
  pattern.neighbors.resize(num_cliques);
  for (int clique = 0; clique < num_cliques; ++clique) {
    pattern.block_sizes[clique] = problem.clique_size(clique);
  }
  for (int index = 0; index < problem.num_constraints(); ++index) {
    const auto& jacobian = problem.constraint(index).jacobian;
    for (size_t a = 0; a < jacobian.size(); ++a) {
      for (size_t b = 0; b < a; ++b)
        pattern.AddCoupling(jacobian[a].clique, jacobian[b].clique);
    }
  }
  num_islands = pattern.ConnectedComponents(&island_of_clique);
  cliques_of_island.resize(num_islands);
  constraints_of_island.resize(num_islands);
  for (int clique = 0; clique < num_cliques; ++clique) {
    cliques_of_island[island_of_clique[clique]].push_back(clique);
  }
  island_of_constraint.resize(problem.num_constraints());
  for (int index = 0; index < problem.num_constraints(); ++index) {
    const int island =
        island_of_clique[problem.constraint(index).jacobian.front().clique];
    island_of_constraint[index] = island;
    constraints_of_island[island].push_back(index);
  }
}

bool CliqueGraph::Matches(const ContactProblem& problem) const {
  return PatternSignature(problem) == signature_;
}

}  // namespace coulomb
