#include "coulomb/contact/clique_graph.h"

namespace coulomb {
namespace {

// Visits the pattern's identity: clique sizes, then each constraint's size
// and cliques, as a sequence of integers.
template <typename Visitor>
void VisitPatternSignature(const ContactProblem& problem, Visitor&& visit) {
  visit(problem.num_cliques());
  for (int clique = 0; clique < problem.num_cliques(); ++clique) {
    visit(problem.clique_size(clique));
  }
  visit(problem.num_constraints());
  for (int index = 0; index < problem.num_constraints(); ++index) {
    const ProblemConstraint& c = problem.constraint(index);
    visit(static_cast<int>(c.bias.size()));
    visit(static_cast<int>(c.jacobian.size()));
    for (const JacobianBlock& block : c.jacobian) visit(block.clique);
  }
}

std::vector<int> PatternSignature(const ContactProblem& problem) {
  std::vector<int> signature;
  VisitPatternSignature(problem, [&signature](int value) { signature.push_back(value); });
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
  // Compared in place: called before every solve, it must not allocate.
  size_t position = 0;
  bool matches = true;
  VisitPatternSignature(problem, [&](int value) {
    matches = matches && position < signature_.size() && signature_[position] == value;
    ++position;
  });
  return matches && position == signature_.size();
}

}  // namespace coulomb
