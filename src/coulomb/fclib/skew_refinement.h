#pragma once

#include <functional>

#include <Eigen/Dense>

#include "coulomb/fclib/fclib_contact_problem.h"
#include "coulomb/fclib/fclib_problem.h"
#include "coulomb/fclib/natural_map_residual.h"

namespace coulomb {

// Exact solutions of FCLIB local problems whose W is slightly asymmetric
// (Capsules-i125-1213: max |W − Wᵀ| = 1.3e-3 max |W|, from the simulator
// that wrote it). The contact problem carries the symmetric part W_s (SAP and
// the NCP solvers need W = J Jᵀ); the skew part W_a = ½(W − Wᵀ) is moved into
// the free velocity and lagged:
//   pass k: solve the NCP of (W_s, q^k), q^k = q + W_a r^{k−1}, warm-started
//   from r^{k−1} (r^{−1} = 0),
// until the natural-map residual of the stored (W, q) ≤ tolerance. A fixed
// point solves the stored problem exactly: W_s r + q + W_a r = W r + q. Each
// pass is a contraction with factor about ‖W_a‖ / (the cone-restricted
// smallest eigenvalue of W_s); on Capsules the residual goes 2.5e-5 →
// 4.1e-8 → 9.1e-11 in two passes. Symmetric and global problems take one pass.
//
// W's skew part is more than round-off when max |W − Wᵀ| / max |W| exceeds
// kRoundoffRelativeAsymmetry (local_problem_test.hdf5: 1.6e-16, the writer's
// own arithmetic): SAP's symmetric W then differs from the stored one. The
// refinement also passes again on a W asymmetric at round-off when the
// solver stopped short of the tolerance: the pass restarts it from its last
// iterate (SubADMM reaches 1e-9 on local_problem_test in three passes of
// 10 000 iterations, not in one of 30 000).
inline constexpr double kRoundoffRelativeAsymmetry = 1e-12;
inline bool HasSkewPart(double w_relative_asymmetry) {
  return w_relative_asymmetry > kRoundoffRelativeAsymmetry;
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
