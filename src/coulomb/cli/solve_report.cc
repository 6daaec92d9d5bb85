#include "coulomb/cli/solve_report.h"

#include <algorithm>
#include <cstdio>
#include <vector>

#include "coulomb/fclib/skew_refinement.h"

namespace coulomb {
namespace {

bool IsSap(const ContactSolverStatistics& s) {
  return s.solver == ContactSolverKind::kSap;
}

std::vector<JsonObjectWriter> HistoryJson(const ContactSolverStatistics& s) {
  std::vector<JsonObjectWriter> history;
  for (const SapIterationRecord& record : s.sap_history) {
    JsonObjectWriter& entry = history.emplace_back();
    entry.Add("cost", record.cost);
    entry.Add("gradient_norm", record.gradient_norm);
    entry.Add("min_alpha", record.min_alpha);
    entry.Add("line_search_iterations", record.line_search_iterations);
  }
  for (const NcpIterationRecord& record : s.ncp_history) {
    JsonObjectWriter& entry = history.emplace_back();
    entry.Add("residual", record.residual);
    entry.Add("primal_residual", record.primal_residual);
    entry.Add("inner_iterations", record.inner_iterations);
    entry.Add("penalty", record.penalty);
  }
  return history;
}

}  // namespace

std::string FclibKindName(const FclibProblem& fclib) {
  return fclib.kind == FclibProblem::Kind::kLocal ? "local" : "global";
}

void AddSolverStatistics(const ContactSolverStatistics& s, JsonObjectWriter* json) {
  json->Add("solver", ToString(s.solver));
  json->Add("converged", s.converged());
  json->Add("status", ToString(s.status));
  json->Add("iterations", s.iterations);
  json->Add("inner_iterations", s.inner_iterations);
  json->Add("inner_solves", s.inner_solves);
  json->Add("inner_failures", s.inner_failures);
  json->Add("fallback_iterations", s.fallback_iterations);
  json->Add("line_search_iterations", s.line_search_iterations);
  json->Add("momentum_error", s.momentum_error);
  json->Add("complementarity_error", s.complementarity_error);
  json->Add("contact_residual", s.primal_residual);
  json->Add("cost", s.cost);
  json->Add("num_islands", s.num_islands);
  json->Add("clique_iterations", s.clique_iterations);
  json->Add("wall_time_s", s.total_time_s);
  json->Add("factorization_time_s", s.factorization_time_s);
}

JsonObjectWriter FclibRunJson(const std::string& name, const FclibProblem& fclib,
                              const FclibRun& run) {
  JsonObjectWriter json;
  json.Add("problem", name);
  json.Add("kind", FclibKindName(fclib));
  AddSolverStatistics(run.statistics, &json);
  json.Add("ncp_residual", run.residual.error);
  json.Add("ncp_residual_unnormalized", run.residual.unnormalized);
  json.Add("ncp_residual_normalization", "max(|q|,|r|,|u|)");
  json.Add("solver_ncp_residual", run.statistics.ncp_residual);
  json.Add("skew_passes", run.skew_passes);
  json.Add("num_dofs", run.num_dofs);
  json.Add("num_contacts", fclib.num_contacts);
  json.Add("w_relative_asymmetry", run.w_relative_asymmetry);
  if (fclib.kind == FclibProblem::Kind::kLocal) {
    json.Add("w_factor", run.w_factor);
    json.Add("w_model_error", run.w_model_error);
  }
  json.Add("history", HistoryJson(run.statistics));
  return json;
}

void PrintFclibRunSummary(const std::string& name, const FclibProblem& fclib,
                          const FclibRun& run, const ContactSolverOptions& options) {
  const ContactSolverStatistics& s = run.statistics;
  const std::string solver = ToString(s.solver);
  std::printf("%s (%s, %d dofs, %d contacts", name.c_str(), FclibKindName(fclib).c_str(),
              run.num_dofs, fclib.num_contacts);
  if (fclib.kind == FclibProblem::Kind::kLocal)
    std::printf(", W = J Jᵀ with J %s", run.w_factor.c_str());
  if (IsSap(s)) std::printf(", %d islands", s.num_islands);
  std::printf(")\n  %s ", solver.c_str());
  if (s.fallback_iterations > 0) {
    std::printf("ended unsolved after %d iterations", s.iterations);
  } else if (s.converged()) {
    std::printf("converged in %d iterations", s.iterations);
  } else {
    std::printf("did NOT converge: %s after %d iterations", ToString(s.status).c_str(),
                s.iterations);
  }
  if (IsSap(s)) {
    std::printf(" (%d line-search iterations), ε_r = %.1e\n", s.line_search_iterations,
                options.sap.rel_tolerance);
    std::printf("  momentum error e_m = %.3e, complementarity error e_μ = %.3e\n",
                s.momentum_error, s.complementarity_error);
  } else {
    if (s.inner_solves > 0) {
      std::printf(" (%d inner iterations by %s", s.inner_iterations,
                  ToString(options.ncp.inner_solver).c_str());
      if (s.inner_failures > 0)
        std::printf("; %d of %d inner solves missed their tolerance", s.inner_failures,
                    s.inner_solves);
      std::printf(")");
    }
    if (run.skew_passes > 1)
      std::printf(" in %d passes refining on W − J Jᵀ", run.skew_passes);
    if (s.fallback_iterations > 0)
      std::printf("; then ADMM from its best %s after %d iterations",
                  s.converged() ? "converged" : "did NOT converge",
                  s.fallback_iterations);
    std::printf(", tolerance %.1e\n", options.ncp.tolerance);
    if (!s.converged() && s.solver == ContactSolverKind::kCanal &&
        options.ncp.fallback_iterations == 0)
      std::printf(
          "  hint: --fallback-iterations 10000 lets ADMM go on from CANAL's best "
          "impulses, which solves most problems CANAL stalls on\n");
  }
  std::printf("  FCLIB natural-map residual = %.3e (÷ max(‖q‖,‖r‖,‖u‖) = %.3e)\n",
              run.residual.error, run.residual.normalization);
  if (IsSap(s) && ModelMissesW(run.w_model_error)) {
    std::printf(
        "  note: SAP solved W = J Jᵀ, which misses the stored W by %.1e of max |W| "
        "(max |W − Wᵀ| / max |W| = %.1e); the residual uses W as stored\n",
        run.w_model_error, run.w_relative_asymmetry);
  }
  std::printf("  wall time %.3f ms", 1e3 * s.total_time_s);
  if (s.factorization_time_s > 0.0) {
    std::printf(" (factorization %.0f%%)",
                100.0 * s.factorization_time_s / std::max(s.total_time_s, 1e-300));
  }
  std::printf("\n");
}

void PrintSolveTableTitle(const std::string& directory,
                          const ContactSolverOptions& options) {
  if (options.kind == ContactSolverKind::kSap) {
    std::printf(
        "SAP on the FCLIB problems in %s (ε_r = %.1e, %s Cholesky, %s line search)\n",
        directory.c_str(), options.sap.rel_tolerance,
        ToString(options.sap.linear_solver).c_str(),
        ToString(options.sap.line_search).c_str());
  } else {
    std::printf(
        "%s on the FCLIB problems in %s (rigid NCP, natural-map tolerance %.1e)\n",
        ToString(options.kind).c_str(), directory.c_str(), options.ncp.tolerance);
  }
}

void PrintSolveTableHeader() {
  std::printf("%-42s %6s %6s %8s %5s %6s %6s %10s %10s %10s %10s\n", "problem", "kind",
              "dofs", "contacts", "conv", "iters", "inner", "e_m", "e_mu", "ncp_resid",
              "time_ms");
}

void PrintSolveTableRow(const std::string& name, const std::string& kind, int dofs,
                        int contacts, const ContactSolverStatistics& s,
                        double ncp_residual) {
  char residual[16] = "-";
  if (ncp_residual >= 0.0)
    std::snprintf(residual, sizeof(residual), "%.2e", ncp_residual);
  std::printf("%-42s %6s %6d %8d %5s %6d %6d %10.2e %10.2e %10s %10.2f\n", name.c_str(),
              kind.c_str(), dofs, contacts, s.converged() ? "yes" : "NO", s.iterations,
              s.inner_iterations, s.momentum_error, s.complementarity_error, residual,
              1e3 * s.total_time_s);
}

void PrintSolveTableError(const std::string& name, const std::string& what) {
  std::printf("%-42s unreadable or unsolved: %s\n", name.c_str(), what.c_str());
}

void PrintSolveTableTotals(SolveTableTotals totals) {
  const size_t solved = totals.residuals.size();
  std::printf("%d of %zu converged", totals.converged, solved);
  if (totals.unreadable > 0)
    std::printf(", %d unreadable or unsolved", totals.unreadable);
  if (solved > 0) {
    std::sort(totals.residuals.begin(), totals.residuals.end());
    std::printf("; ncp_resid median %.2e, worst %.2e", totals.residuals[(solved - 1) / 2],
                totals.residuals.back());
  }
  std::printf("; %.3f s of solves in all\n", totals.time_s);
}

void PrintSolveTableFootnote(const ContactSolverOptions& options) {
  std::printf(
      "ncp_resid: FCLIB natural-map residual ÷ max(‖q‖,‖r‖,‖u‖), from the problem's "
      "matrices");
  if (options.kind == ContactSolverKind::kSap) {
    std::printf(
        "; SAP solves the regularized problem, so it is reported, not driven to "
        "zero");
  }
  if (options.kind == ContactSolverKind::kCanal) {
    std::printf(options.ncp.fallback_iterations > 0
                    ? "; iters are CANAL's own, after which ADMM went on where it "
                      "ended unsolved (--json: fallback_iterations)"
                    : "; where CANAL ends unsolved, --fallback-iterations 10000 lets "
                      "ADMM go on from its best impulses");
  }
  std::printf(".\n");
}

double ExampleNcpResidual(const ContactProblem& problem,
                          const ContactSolution& solution) {
  const ContactNcp ncp(problem);
  const Eigen::VectorXd lambda = ncp.FromProblemImpulses(solution.impulses);
  Eigen::VectorXd v, u;
  ncp.CalcVelocities(lambda, &v);
  ncp.CalcContactVelocities(v, &u);
  return ncp.NaturalMapResidual(lambda, u);
}

JsonObjectWriter ExampleJson(const std::string& name, const ContactProblem& problem,
                             const ContactSolverStatistics& s, double ncp_residual) {
  JsonObjectWriter json;
  json.Add("problem", name);
  json.Add("kind", "random");
  AddSolverStatistics(s, &json);
  json.Add("ncp_residual", ncp_residual);
  json.Add("num_dofs", problem.num_dofs());
  json.Add("num_contacts", problem.num_constraints());
  json.Add("history", HistoryJson(s));
  return json;
}

}  // namespace coulomb
