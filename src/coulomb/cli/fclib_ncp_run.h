#pragma once

#include <string>

#include <Eigen/Dense>

#include "coulomb/fclib/fclib_contact_problem.h"
#include "coulomb/fclib/fclib_problem.h"
#include "coulomb/fclib/natural_map_residual.h"
#include "coulomb/solvers/contact_ncp.h"

namespace coulomb {

// One solve of the rigid FCLIB problem (W r + q, or M v = H r + f with
// u = Hᵀ v + w, and the De Saxcé term) by an NCP solver (canal, subadmm, pgs),
// with its FCLIB-order solution and the FCLIB natural-map residual computed
// from the file's own matrices (independent of the solver's).
// Local problems with an asymmetric W are refined on its skew part
// (SolveWithSkewRefinement, at most kMaxSkewRefinementPasses passes; the
// statistics sum the passes).
struct FclibNcpRun {
  NcpSolverStatistics statistics;
  Eigen::VectorXd r;  // FCLIB order [n, t1, t2]
  NaturalMapResidual residual;
  int num_dofs = 0;
  int skew_passes = 1;
};
inline constexpr int kMaxSkewRefinementPasses = 10;

// solver: canal, subadmm or pgs (threads: SubADMM's thread count). Throws
// std::invalid_argument for an unknown solver name.
FclibNcpRun SolveFclibWithNcpSolver(const FclibProblem& fclib,
                                    const FclibContactProblem& mapped,
                                    const std::string& solver,
                                    const NcpSolverParameters& parameters,
                                    int threads = 1);

// Output of `coulomb solve --solver canal|pgs`: a summary, JSON (with the
// per-iteration history) or a table row.
void PrintNcpSummary(const std::string& name, const FclibProblem& fclib,
                     const FclibNcpRun& run);
void PrintNcpJson(const std::string& name, const FclibProblem& fclib,
                  const FclibNcpRun& run);
void PrintNcpTableHeader();
void PrintNcpTableRow(const std::string& name, const FclibProblem& fclib,
                      const FclibNcpRun& run);

}  // namespace coulomb
