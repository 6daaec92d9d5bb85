#pragma once

#include <string>
#include <vector>

#include <Eigen/Dense>

#include "coulomb/contact/contact_problem.h"

namespace coulomb {

// A factor J of a symmetric positive semidefinite Delassus matrix W (three
// rows per contact), W ≈ J Jᵀ: the contact problem of an FCLIB local problem
// has A = I and one dof per column of J (fclib_contact_problem.h), so the
// Newton matrix of SAP and CANAL is H = I + Jᵀ G J, and how J's columns are
// grouped into cliques decides how sparse H is.
//
// * Dense (DenseDelassusFactor): J = V Λ^½ from W = V Λ Vᵀ, over the
//   eigenvalues above n ε max λ (W is often singular: more contact rows than
//   body dofs). One clique of rank W dofs; J Jᵀ = W to round-off, but every
//   contact touches every dof and H is dense.
// * Block-sparse (SparseDelassusFactor): J = P L, the Cholesky factor of
//   W + δ I with the contacts in minimum-degree order (contacts a and b
//   coupled when W_ab ≠ 0), δ = kDiagonalShift max |W|. One clique of 3
//   dofs per contact; contact r's rows touch its own clique and those of the
//   contacts eliminated before it whose factor columns reach r, so H is as
//   sparse as the factor of W. The shift makes the factorization of a
//   singular W stable: without it, in a fixed order, the pivots that should
//   vanish come out as round-off that later columns amplify (on the tests'
//   chain of 20 bodies, dropping the pivots below 1e-10 W_jj instead still
//   left pivots of −3.8 W_jj among the last contacts). J Jᵀ = W + δ I then
//   misses W by δ, which the refinement of the local problem lags
//   (skew_refinement.h).
//
// ChooseDelassusFactor takes the block-sparse factor when its blocks (the
// diagonal ones and the fill) are at most kSparseShare of the dense lower
// triangle's.
struct DelassusFactor {
  std::vector<int> clique_sizes;
  // Per contact: its Jacobian blocks, rows in W's order (FCLIB's [n, t1, t2]).
  std::vector<std::vector<JacobianBlock>> contact_jacobians;
  bool sparse = false;
};

inline constexpr double kDiagonalShift = 1e-8;
inline constexpr double kSparseShare = 0.1;

// `w`: symmetric, 3 rows per contact. Throws std::runtime_error prefixed by
// `where` when W is zero or not positive semidefinite.
DelassusFactor DenseDelassusFactor(const Eigen::MatrixXd& w, const std::string& where);
DelassusFactor SparseDelassusFactor(const Eigen::MatrixXd& w, const std::string& where);
DelassusFactor ChooseDelassusFactor(const Eigen::MatrixXd& w, const std::string& where);

}  // namespace coulomb
