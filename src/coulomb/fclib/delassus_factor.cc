#include "coulomb/fclib/delassus_factor.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "coulomb/math/block_sparsity_pattern.h"
#include "coulomb/math/minimum_degree_elimination.h"

namespace coulomb {
namespace {

// An eigenvalue below −kNotSemidefinite max |W| is not round-off.
constexpr double kNotSemidefinite = 1e-9;

double Scale(const Eigen::MatrixXd& w) {
  return std::max(w.cwiseAbs().maxCoeff(), 1e-300);
}

int NumContacts(const Eigen::MatrixXd& w) { return static_cast<int>(w.rows() / 3); }

// Contacts a and b are coupled when W_ab ≠ 0.
BlockSparsityPattern ContactCoupling(const Eigen::MatrixXd& w) {
  const int num_contacts = NumContacts(w);
  BlockSparsityPattern pattern;
  pattern.block_sizes.assign(num_contacts, 3);
  pattern.neighbors.Reset(num_contacts);
  for (int b = 0; b < num_contacts; ++b) {
    for (int a = b + 1; a < num_contacts; ++a) {
      if (w.block<3, 3>(3 * a, 3 * b).cwiseAbs().maxCoeff() > 0.0)
        pattern.AddCoupling(a, b);
    }
  }
  return pattern;
}

// The scalar rows contact c's factor columns reach: its own, then those of
// the contacts below it in the elimination.
void ReachedRows(const BlockElimination& elimination, int contact,
                 std::vector<int>* rows) {
  rows->clear();
  for (int k = 0; k < 3; ++k) rows->push_back(3 * contact + k);
  for (int below : elimination.below_diagonal[contact]) {
    for (int k = 0; k < 3; ++k) rows->push_back(3 * below + k);
  }
}

// Eliminates contact c's three columns of the Schur complement S (over
// `rows`, its own first): their factor columns into `columns`, and
// S −= l lᵀ below each. Throws when a pivot is not positive.
void EliminateContact(const std::vector<int>& rows, const std::string& where,
                      Eigen::MatrixXd* schur, Eigen::MatrixXd* columns) {
  const int size = static_cast<int>(rows.size());
  columns->setZero(size, 3);
  for (int t = 0; t < 3; ++t) {
    const int j = rows[t];
    const double pivot = (*schur)(j, j);
    if (!(pivot > 0.0))
      throw std::runtime_error(where + ": /fclib_local/W is not positive semidefinite");
    const double root = std::sqrt(pivot);
    auto column = columns->col(t);
    for (int r = t; r < size; ++r) column[r] = (*schur)(rows[r], j) / root;
    for (int s = t + 1; s < size; ++s) {
      for (int r = t + 1; r < size; ++r)
        (*schur)(rows[r], rows[s]) -= column[r] * column[s];
    }
  }
}

DelassusFactor FactorInOrder(const Eigen::MatrixXd& w,
                             const BlockElimination& elimination,
                             const std::string& where) {
  const double max_entry = w.cwiseAbs().maxCoeff();
  if (!(max_entry > 0.0)) throw std::runtime_error(where + ": /fclib_local/W is zero");
  DelassusFactor factor;
  factor.sparse = true;
  factor.contact_jacobians.resize(NumContacts(w));
  Eigen::MatrixXd schur = w;
  schur.diagonal().array() += kDiagonalShift * max_entry;
  std::vector<int> rows;
  Eigen::MatrixXd columns;
  for (int contact : elimination.order) {
    ReachedRows(elimination, contact, &rows);
    EliminateContact(rows, where, &schur, &columns);
    const int clique = static_cast<int>(factor.clique_sizes.size());
    factor.clique_sizes.push_back(3);
    for (size_t first = 0; first < rows.size(); first += 3) {
      factor.contact_jacobians[rows[first] / 3].push_back(
          {clique, columns.middleRows<3>(static_cast<Eigen::Index>(first))});
    }
  }
  return factor;
}

}  // namespace

DelassusFactor DenseDelassusFactor(const Eigen::MatrixXd& w, const std::string& where) {
  const double scale = Scale(w);
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eigen(w);
  const Eigen::VectorXd& eigenvalues = eigen.eigenvalues();  // ascending
  if (eigenvalues.minCoeff() < -kNotSemidefinite * scale)
    throw std::runtime_error(where + ": /fclib_local/W is not positive semidefinite");
  const double cutoff = static_cast<double>(w.rows()) *
                        std::numeric_limits<double>::epsilon() * eigenvalues.maxCoeff();
  const int rank = static_cast<int>((eigenvalues.array() > cutoff).count());
  if (rank == 0) throw std::runtime_error(where + ": /fclib_local/W is zero");
  const Eigen::MatrixXd j = eigen.eigenvectors().rightCols(rank) *
                            eigenvalues.tail(rank).cwiseSqrt().asDiagonal();
  DelassusFactor factor;
  factor.clique_sizes = {rank};
  factor.contact_jacobians.resize(NumContacts(w));
  for (int contact = 0; contact < NumContacts(w); ++contact)
    factor.contact_jacobians[contact].push_back({0, j.middleRows<3>(3 * contact)});
  return factor;
}

DelassusFactor SparseDelassusFactor(const Eigen::MatrixXd& w, const std::string& where) {
  return FactorInOrder(w, MinimumDegreeElimination(ContactCoupling(w)), where);
}

DelassusFactor ChooseDelassusFactor(const Eigen::MatrixXd& w, const std::string& where) {
  const BlockElimination elimination = MinimumDegreeElimination(ContactCoupling(w));
  const double num_contacts = NumContacts(w);
  double blocks = num_contacts;
  for (const std::vector<int>& below : elimination.below_diagonal)
    blocks += static_cast<double>(below.size());
  if (blocks <= kSparseShare * num_contacts * (num_contacts + 1.0) / 2.0)
    return FactorInOrder(w, elimination, where);
  return DenseDelassusFactor(w, where);
}

}  // namespace coulomb
