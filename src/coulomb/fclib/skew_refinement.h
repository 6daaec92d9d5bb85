#pragma once

#include <functional>

#include <Eigen/Dense>

#include "coulomb/fclib/fclib_contact_problem.h"
#include "coulomb/fclib/fclib_problem.h"
#include "coulomb/fclib/natural_map_residual.h"

namespace coulomb {

// Exact solutions of FCLIB local problems whose contact problem carries
// another W than the stored one. The contact problem's W is J Jᵀ
// (fclib_contact_problem.h): a factor of W's symmetric part, since SAP and
// the NCP solvers need W = J Jᵀ. It misses the stored W by W_l = W − J Jᵀ
// (FclibContactProblem::lagged_w): W's skew part where the file's W is
// asymmetric (Capsules-i125-1213: max |W − Wᵀ| = 1.3e-3 max |W|, from the
// simulator that wrote it), and what a block-sparse factor leaves out with
// its dropped pivots (about 1e-6 of max |W| on Capsules). W_l is moved into
// the free velocity and lagged:
//   pass k: solve the NCP of (J Jᵀ, q^k), q^k = q + W_l r^{k−1},
//   warm-started from r^{k−1} (r^{−1} = 0),
// until the natural-map residual of the stored (W, q) ≤ tolerance. A fixed
// point solves the stored problem exactly: J Jᵀ r + q + W_l r = W r + q. Each
// pass is a contraction with factor about ‖W_l‖ / (the cone-restricted
// smallest eigenvalue of J Jᵀ); on Capsules the residual goes 2.5e-5 →
// 4.1e-8 → 9.1e-11 in two passes. Global problems take one pass.
//
// J Jᵀ differs from W beyond round-off when max |W − J Jᵀ| / max |W| exceeds
// kRoundoffModelError (local_problem_test.hdf5: below 1e-15, the writer's
// and the factor's own arithmetic). The refinement also passes again on a W
// missed at round-off when the solver stopped short of the tolerance: the
// pass restarts it from its last iterate (SubADMM reaches 1e-9 on
// local_problem_test in three passes of 10 000 iterations, not in one of
// 30 000).
inline constexpr double kRoundoffModelError = 1e-12;
inline bool ModelMissesW(double w_model_error) {
  return w_model_error > kRoundoffModelError;
}

struct SkewRefinement {
  Eigen::VectorXd r;  // FCLIB order [n, t1, t2]
  NaturalMapResidual residual;
  int passes = 0;
};

// solve(mapped, λ_guess) returns λ in our order [t1, t2, n] (λ_guess empty:
// a cold start). At most max_passes passes.
using NcpSolveFunction = std::function<Eigen::VectorXd(
    const FclibContactProblem& mapped, const Eigen::VectorXd& lambda_guess)>;
SkewRefinement SolveWithSkewRefinement(const FclibProblem& fclib,
                                       const FclibContactProblem& mapped,
                                       double tolerance, int max_passes,
                                       const NcpSolveFunction& solve);

}  // namespace coulomb
