#include "coulomb/bench/random_bench_command.h"

#include <algorithm>
#include <cstdio>

#include "coulomb/cli/arguments.h"
#include "coulomb/contact/random_contact_problem.h"
#include "coulomb/solvers/canal_solver.h"
#include "coulomb/solvers/contact_ncp.h"
#include "coulomb/solvers/sap_solver.h"

namespace coulomb {
namespace {

// ADMM's iterations after CANAL ends unsolved (SubAdmmSolver's own limit).
constexpr int kFallbackIterations = 10000;

struct ProblemClass {
  const char* name;
  RandomContactProblemOptions options;
};

std::vector<ProblemClass> Classes() {
  RandomContactProblemOptions base;
  RandomContactProblemOptions masses = base;
  masses.mass_ratio = 1e6;
  RandomContactProblemOptions redundant = base;
  redundant.duplicate_fraction = 0.3;
  RandomContactProblemOptions friction = base;
  friction.max_friction = 2.0;
  RandomContactProblemOptions stiff = base;
  stiff.max_stiffness_exponent = 12.0;
  stiff.compliant_fraction = 0.5;  // the rest rigid (k = ∞)
  return {{"well conditioned (masses 0.1–10 kg, μ ≤ 1, k ≤ 1e8 or ∞)", base},
          {"mass ratio 1e6", masses},
          {"rank-deficient J (30 % of contacts twice)", redundant},
          {"μ up to 2", friction},
          {"k up to 1e12 N/m, half rigid", stiff}};
}

struct ClassResult {
  int problems = 0, sap_failures = 0, canal_failures = 0;
  // CANAL's failures that remain after its ADMM fallback
  // (NcpSolverParameters::fallback_iterations) went on from its best.
  int fallback_failures = 0;
  // Problems whose Delassus operator W = J A⁻¹ Jᵀ is singular (3 n_c > n_v:
  // more contact equations than dofs) and CANAL's failures among them.
  int singular = 0, canal_failures_singular = 0;
  double sap_worst_momentum_error = 0.0, fallback_worst_residual = 0.0;
  double sap_iterations = 0.0;
  int sap_max_iterations = 0;
};

void Solve(const ContactProblem& problem, ClassResult* result) {
  SapSolverParameters sap_parameters;
  sap_parameters.keep_history = false;
  SapSolver sap(sap_parameters);
  SapSolution sap_solution;
  const SapSolverStatistics s = sap.Solve(problem, Eigen::VectorXd(), &sap_solution);
  ++result->problems;
  result->sap_failures += !Accepted(s.status);
  result->sap_worst_momentum_error =
      std::max(result->sap_worst_momentum_error, s.momentum_error);
  result->sap_iterations += s.iterations;
  result->sap_max_iterations = std::max(result->sap_max_iterations, s.iterations);

  const ContactNcp ncp(problem);
  NcpSolverParameters canal_parameters;
  canal_parameters.keep_history = false;
  canal_parameters.fallback_iterations = kFallbackIterations;
  NcpSolution canal_solution;
  const NcpSolverStatistics c =
      CanalSolver(canal_parameters).Solve(ncp, Eigen::VectorXd(), &canal_solution);
  const bool canal_converged = c.converged && c.fallback_iterations == 0;
  result->canal_failures += !canal_converged;
  result->fallback_failures += !c.converged;
  const bool singular = 3 * problem.num_constraints() > problem.num_dofs();
  result->singular += singular;
  result->canal_failures_singular += singular && !canal_converged;
  result->fallback_worst_residual = std::max(result->fallback_worst_residual, c.residual);
}

}  // namespace

int RunRandomBenchCommand(const std::vector<std::string>& list) {
  Arguments arguments(list);
  int count = 1000;
  uint64_t seed = 1;
  while (!arguments.Done()) {
    const std::string flag = arguments.Next();
    if (flag == "--count") {
      count = arguments.IntValueAtLeast(flag, 1);
    } else if (flag == "--seed") {
      seed = static_cast<uint64_t>(arguments.IntValueAtLeast(flag, 0));
    } else {
      throw UsageError("unknown option " + flag);
    }
  }
  const std::vector<ProblemClass> classes = Classes();
  std::printf(
      "# SAP and CANAL on %d random contact problems (seed %llu; 2–20 bodies, 1–40 "
      "contacts; SAP ε_r = 1e-6, CANAL natural map 1e-9; where CANAL ends unsolved, "
      "ADMM goes on from its best for up to %d iterations)\n\n"
      "| class | problems | SAP failures | SAP iterations mean / max | SAP worst e_m | "
      "CANAL failures | of which W singular | CANAL then ADMM failures | "
      "worst residual after ADMM |\n"
      "|---|---|---|---|---|---|---|---|---|\n",
      count, static_cast<unsigned long long>(seed), kFallbackIterations);
  int total_sap_failures = 0;
  for (size_t k = 0; k < classes.size(); ++k) {
    ClassResult result;
    for (int n = static_cast<int>(k); n < count; n += static_cast<int>(classes.size())) {
      RandomContactProblemOptions options = classes[k].options;
      options.seed = seed * 1000003 + static_cast<uint64_t>(n);
      options.num_bodies = 2 + static_cast<int>(options.seed % 19);
      options.num_contacts = 1 + static_cast<int>((options.seed / 19) % 40);
      Solve(MakeRandomContactProblem(options), &result);
    }
    total_sap_failures += result.sap_failures;
    std::printf(
        "| %s | %d | %d | %.2f / %d | %.1e | %d (%.1f %%) | %d of %d | %d (%.1f %%) | "
        "%.1e |\n",
        classes[k].name, result.problems, result.sap_failures,
        result.problems > 0 ? result.sap_iterations / result.problems : 0.0,
        result.sap_max_iterations, result.sap_worst_momentum_error, result.canal_failures,
        result.problems > 0 ? 100.0 * result.canal_failures / result.problems : 0.0,
        result.canal_failures_singular, result.singular, result.fallback_failures,
        result.problems > 0 ? 100.0 * result.fallback_failures / result.problems : 0.0,
        result.fallback_worst_residual);
    std::fflush(stdout);
  }
  return total_sap_failures == 0 ? 0 : 1;
}

}  // namespace coulomb
