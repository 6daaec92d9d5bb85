#include "coulomb/bench/ncp_bench_command.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <numbers>
#include <random>
#include <stdexcept>

#include "coulomb/cli/arguments.h"
#include "coulomb/contact/sap_friction_cone.h"
#include "coulomb/math/thread_pool.h"
#include "coulomb/scenes/builtin_scenes.h"
#include "coulomb/sim/simulation.h"
#include "coulomb/solvers/canal_solver.h"
#include "coulomb/solvers/pgs_solver.h"
#include "coulomb/solvers/subadmm_solver.h"

namespace coulomb {
namespace {

struct NcpBenchOptions {
  std::string case_name = "dish_pile";  // or dish_pile_sdf, bolt_nut
  int cases = 100;
  int threads = 1;
  std::string csv;        // per-iteration histories, for bench/plot_ncp_single_step.py
  bool ablation = false;  // AL §VII-D1: CANAL's inner solvers instead
  // CANAL's β schedule (NcpSolverParameters' defaults).
  double penalty_scale = NcpSolverParameters().penalty_scale;
  double penalty_growth = NcpSolverParameters().penalty_growth;
};

NcpBenchOptions ParseNcpBenchOptions(const std::vector<std::string>& list) {
  NcpBenchOptions options;
  Arguments arguments(list);
  while (!arguments.Done()) {
    const std::string flag = arguments.Next();
    if (flag == "--cases") {
      options.cases = arguments.IntValue(flag);
    } else if (flag == "--case") {
      options.case_name = arguments.Value(flag);
      if (options.case_name != "dish_pile" && options.case_name != "dish_pile_sdf" &&
          options.case_name != "bolt_nut") {
        throw UsageError("--case: expected dish_pile, dish_pile_sdf or bolt_nut, got " +
                         options.case_name);
      }
    } else if (flag == "--threads") {
      options.threads = arguments.IntValueInRange(flag, 1, ThreadPool::kMaxThreads);
    } else if (flag == "--csv") {
      options.csv = arguments.Value(flag);
    } else if (flag == "--ablation") {
      options.ablation = true;
    } else if (flag == "--penalty-scale") {
      options.penalty_scale = arguments.PositiveValue(flag);
    } else if (flag == "--penalty-growth") {
      options.penalty_growth = arguments.PositiveValue(flag);
    } else {
      throw UsageError("unknown option " + flag);
    }
  }
  if (options.cases < 1) throw UsageError("--cases must be ≥ 1");
  if (options.penalty_growth < 1.0)
    throw UsageError("--penalty-growth must be ≥ 1 (β only grows)");
  if (options.ablation && !options.csv.empty())
    throw UsageError("--csv writes the solvers' histories, not the ablation's");
  return options;
}

// A copy of a problem of SAP friction cones with the free-motion velocities
// v_star.
ContactProblem CopyWithFreeMotion(const ContactProblem& problem,
                                  const Eigen::VectorXd& v_star) {
  ContactProblem copy(problem.time_step());
  for (int t = 0; t < problem.num_cliques(); ++t) copy.AddCliqueOf(problem, t);
  copy.SetFreeMotionVelocities(v_star);
  for (int i = 0; i < problem.num_constraints(); ++i) {
    const auto& cone =
        dynamic_cast<const SapFrictionCone&>(*problem.constraint(i).potential);
    copy.AddConstraint(problem.constraint(i).jacobian, problem.constraint(i).bias,
                       std::make_unique<SapFrictionCone>(cone));
  }
  copy.Finalize();
  return copy;
}

// The settled dish pile's last contact problem with v* ← v* + A⁻¹ δt f, f a
// random wrench per body (up to 20 N and 1 N·m, so that contacts stick, slip
// and open).
ContactProblem WithRandomWrenches(const ContactProblem& problem, std::mt19937* random) {
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  Eigen::VectorXd v_star = problem.v_star();
  for (int t = 0; t < problem.num_cliques(); ++t) {
    Eigen::VectorXd wrench(problem.clique_size(t));
    for (int k = 0; k < wrench.size(); ++k)
      wrench[k] = (k < 3 ? 20.0 : 1.0) * unit(*random);
    v_star.segment(problem.clique_offset(t), problem.clique_size(t)) +=
        problem.clique_matrix(t).llt().solve(problem.time_step() * wrench);
  }
  return CopyWithFreeMotion(problem, v_star);
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

// The next contact problem after `settle` [s] of SAP on `scene`.
ContactProblem SettledProblem(Scene scene, double settle) {
  Simulation simulation(std::move(scene));
  simulation.RunFor(settle);
  TimeStepper stepper(simulation.scene().parameters);
  stepper.Step(&simulation.mutable_scene().system);
  const ContactProblem& last = *stepper.last_problem();
  return CopyWithFreeMotion(last, last.v_star());
}

// The configurations whose problems the random wrenches perturb (AL
// §VII-A1): the dish pile settled for 0.5 s (its revolved-SDF dishes for
// 1.5 s: they rock before they settle); the nut settled for 50 ms at
// 10 places along the bolt (turned by 2π k/10 − π, so 2.5 mm below to
// 2 mm above the middle, in phase with the thread), both at the paper's
// δt = 1/240 s.
constexpr int kBoltNutConfigurations = 10;
std::vector<ContactProblem> SingleStepProblems(const std::string& case_name) {
  std::vector<ContactProblem> problems;
  if (case_name == "dish_pile") {
    problems.push_back(SettledProblem(MakeBuiltinScene("dish_pile"), 0.5));
    return problems;
  }
  if (case_name == "dish_pile_sdf") {  // the revolved shells rock until ~1.5 s
    problems.push_back(
        SettledProblem(MakeBuiltinScene("dish_pile", {{"dishes", "sdf"}}), 1.5));
    return problems;
  }
  for (int k = 0; k < kBoltNutConfigurations; ++k) {
    // The paper's step for the AL experiments (the scene's own is 1 ms).
    const double turn =
        2.0 * std::numbers::pi * k / kBoltNutConfigurations - std::numbers::pi;
    Scene scene = MakeBuiltinScene("bolt_nut", {{"turn", std::to_string(turn)}});
    scene.parameters.time_step = 1.0 / 240.0;
    problems.push_back(SettledProblem(std::move(scene), 0.05));
  }
  return problems;
}

// Case c's problem: configuration c mod count, with a random wrench.
const ContactProblem& Configuration(const std::vector<ContactProblem>& problems, int c) {
  return problems[c % problems.size()];
}

// "N contacts, M dofs" of the configurations (a range when they differ).
std::string ProblemSizes(const std::vector<ContactProblem>& problems) {
  int fewest = problems.front().num_constraints(), most = fewest;
  for (const ContactProblem& problem : problems) {
    fewest = std::min(fewest, problem.num_constraints());
    most = std::max(most, problem.num_constraints());
  }
  const std::string contacts = fewest == most
                                   ? std::to_string(most)
                                   : std::to_string(fewest) + "–" + std::to_string(most);
  return std::to_string(problems.size()) + " configuration(s), " + contacts +
         " contacts, " + std::to_string(problems.front().num_dofs()) + " dofs";
}

// The paper's Table II (AL §VII-D1), beside which the ablation prints.
struct PublishedAblationRow {
  CanalInnerSolver solver;
  const char* paper_name;
  double inner_iterations, failure_percent, residual_minus_log10;
};
constexpr PublishedAblationRow kPublishedAblation[] = {
    {CanalInnerSolver::kCascadedNewton, "CANAL", 30.55, 0.0, 8.2231},
    {CanalInnerSolver::kDogleg, "TRDogleg", 118.8, 1.2, 8.5693},
    {CanalInnerSolver::kDampedSemismoothNewton, "DampedSN", 246.9, 1.1, 8.5644}};

// AL §VII-D1: the dish-pile cases solved by CANAL with each inner solver
// (the same outer loop, penalty schedule and inexact inner tolerance; inner
// limit kAblationInnerIterations). First the paper's protocol, 10 AL
// iterations per case: the mean inner iterations per case, the share of
// inner solves that missed their tolerance and of cases with such a miss,
// the median −log10 natural-map residual after the 10 iterations. Then the
// same cases solved to kAblationTolerance (≤ kAblationMaxOuter iterations).
constexpr int kAblationOuterIterations = 10;
constexpr int kAblationInnerIterations = 100;
constexpr double kAblationTolerance = 1e-8;
constexpr int kAblationMaxOuter = 100;

// One inner solver over the cases: sums, and per case the residual
// (−log10), time, outer and inner iterations, and whether it converged.
struct AblationMeasurement {
  int inner_solves = 0, inner_failures = 0, failed_cases = 0, converged = 0;
  std::vector<double> residuals, times, outer_iterations, inner_iterations;
};

AblationMeasurement MeasureInnerSolver(const NcpBenchOptions& options,
                                       const std::vector<ContactProblem>& bases,
                                       CanalInnerSolver inner, double tolerance,
                                       int max_outer) {
  NcpSolverParameters parameters;
  parameters.tolerance = tolerance;
  parameters.max_iterations = max_outer;
  parameters.inner_solver = inner;
  parameters.inner_max_iterations = kAblationInnerIterations;
  parameters.penalty_scale = options.penalty_scale;
  parameters.penalty_growth = options.penalty_growth;
  CanalSolver solver(parameters);
  std::mt19937 random(7);  // the same cases for every inner solver
  AblationMeasurement m;
  for (int c = 0; c < options.cases; ++c) {
    const ContactProblem problem = WithRandomWrenches(Configuration(bases, c), &random);
    const ContactNcp ncp(problem);
    NcpSolution solution;
    const NcpSolverStatistics stats = solver.Solve(ncp, Eigen::VectorXd(), &solution);
    m.inner_solves += stats.inner_solves;
    m.inner_failures += stats.inner_failures;
    m.failed_cases += stats.inner_failures > 0;
    m.converged += stats.converged;
    m.residuals.push_back(-std::log10(stats.residual));
    m.times.push_back(1e3 * stats.total_time_s);
    m.outer_iterations.push_back(stats.iterations);
    m.inner_iterations.push_back(stats.inner_iterations);
  }
  return m;
}

double Mean(const std::vector<double>& values) {
  double sum = 0.0;
  for (double value : values) sum += value;
  return values.empty() ? NAN : sum / values.size();
}

int RunCanalAblation(const NcpBenchOptions& options,
                     const std::vector<ContactProblem>& bases) {
  std::printf(
      "# CANAL inner-solver ablation (AL §VII-D1): %s, %d random-wrench cases, "
      "%s; ≤ %d inner iterations per inner solve; β₀ = %g / mean "
      "w_i, ×%g on a stall\n\n%d AL iterations per case (the paper's protocol):\n\n"
      "| inner solver | inner iterations (mean per case) | failed inner solves [%%] | "
      "cases with a failure [%%] | residual after %d [−log10, median] | time [ms, "
      "median] | paper: inner iter. | paper: failure [%%] | paper: residual [−log10] "
      "|\n|---|---|---|---|---|---|---|---|---|\n",
      options.case_name.c_str(), options.cases, ProblemSizes(bases).c_str(),
      kAblationInnerIterations, options.penalty_scale, options.penalty_growth,
      kAblationOuterIterations, kAblationOuterIterations);
  for (const PublishedAblationRow& row : kPublishedAblation) {
    const AblationMeasurement m =
        MeasureInnerSolver(options, bases, row.solver, 0.0, kAblationOuterIterations);
    std::printf(
        "| %s (paper: %s) | %.1f | %.1f | %.0f | %.2f | %.3g | %.4g | %.1f | %.4f |\n",
        ToString(row.solver).c_str(), row.paper_name, Mean(m.inner_iterations),
        100.0 * m.inner_failures / m.inner_solves, 100.0 * m.failed_cases / options.cases,
        Median(m.residuals), Median(m.times), row.inner_iterations, row.failure_percent,
        row.residual_minus_log10);
  }
  std::printf(
      "\nThe same cases solved to a natural-map residual of %.0e (≤ %d AL "
      "iterations):\n\n| inner solver | converged | AL iterations (median) | inner "
      "iterations (median) | failed inner solves [%%] | time [ms, median] |\n"
      "|---|---|---|---|---|---|\n",
      kAblationTolerance, kAblationMaxOuter);
  for (const PublishedAblationRow& row : kPublishedAblation) {
    const AblationMeasurement m = MeasureInnerSolver(
        options, bases, row.solver, kAblationTolerance, kAblationMaxOuter);
    std::printf("| %s | %d/%d | %.0f | %.0f | %.1f | %.3g |\n",
                ToString(row.solver).c_str(), m.converged, options.cases,
                Median(m.outer_iterations), Median(m.inner_iterations),
                100.0 * m.inner_failures / m.inner_solves, Median(m.times));
  }
  return 0;
}

}  // namespace

int RunNcpBenchCommand(const std::vector<std::string>& arguments) {
  const NcpBenchOptions options = ParseNcpBenchOptions(arguments);
  const std::vector<ContactProblem> bases = SingleStepProblems(options.case_name);
  if (options.ablation) return RunCanalAblation(options, bases);

  const char* names[] = {"canal", "subadmm", "pgs"};
  std::vector<std::vector<NcpSolverStatistics>> results(3);
  std::vector<double> sap_times, sap_residuals;
  std::mt19937 random(7);
  NcpSolverParameters parameters;
  parameters.tolerance = 1e-10;
  parameters.max_iterations = 2000;
  for (int c = 0; c < options.cases; ++c) {
    const ContactProblem problem = WithRandomWrenches(Configuration(bases, c), &random);
    const ContactNcp ncp(problem);
    NcpSolution solution;
    NcpSolverParameters canal = parameters;
    canal.max_iterations = 100;
    canal.penalty_scale = options.penalty_scale;
    canal.penalty_growth = options.penalty_growth;
    results[0].push_back(CanalSolver(canal).Solve(ncp, Eigen::VectorXd(), &solution));
    results[1].push_back(SubAdmmSolver(parameters, options.threads)
                             .Solve(ncp, Eigen::VectorXd(), &solution));
    results[2].push_back(PgsSolver(parameters).Solve(ncp, Eigen::VectorXd(), &solution));
    SapSolver sap;
    SapSolution sap_solution;
    const SapSolverStatistics s = sap.Solve(problem, Eigen::VectorXd(), &sap_solution);
    Eigen::VectorXd u;
    ncp.CalcContactVelocities(sap_solution.v, &u);
    sap_times.push_back(s.total_time_s);
    sap_residuals.push_back(ncp.NaturalMapResidual(sap_solution.gamma, u));
  }
  std::printf(
      "# Single-step benchmark: %s (AL §VII-A1), %d random-wrench cases, "
      "%s\n\nMedian natural-map residual after k iterations "
      "(CANAL: outer iterations).\n\n| solver |",
      options.case_name.c_str(), options.cases, ProblemSizes(bases).c_str());
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
