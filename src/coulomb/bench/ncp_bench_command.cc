#include "coulomb/bench/ncp_bench_command.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <random>
#include <stdexcept>

#include "coulomb/cli/arguments.h"
#include "coulomb/contact/sap_friction_cone.h"
#include "coulomb/scenes/builtin_scenes.h"
#include "coulomb/sim/simulation.h"
#include "coulomb/solvers/canal_solver.h"
#include "coulomb/solvers/pgs_solver.h"
#include "coulomb/solvers/subadmm_solver.h"

namespace coulomb {
namespace {

struct NcpBenchOptions {
  int cases = 100;
  int threads = 1;
  std::string csv;  // per-iteration histories, for bench/plot_ncp_single_step.py
};

NcpBenchOptions ParseNcpBenchOptions(const std::vector<std::string>& list) {
  NcpBenchOptions options;
  Arguments arguments(list);
  while (!arguments.Done()) {
    const std::string flag = arguments.Next();
    if (flag == "--cases") {
      options.cases = arguments.IntValue(flag);
    } else if (flag == "--threads") {
      options.threads = arguments.IntValue(flag);
    } else if (flag == "--csv") {
      options.csv = arguments.Value(flag);
    } else {
      throw UsageError("unknown option " + flag);
    }
  }
  if (options.cases < 1 || options.threads < 1) {
    throw UsageError("--cases and --threads must be ≥ 1");
  }
  return options;
}

// The settled dish pile's last contact problem with v* ← v* + A⁻¹ δt f, f a
// random wrench per body (up to 20 N and 1 N·m, so that contacts stick, slip
// and open).
ContactProblem WithRandomWrenches(const ContactProblem& problem, std::mt19937* random) {
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  ContactProblem perturbed(problem.time_step());
  Eigen::VectorXd v_star = problem.v_star();
  for (int t = 0; t < problem.num_cliques(); ++t) {
    perturbed.AddCliqueOf(problem, t);
    Eigen::VectorXd wrench(problem.clique_size(t));
    for (int k = 0; k < wrench.size(); ++k)
      wrench[k] = (k < 3 ? 20.0 : 1.0) * unit(*random);
    v_star.segment(problem.clique_offset(t), problem.clique_size(t)) +=
        problem.clique_matrix(t).llt().solve(problem.time_step() * wrench);
  }
  perturbed.SetFreeMotionVelocities(v_star);
  for (int i = 0; i < problem.num_constraints(); ++i) {
    const auto& cone =
        dynamic_cast<const SapFrictionCone&>(*problem.constraint(i).potential);
    perturbed.AddConstraint(problem.constraint(i).jacobian, problem.constraint(i).bias,
                            std::make_unique<SapFrictionCone>(cone));
  }
  perturbed.Finalize();
  return perturbed;
}

double Median(std::vector<double> values) {
  if (values.empty()) return NAN;
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

// Residual after k iterations (the last one if the solve stopped earlier).
double ResidualAt(const NcpSolverStatistics& stats, int k) {
  if (stats.history.empty()) return NAN;
  return stats.history[std::min<size_t>(k, stats.history.size()) - 1].residual;
}

// Time at which the residual first fell to `level`; +∞ if never.
double TimeTo(const NcpSolverStatistics& stats, double level) {
  for (const NcpIterationRecord& record : stats.history) {
    if (record.residual <= level) return record.time_s;
  }
  return INFINITY;
}

// One row per iteration: solver, case, iteration, time [s], residual; SAP's
// regularized solution as iteration 0 of solver "sap".
void WriteHistories(const std::string& path, const char* const names[],
                    const std::vector<std::vector<NcpSolverStatistics>>& results,
                    const std::vector<double>& sap_times,
                    const std::vector<double>& sap_residuals) {
  std::ofstream file(path);
  if (!file) throw std::runtime_error(path + ": cannot write");
  file << "solver,case,iteration,time_s,residual\n";
  for (size_t s = 0; s < results.size(); ++s) {
    for (size_t c = 0; c < results[s].size(); ++c) {
      const auto& history = results[s][c].history;
      for (size_t k = 0; k < history.size(); ++k) {
        file << names[s] << "," << c << "," << k + 1 << "," << history[k].time_s << ","
             << history[k].residual << "\n";
      }
    }
  }
  for (size_t c = 0; c < sap_times.size(); ++c) {
    file << "sap," << c << ",0," << sap_times[c] << "," << sap_residuals[c] << "\n";
  }
}

}  // namespace

int RunNcpBenchCommand(const std::vector<std::string>& arguments) {
  const NcpBenchOptions options = ParseNcpBenchOptions(arguments);
  Simulation settle(MakeBuiltinScene("dish_pile"));
  settle.Run();
  TimeStepper stepper(settle.scene().parameters);
  stepper.Step(&settle.mutable_scene().system);  // one more step to capture its problem
  const ContactProblem& base = *stepper.last_problem();

  const char* names[] = {"canal", "subadmm", "pgs"};
  std::vector<std::vector<NcpSolverStatistics>> results(3);
  std::vector<double> sap_times, sap_residuals;
  std::mt19937 random(7);
  NcpSolverParameters parameters;
  parameters.tolerance = 1e-10;
  parameters.max_iterations = 2000;
  for (int c = 0; c < options.cases; ++c) {
    const ContactProblem problem = WithRandomWrenches(base, &random);
    const ContactNcp ncp(problem);
    NcpSolution solution;
    NcpSolverParameters canal = parameters;
    canal.max_iterations = 100;
    results[0].push_back(CanalSolver(canal).Solve(ncp, {}, &solution));
    results[1].push_back(
        SubAdmmSolver(parameters, options.threads).Solve(ncp, &solution));
    results[2].push_back(PgsSolver(parameters).Solve(ncp, {}, &solution));
    SapSolver sap;
    SapSolution sap_solution;
    const SapSolverStatistics s = sap.Solve(problem, {}, &sap_solution);
    Eigen::VectorXd u;
    ncp.CalcContactVelocities(sap_solution.v, &u);
    sap_times.push_back(s.total_time_s);
    sap_residuals.push_back(ncp.NaturalMapResidual(sap_solution.gamma, u));
  }
  std::printf(
      "# Single-step benchmark: dish pile (AL §VII-A1), %d random-wrench cases, "
      "%d contacts, %d dofs\n\nMedian natural-map residual after k iterations "
      "(CANAL: outer iterations).\n\n| solver |",
      options.cases, base.num_constraints(), base.num_dofs());
  const int ks[] = {1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000};
  for (int k : ks) std::printf(" k=%d |", k);
  std::printf("\n|---|");
  for (size_t i = 0; i < std::size(ks); ++i) std::printf("---|");
  std::printf("\n");
  for (int s = 0; s < 3; ++s) {
    std::printf("| %s |", names[s]);
    for (int k : ks) {
      std::vector<double> at;
      for (const NcpSolverStatistics& stats : results[s])
        at.push_back(ResidualAt(stats, k));
      std::printf(" %.1e |", Median(at));
    }
    std::printf("\n");
  }
  std::printf(
      "\nMedian wall time [ms] to reach a residual (∞: not reached within the limit; "
      "CANAL ≤ 100 outer, others ≤ 2000 iterations), and the median final residual.\n\n"
      "| solver | 1e-4 | 1e-6 | 1e-8 | final residual | converged (≤ 1e-10) |\n"
      "|---|---|---|---|---|---|\n");
  for (int s = 0; s < 3; ++s) {
    std::printf("| %s |", names[s]);
    for (double level : {1e-4, 1e-6, 1e-8}) {
      std::vector<double> times;
      for (const NcpSolverStatistics& stats : results[s])
        times.push_back(TimeTo(stats, level));
      std::printf(" %.3g |", 1e3 * Median(times));
    }
    std::vector<double> finals;
    int converged = 0;
    for (const NcpSolverStatistics& stats : results[s]) {
      finals.push_back(stats.residual);
      converged += stats.converged;
    }
    std::printf(" %.1e | %d/%d |\n", Median(finals), converged, options.cases);
  }
  std::printf(
      "| sap (reference: solves the regularized problem) | – | – | – | %.1e | – |\n"
      "\nSAP median time %.3g ms.\n",
      Median(sap_residuals), 1e3 * Median(sap_times));
  if (!options.csv.empty()) {
    WriteHistories(options.csv, names, results, sap_times, sap_residuals);
    std::printf("Histories written to %s.\n", options.csv.c_str());
  }
  return 0;
}

int RunLaikagoBenchCommand(const std::vector<std::string>& arguments) {
  const NcpBenchOptions options = ParseNcpBenchOptions(arguments);
  std::printf(
      "# Laikago drop (AL §VII-D2): 100 iterations per step, δt = 1/240 s, 0.5 s, "
      "%d thread(s); medians over the steps with contacts\n\n| robots | dofs | solver | "
      "contacts (mean) | step [ms] | contact solve [ms] | NCP residual |\n"
      "|---|---|---|---|---|---|---|\n",
      options.threads);
  for (int robots : {8, 27}) {
    for (ContactSolverKind solver :
         {ContactSolverKind::kSubAdmm, ContactSolverKind::kSubAdmmNoBody,
          ContactSolverKind::kAdmm}) {
      Scene scene =
          MakeBuiltinScene("laikago_drop", {{"robots", std::to_string(robots)}});
      scene.parameters.solver.kind = solver;
      scene.parameters.solver.ncp.tolerance = 0.0;  // always the full 100 iterations
      scene.parameters.solver.ncp.max_iterations = 100;
      scene.parameters.solver.threads = options.threads;
      int dofs = 0;
      for (int t = 0; t < scene.system.num_trees(); ++t)
        dofs += scene.system.tree(t).v.size();
      Simulation simulation(std::move(scene));
      const SimulationSummary summary = simulation.Run();
      std::vector<double> times, solve_times, residuals;
      double contacts = 0.0;
      for (const StepRecord& record : simulation.records()) {
        if (record.statistics.num_contacts == 0) continue;
        times.push_back(record.statistics.wall_time_s);
        solve_times.push_back(record.statistics.solve_time_s);
        residuals.push_back(record.statistics.ncp_residual);
        contacts += record.statistics.num_contacts;
      }
      std::printf("| %d | %d | %s | %.0f | %.3f | %.3f | %.1e |%s\n", robots, dofs,
                  ToString(solver).c_str(), times.empty() ? 0.0 : contacts / times.size(),
                  1e3 * Median(times), 1e3 * Median(solve_times), Median(residuals),
                  summary.failure.empty() ? "" : (" " + summary.failure).c_str());
    }
  }
  return 0;
}

}  // namespace coulomb
