#pragma once

#include <string>
#include <vector>

#include "coulomb/fclib/fclib_solve.h"
#include "coulomb/io/json_writer.h"
#include "coulomb/solvers/contact_solver.h"

namespace coulomb {

// What `coulomb solve` prints, the same for every solver: a summary, JSON
// (with the per-iteration history) or a table row.

std::string FclibKindName(const FclibProblem& fclib);  // "local" or "global"

// The statistics every solver reports, as JSON fields.
void AddSolverStatistics(const ContactSolverStatistics& s, JsonObjectWriter* json);

JsonObjectWriter FclibRunJson(const std::string& name, const FclibProblem& fclib,
                              const FclibRun& run);
void PrintFclibRunSummary(const std::string& name, const FclibProblem& fclib,
                          const FclibRun& run, const ContactSolverOptions& options);

void PrintSolveTableTitle(const std::string& directory,
                          const ContactSolverOptions& options);
void PrintSolveTableHeader();
// ncp_residual < 0 prints "-".
void PrintSolveTableRow(const std::string& name, const std::string& kind, int dofs,
                        int contacts, const ContactSolverStatistics& s,
                        double ncp_residual);
void PrintSolveTableFootnote(const ContactSolverOptions& options);
// A file of a directory that could not be read or solved: its row says why.
void PrintSolveTableError(const std::string& name, const std::string& what);

// What a directory's table adds up to: how many of its files converged, how
// many could not be read, the median and worst natural-map residuals of those
// solved, and the solves' total time.
struct SolveTableTotals {
  int converged = 0;
  int unreadable = 0;
  std::vector<double> residuals;  // one per file solved
  double time_s = 0.0;
};
void PrintSolveTableTotals(SolveTableTotals totals);

// The natural-map residual of the problem's NCP (FCLIB normalization) at the
// solution's impulses, with v = v* + A⁻¹Jᵀλ: one measure for every solver.
double ExampleNcpResidual(const ContactProblem& problem, const ContactSolution& solution);
JsonObjectWriter ExampleJson(const std::string& name, const ContactProblem& problem,
                             const ContactSolverStatistics& s, double ncp_residual);

}  // namespace coulomb
