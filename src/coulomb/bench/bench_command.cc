#include "coulomb/bench/bench_command.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "coulomb/cli/arguments.h"
#include "coulomb/contact/random_contact_problem.h"
#include "coulomb/fclib/fclib_contact_problem.h"
#include "coulomb/solvers/sap_solver.h"

namespace coulomb {
namespace {

// The dense path is O(n_v³) in time and O(n_v²) in memory: above this it is
// not run (12000 dofs would need 1.1 GB and minutes per factorization).
constexpr int kMaxDenseDofs = 3000;

struct BenchOptions {
  std::string fclib_dir;
  int repetitions = 5;
  int max_bodies = 1000;
};

struct BenchCase {
  std::string name;
  ContactProblem problem;
};

BenchOptions ParseBenchOptions(const std::vector<std::string>& list) {
  Arguments arguments(list);
  if (arguments.Done() || arguments.Next() != "solve") {
    throw UsageError("usage: coulomb bench solve [--fclib-dir DIR] [--repetitions N]");
  }
  BenchOptions options;
  while (!arguments.Done()) {
    const std::string flag = arguments.Next();
    if (flag == "--fclib-dir") {
      options.fclib_dir = arguments.Value(flag);
    } else if (flag == "--repetitions") {
      options.repetitions = arguments.IntValue(flag);
    } else if (flag == "--max-bodies") {
      options.max_bodies = arguments.IntValue(flag);
    } else {
      throw UsageError("unknown option " + flag);
    }
  }
  if (options.repetitions < 1) throw UsageError("--repetitions must be ≥ 1");
  return options;
}

std::vector<BenchCase> MakeCases(const BenchOptions& options) {
  std::vector<BenchCase> cases;
  if (!options.fclib_dir.empty()) {
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::directory_iterator(options.fclib_dir)) {
      if (entry.path().extension() == ".hdf5") files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
    for (const auto& file : files) {
      cases.push_back(
          {file.filename().string(),
           BuildFclibContactProblem(ReadFclibProblem(file.string())).problem});
    }
  }
  for (int bodies : {10, 30, 100, 300, 1000, 3000}) {
    if (bodies > options.max_bodies) break;
    RandomContactProblemOptions random;
    random.num_bodies = bodies;
    random.num_contacts = 2 * bodies;
    cases.push_back({"random " + std::to_string(bodies) + " bodies",
                     MakeRandomContactProblem(random)});
  }
  return cases;
}

// Median wall time over repetitions of a cold solve (from v*) with a solver
// whose symbolic analysis is already done (as in a simulation).
void BenchOne(const BenchCase& bench, LinearSolverType type, int repetitions) {
  const char* name = type == LinearSolverType::kDense ? "dense" : "sparse";
  if (type == LinearSolverType::kDense && bench.problem.num_dofs() > kMaxDenseDofs) {
    std::printf("%-42s %-7s %6d %8d   (skipped: n_v > %d)\n", bench.name.c_str(), name,
                bench.problem.num_dofs(), bench.problem.num_constraints(), kMaxDenseDofs);
    return;
  }
  SapSolverParameters parameters;
  parameters.linear_solver = type;
  SapSolver solver(parameters);
  SapSolution solution;
  solver.Solve(bench.problem, Eigen::VectorXd(), &solution);  // symbolic analysis
  std::vector<double> times, factor_shares;
  SapSolverStatistics stats;
  for (int repetition = 0; repetition < repetitions; ++repetition) {
    stats = solver.Solve(bench.problem, Eigen::VectorXd(), &solution);
    times.push_back(stats.total_time_s);
    factor_shares.push_back(stats.factorization_time_s / stats.total_time_s);
  }
  std::sort(times.begin(), times.end());
  std::sort(factor_shares.begin(), factor_shares.end());
  std::printf("%-42s %-7s %6d %8d %6d %5s %12.3f %9.0f%% %10.2e\n", bench.name.c_str(),
              name, bench.problem.num_dofs(), bench.problem.num_constraints(),
              stats.iterations, stats.converged() ? "yes" : "NO",
              1e3 * times[times.size() / 2],
              100.0 * factor_shares[factor_shares.size() / 2], stats.momentum_error);
}

}  // namespace

int RunBenchCommand(const std::vector<std::string>& arguments) {
  const BenchOptions options = ParseBenchOptions(arguments);
  const std::vector<BenchCase> cases = MakeCases(options);
  std::printf("SAP solve benchmark: median of %d cold solves (from v*), ε_r = 1e-6\n",
              options.repetitions);
  std::printf("%-42s %-7s %6s %8s %6s %5s %12s %10s %10s\n", "problem", "linear", "dofs",
              "contacts", "iters", "conv", "time_ms", "factor", "e_m");
  for (const BenchCase& bench : cases) {
    for (LinearSolverType type : {LinearSolverType::kDense, LinearSolverType::kSparse}) {
      BenchOne(bench, type, options.repetitions);
    }
  }
  return 0;
}

}  // namespace coulomb
