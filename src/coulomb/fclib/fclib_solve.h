#pragma once

#include <string>

#include <Eigen/Dense>

#include "coulomb/fclib/fclib_contact_problem.h"
#include "coulomb/fclib/fclib_problem.h"
#include "coulomb/fclib/natural_map_residual.h"
#include "coulomb/solvers/contact_solver.h"

namespace coulomb {

// One solve of an FCLIB problem by any contact solver, with everything a
// report needs: the solver's statistics, the FCLIB-order solution (r, u and,
// for global problems, v) and its natural-map residual computed from the
// file's own matrices (independent of the solver's).
// SAP (and the dual solvers, of SAP's dual or the CCP) solve the regularized
// near-rigid problem of the mapping (with W = J Jᵀ, a factor of W's symmetric
// part), in one pass. The NCP solvers solve the rigid problem
// and refine local problems on what J Jᵀ misses of W
// (SolveWithSkewRefinement, at most kMaxSkewRefinementPasses passes; the
// statistics sum the passes).
struct FclibRun {
  ContactSolverStatistics statistics;
  Eigen::VectorXd r;  // impulses, FCLIB order [n, t1, t2]
  Eigen::VectorXd u;  // contact velocities u(r), FCLIB order
  Eigen::VectorXd v;  // generalized velocities, FCLIB dof order (global only)
  NaturalMapResidual residual;
  int num_dofs = 0;  // of the mapped contact problem
  // See FclibContactProblem.
  double w_relative_asymmetry = 0.0;
  std::string w_factor;  // local problems: "dense" or "block-sparse"; else ""
  double w_model_error = 0.0;
  int skew_passes = 1;
};
inline constexpr int kMaxSkewRefinementPasses = 10;

// Throws std::invalid_argument for invalid options.
FclibRun SolveFclibProblem(const FclibProblem& fclib, const FclibContactProblem& mapped,
                           const ContactSolverOptions& options);

// Writes /solution/r, /solution/u and (global) /solution/v to a new HDF5
// file (replacing one at `path`). Throws std::runtime_error naming the file.
void WriteFclibSolution(const std::string& path, const FclibProblem& fclib,
                        const FclibRun& run);

}  // namespace coulomb
