#include "coulomb/cli/fclib_ncp_run.h"

#include <cstdio>
#include <iostream>
#include <stdexcept>

#include "coulomb/cli/json_writer.h"
#include "coulomb/fclib/skew_refinement.h"
#include "coulomb/solvers/canal_solver.h"
#include "coulomb/solvers/pgs_solver.h"
#include "coulomb/solvers/subadmm_solver.h"

namespace coulomb {

namespace {

// One solve by the named solver, warm-started from lambda_guess when given.
NcpSolverStatistics SolveOnce(const ContactNcp& ncp, const std::string& solver,
                              const NcpSolverParameters& parameters, int threads,
                              const Eigen::VectorXd& lambda_guess,
                              NcpSolution* solution) {
  if (solver == "canal") {
    return CanalSolver(parameters).Solve(ncp, Eigen::VectorXd(), solution, lambda_guess);
  }
  if (solver == "pgs") return PgsSolver(parameters).Solve(ncp, lambda_guess, solution);
  if (solver == "subadmm") {
    return SubAdmmSolver(parameters, threads).Solve(ncp, solution, lambda_guess);
  }
  throw std::invalid_argument("unknown NCP solver '" + solver +
                              "' (use canal, subadmm or pgs)");
}

// Statistics of the refinement passes together: iterations and time summed,
// the history concatenated, the status and residual of the last pass.
void Accumulate(const NcpSolverStatistics& pass, NcpSolverStatistics* total) {
  const int iterations = total->iterations, inner = total->inner_iterations;
  const double time = total->total_time_s;
  std::vector<NcpIterationRecord> history = std::move(total->history);
  *total = pass;
  total->iterations += iterations;
  total->inner_iterations += inner;
  total->total_time_s += time;
  history.insert(history.end(), pass.history.begin(), pass.history.end());
  total->history = std::move(history);
}

}  // namespace

FclibNcpRun SolveFclibWithNcpSolver(const FclibProblem& fclib,
                                    const FclibContactProblem& mapped,
                                    const std::string& solver,
                                    const NcpSolverParameters& parameters, int threads) {
  FclibNcpRun run;
  const auto solve = [&](const FclibContactProblem& problem,
                         const Eigen::VectorXd& lambda_guess) {
    const ContactNcp ncp(problem.problem);
    NcpSolution solution;
    Accumulate(SolveOnce(ncp, solver, parameters, threads, lambda_guess, &solution),
               &run.statistics);
    return solution.lambda;
  };
  const SkewRefinement refined = SolveWithSkewRefinement(
      fclib, mapped, parameters.tolerance, kMaxSkewRefinementPasses, solve);
  run.num_dofs = mapped.problem.num_dofs();
  run.r = refined.r;
  run.residual = refined.residual;
  run.skew_passes = refined.passes;
  return run;
}

void PrintNcpSummary(const std::string& name, const FclibProblem& fclib,
                     const FclibNcpRun& run) {
  const NcpSolverStatistics& s = run.statistics;
  std::printf("%s (%s, %d dofs, %d contacts)\n", name.c_str(),
              fclib.kind == FclibProblem::Kind::kLocal ? "local" : "global", run.num_dofs,
              fclib.num_contacts);
  std::printf(
      "  %s %s after %d iterations", s.solver.c_str(),
      s.converged ? "converged" : ("did NOT converge: " + std::string(s.status)).c_str(),
      s.iterations);
  if (s.solver == "canal")
    std::printf(" (%d inner Newton iterations)", s.inner_iterations);
  if (run.skew_passes > 1) {
    std::printf(" in %d passes refining on W's skew part", run.skew_passes);
  }
  std::printf(
      "\n  FCLIB natural-map residual = %.3e (÷ max(‖q‖,‖r‖,‖u‖) = %.3e); solver's "
      "own = %.3e\n  wall time %.3f ms\n",
      run.residual.error, run.residual.normalization, s.residual, 1e3 * s.total_time_s);
}

void PrintNcpJson(const std::string& name, const FclibProblem& fclib,
                  const FclibNcpRun& run) {
  const NcpSolverStatistics& s = run.statistics;
  JsonObjectWriter json;
  json.Add("problem", name);
  json.Add("kind", fclib.kind == FclibProblem::Kind::kLocal ? "local" : "global");
  json.Add("solver", s.solver);
  json.Add("converged", s.converged);
  json.Add("status", std::string(s.status));
  json.Add("iterations", s.iterations);
  json.Add("inner_iterations", s.inner_iterations);
  json.Add("skew_passes", run.skew_passes);
  json.Add("ncp_residual", run.residual.error);
  json.Add("ncp_residual_unnormalized", run.residual.unnormalized);
  json.Add("ncp_residual_normalization", "max(|q|,|r|,|u|)");
  json.Add("contact_residual",
           s.history.empty() ? 0.0 : s.history.back().primal_residual);
  json.Add("num_dofs", run.num_dofs);
  json.Add("num_contacts", fclib.num_contacts);
  json.Add("wall_time_s", s.total_time_s);
  std::vector<JsonObjectWriter> history;
  for (const NcpIterationRecord& record : s.history) {
    history.emplace_back();
    history.back().Add("residual", record.residual);
    history.back().Add("primal_residual", record.primal_residual);
    history.back().Add("inner_iterations", record.inner_iterations);
    history.back().Add("penalty", record.penalty);
  }
  json.Add("history", history);
  std::cout << json.str() << "\n";
}

void PrintNcpTableHeader() {
  std::printf("%-42s %6s %6s %8s %5s %6s %7s %10s %10s\n", "problem", "kind", "dofs",
              "contacts", "conv", "iters", "inner", "ncp_resid", "time_ms");
}

void PrintNcpTableRow(const std::string& name, const FclibProblem& fclib,
                      const FclibNcpRun& run) {
  const NcpSolverStatistics& s = run.statistics;
  std::printf("%-42s %6s %6d %8d %5s %6d %7d %10.2e %10.2f\n", name.c_str(),
              fclib.kind == FclibProblem::Kind::kLocal ? "local" : "global", run.num_dofs,
              fclib.num_contacts, s.converged ? "yes" : "NO", s.iterations,
              s.inner_iterations, run.residual.error, 1e3 * s.total_time_s);
}

}  // namespace coulomb
