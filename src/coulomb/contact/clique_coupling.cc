#include "coulomb/contact/clique_coupling.h"

#include <algorithm>
#include <cstdint>

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

}  // namespace

CliqueCoupling::CliqueCoupling(const ContactProblem& problem) {
  CouplingSignature(problem, &coupling_signature_);
  KeepSignature(problem);
}

bool CliqueCoupling::Update(const ContactProblem& problem) {
  CouplingSignature(problem, &candidate_);
  KeepSignature(problem);
  if (candidate_ == coupling_signature_) return false;
  coupling_signature_ = candidate_;  // a copy keeps both buffers' storage
  return true;
}

void CliqueCoupling::KeepSignature(const ContactProblem& problem) {
  signature_.clear();
  VisitPatternSignature(problem, [this](int value) { signature_.push_back(value); });
}

bool CliqueCoupling::Matches(const ContactProblem& problem) const {
  // Compared in place: called before every solve, it must not allocate.
  size_t position = 0;
  bool matches = true;
  VisitPatternSignature(problem, [&](int value) {
    matches = matches && position < signature_.size() && signature_[position] == value;
    ++position;
  });
  return matches && position == signature_.size();
}

void CliqueCoupling::CouplingSignature(const ContactProblem& problem,
                                       std::vector<int>* signature) {
  // Tuples of one or two cliques (contacts: a body and the world, or two
  // bodies) as one sortable key each, (low + 1, high) with low = −1 for one
  // clique; longer tuples as (length, sorted cliques…) in tuples_.
  pair_keys_.clear();
  tuples_.clear();
  tuple_starts_.clear();
  for (int index = 0; index < problem.num_constraints(); ++index) {
    const auto& jacobian = problem.constraint(index).jacobian;
    if (jacobian.size() <= 2) {
      const int second = jacobian.size() == 2 ? jacobian[1].clique : -1;
      const auto [low, high] = std::minmax(jacobian[0].clique, second);
      pair_keys_.push_back(static_cast<uint64_t>(low + 1) << 32 |
                           static_cast<uint32_t>(high));
      continue;
    }
    tuple_starts_.push_back(static_cast<int>(tuples_.size()));
    tuples_.push_back(static_cast<int>(jacobian.size()));
    for (const JacobianBlock& block : jacobian) tuples_.push_back(block.clique);
    std::sort(tuples_.end() - jacobian.size(), tuples_.end());
  }
  std::sort(pair_keys_.begin(), pair_keys_.end());
  pair_keys_.erase(std::unique(pair_keys_.begin(), pair_keys_.end()), pair_keys_.end());
  signature->clear();
  signature->push_back(problem.num_cliques());
  for (int clique = 0; clique < problem.num_cliques(); ++clique)
    signature->push_back(problem.clique_size(clique));
  signature->push_back(static_cast<int>(pair_keys_.size()));
  for (const uint64_t key : pair_keys_) {
    signature->push_back(static_cast<int>(key >> 32));
    signature->push_back(static_cast<int>(key & 0xffffffffu));
  }
  AppendLongTuples(signature);
}

void CliqueCoupling::AppendLongTuples(std::vector<int>* signature) {
  // A tuple as (length, cliques…): lexicographic order on that sequence.
  const auto tuple = [this](int t) {
    const int* start = tuples_.data() + tuple_starts_[t];
    return std::pair{start, start + 1 + *start};
  };
  tuple_order_.resize(tuple_starts_.size());
  for (size_t t = 0; t < tuple_order_.size(); ++t) tuple_order_[t] = static_cast<int>(t);
  std::sort(tuple_order_.begin(), tuple_order_.end(), [&](int a, int b) {
    const auto [a_begin, a_end] = tuple(a);
    const auto [b_begin, b_end] = tuple(b);
    return std::lexicographical_compare(a_begin, a_end, b_begin, b_end);
  });
  for (size_t k = 0; k < tuple_order_.size(); ++k) {
    const auto [begin, end] = tuple(tuple_order_[k]);
    if (k > 0) {
      const auto [previous_begin, previous_end] = tuple(tuple_order_[k - 1]);
      if (std::equal(begin, end, previous_begin, previous_end)) continue;  // duplicate
    }
    signature->insert(signature->end(), begin, end);
  }
}

}  // namespace coulomb
