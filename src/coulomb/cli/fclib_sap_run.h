#pragma once

#include <string>

#include <Eigen/Dense>

#include "coulomb/fclib/fclib_contact_problem.h"
#include "coulomb/fclib/fclib_problem.h"
#include "coulomb/fclib/natural_map_residual.h"
#include "coulomb/solvers/sap_solver.h"

namespace coulomb {

// One SAP solve of an FCLIB problem with everything a report needs: solver
// statistics, the FCLIB-order solution (r, u and, for global problems, v) and
// its natural-map residual.
struct FclibSapRun {
  SapSolverStatistics statistics;
  Eigen::VectorXd r;  // impulses, FCLIB order [n, t1, t2]
  Eigen::VectorXd u;  // contact velocities u(r), FCLIB order
  Eigen::VectorXd v;  // generalized velocities, FCLIB dof order (global only)
  NaturalMapResidual residual;
  int num_dofs = 0;                   // of the mapped contact problem
  double w_relative_asymmetry = 0.0;  // see FclibContactProblem
  double wall_time_s = 0.0;           // the solve alone (not reading or mapping)
};

FclibSapRun SolveFclibWithSap(const FclibProblem& fclib,
                              const FclibContactProblem& mapped,
                              const SapSolverParameters& parameters);

// Writes /solution/r, /solution/u and (global) /solution/v.
void WriteFclibSolution(const std::string& path, const FclibProblem& fclib,
                        const FclibSapRun& run);

}  // namespace coulomb
