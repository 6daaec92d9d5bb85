#pragma once

#include <cstdint>
#include <vector>

#include "coulomb/contact/contact_problem.h"

namespace coulomb {

// Which cliques a contact problem's constraints couple (SAP §IV-D: two
// cliques are coupled when a constraint touches both), as far as a solver's
// symbolic work depends on it: the pattern of H = A + JᵀGJ and its
// factorization's analysis depend on the clique sizes and the SET of
// distinct clique tuples the constraints touch — not on how many
// constraints share a tuple, nor on their order. Two contact points between
// the same bodies couple exactly as one does: a problem whose contact points
// appear and disappear between bodies already in contact keeps its
// coupling, and only the per-constraint bookkeeping needs refreshing.
class CliqueCoupling {
 public:
  explicit CliqueCoupling(const ContactProblem& problem);

  // True if `problem` has the same cliques and constraint–clique incidence,
  // constraint by constraint, as the problem last seen.
  bool Matches(const ContactProblem& problem) const;
  // Takes in `problem`; true if its coupling differs from the last problem's
  // (the symbolic work must be redone), false if only its constraints do.
  // Allocates nothing once the workspace has grown to the problem's size.
  bool Update(const ContactProblem& problem);

 private:
  // Writes the coupling signature of `problem` into *signature: clique count
  // and sizes, then the sorted, deduplicated tuples of one or two cliques
  // (their count, then each as two integers), then the longer ones (each its
  // length, then its sorted cliques).
  void CouplingSignature(const ContactProblem& problem, std::vector<int>* signature);
  // The sorted, deduplicated tuples of tuples_ (longer than two cliques).
  void AppendLongTuples(std::vector<int>* signature);
  // signature_ of `problem`.
  void KeepSignature(const ContactProblem& problem);

  std::vector<int> signature_;           // constraint by constraint
  std::vector<int> coupling_signature_;  // the set of tuples
  // Workspace of CouplingSignature.
  std::vector<uint64_t> pair_keys_;
  std::vector<int> tuples_, tuple_starts_, tuple_order_, candidate_;
};

}  // namespace coulomb
