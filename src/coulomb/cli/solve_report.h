#pragma once

#include <string>

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

// The natural-map residual of the problem's NCP (FCLIB normalization) at the
// solution's impulses, with v = v* + A⁻¹Jᵀλ: one measure for every solver.
double ExampleNcpResidual(const ContactProblem& problem, const ContactSolution& solution);
JsonObjectWriter ExampleJson(const std::string& name, const ContactProblem& problem,
                             const ContactSolverStatistics& s, double ncp_residual);

}  // namespace coulomb
