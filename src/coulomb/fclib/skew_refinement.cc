#include "coulomb/fclib/skew_refinement.h"

namespace coulomb {

SkewRefinement SolveWithSkewRefinement(const FclibProblem& fclib,
                                       const FclibContactProblem& mapped,
                                       double tolerance, int max_passes,
                                       const NcpSolveFunction& solve) {
  SkewRefinement result;
  Eigen::VectorXd lambda = solve(mapped, Eigen::VectorXd());
  result.r = ToFclibContactOrder(lambda);
  result.residual = CalcNaturalMapResidual(fclib, result.r);
  result.passes = 1;
  const bool lags_part_of_w =
      fclib.kind == FclibProblem::Kind::kLocal && mapped.w_model_error > 0.0;
  if (!lags_part_of_w) return result;
  while (result.residual.error > tolerance && result.passes < max_passes) {
    const Eigen::VectorXd shifted_q = fclib.q + mapped.lagged_w * result.r;
    lambda = solve(WithLocalFreeVelocity(mapped, fclib, shifted_q), lambda);
    result.r = ToFclibContactOrder(lambda);
    result.residual = CalcNaturalMapResidual(fclib, result.r);
    ++result.passes;
  }
  return result;
}

}  // namespace coulomb
