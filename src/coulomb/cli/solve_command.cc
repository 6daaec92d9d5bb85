#include "coulomb/cli/solve_command.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "coulomb/cli/arguments.h"
#include "coulomb/cli/solve_report.h"
#include "coulomb/contact/random_contact_problem.h"
#include "coulomb/fclib/fclib_solve.h"
#include "coulomb/math/thread_pool.h"

namespace coulomb {
namespace {

struct SolveOptions {
  std::string input;  // a file, a directory, or empty with --example
  bool example = false;
  ContactSolverOptions solver;
  std::string output;
  bool json = false;
};

SolveOptions ParseSolveOptions(const std::vector<std::string>& list) {
  SolveOptions options;
  Arguments arguments(list);
  while (!arguments.Done()) {
    const std::string flag = arguments.Next();
    if (flag == "--solver") {
      options.solver.kind = arguments.EnumValue<ContactSolverKind>(flag);
    } else if (flag == "--delassus") {
      options.solver.ncp.delassus = arguments.EnumValue<DelassusForm>(flag);
    } else if (flag == "--canal-inner") {
      options.solver.ncp.inner_solver = arguments.EnumValue<CanalInnerSolver>(flag);
    } else if (flag == "--fallback-iterations") {
      options.solver.ncp.fallback_iterations = arguments.IntValueAtLeast(flag, 0);
    } else if (flag == "--threads") {
      options.solver.threads =
          arguments.IntValueInRange(flag, 1, ThreadPool::kMaxThreads);
    } else if (flag == "--rel-tol") {
      options.solver.sap.rel_tolerance = arguments.FractionValue(flag);
      options.solver.ncp.tolerance = options.solver.sap.rel_tolerance;
    } else if (flag == "--max-iterations") {
      options.solver.sap.max_iterations = arguments.IntValueAtLeast(flag, 1);
      options.solver.ncp.max_iterations = options.solver.sap.max_iterations;
    } else if (flag == "--linear-solver") {
      options.solver.sap.linear_solver = arguments.EnumValue<LinearSolverType>(flag);
    } else if (flag == "--line-search") {
      options.solver.sap.line_search = arguments.EnumValue<LineSearchType>(flag);
    } else if (flag == "--output") {
      options.output = arguments.Value(flag);
    } else if (flag == "--json") {
      options.json = true;
    } else if (flag == "--example") {
      options.example = true;
    } else if (flag.starts_with("--")) {
      throw UsageError("unknown option " + flag);
    } else if (options.input.empty()) {
      options.input = flag;
    } else {
      throw UsageError("more than one problem given: " + options.input + ", " + flag);
    }
  }
  if (options.input.empty() == !options.example) {
    throw UsageError("give one FCLIB file or directory, or --example");
  }
  try {
    ValidateContactSolverOptions(options.solver);
  } catch (const std::invalid_argument& error) {
    throw UsageError(error.what());
  }
  return options;
}

int SolveOneFile(const SolveOptions& options) {
  if (std::filesystem::is_directory(options.output)) {
    throw UsageError("--output " + options.output + " is a directory; give a file name");
  }
  const FclibProblem fclib = ReadFclibProblem(options.input);
  const FclibContactProblem mapped = BuildFclibContactProblem(fclib);
  const FclibRun run = SolveFclibProblem(fclib, mapped, options.solver);
  const std::string name = std::filesystem::path(options.input).filename().string();
  if (options.json) {
    std::cout << FclibRunJson(name, fclib, run).str() << "\n";
  } else {
    PrintFclibRunSummary(name, fclib, run, options.solver);
  }
  if (!options.output.empty()) WriteFclibSolution(options.output, fclib, run);
  return run.statistics.converged() ? 0 : 1;
}

int SolveDirectory(const SolveOptions& options) {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(options.input)) {
    const std::string extension = entry.path().extension().string();
    if (extension == ".hdf5" || extension == ".h5") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  if (files.empty()) throw std::runtime_error(options.input + ": no .hdf5 files");
  PrintSolveTableTitle(options.input, options.solver);
  PrintSolveTableHeader();
  SolveTableTotals totals;
  for (const auto& file : files) {
    try {  // a bad file gets its row; the others are still solved
      const FclibProblem fclib = ReadFclibProblem(file.string());
      const FclibContactProblem mapped = BuildFclibContactProblem(fclib);
      const FclibRun run = SolveFclibProblem(fclib, mapped, options.solver);
      PrintSolveTableRow(file.filename().string(), FclibKindName(fclib), run.num_dofs,
                         fclib.num_contacts, run.statistics, run.residual.error);
      totals.converged += run.statistics.converged() ? 1 : 0;
      totals.residuals.push_back(run.residual.error);
      totals.time_s += run.statistics.total_time_s;
    } catch (const std::exception& error) {
      PrintSolveTableError(file.filename().string(), error.what());
      ++totals.unreadable;
    }
    std::fflush(stdout);  // each row as its solve ends: the table is the progress
  }
  const int unreadable = totals.unreadable;
  const bool all_converged =
      totals.converged == static_cast<int>(totals.residuals.size());
  PrintSolveTableTotals(std::move(totals));
  PrintSolveTableFootnote(options.solver);
  if (unreadable > 0) return 2;  // bad input, as for one file
  return all_converged ? 0 : 1;
}

// A random problem (30 bodies, 60 contacts, seed 1) solved by the chosen
// solver; the residual is the natural map of its NCP at the returned
// impulses with v = v* + A⁻¹Jᵀλ, the same measure for every solver.
int SolveExample(const SolveOptions& options) {
  RandomContactProblemOptions example;
  example.num_bodies = 30;
  example.num_contacts = 60;
  const ContactProblem problem = MakeRandomContactProblem(example);
  const std::unique_ptr<ContactSolver> solver =
      MakeContactSolver(options.solver, SolverUse::kSingleProblem);
  ContactSolution solution;
  const ContactSolverStatistics s =
      solver->Solve(problem, Eigen::VectorXd(), Eigen::VectorXd(), &solution);
  const double residual = ExampleNcpResidual(problem, solution);
  const std::string name = "random(30 bodies, 60 contacts, seed 1)";
  if (options.json) {
    std::cout << ExampleJson(name, problem, s, residual).str() << "\n";
    return s.converged() ? 0 : 1;
  }
  std::printf("%s on a built-in random problem (no FCLIB file given)\n",
              ToString(s.solver).c_str());
  PrintSolveTableHeader();
  PrintSolveTableRow(name, "random", problem.num_dofs(), problem.num_constraints(), s,
                     residual);
  PrintSolveTableFootnote(options.solver);
  return s.converged() ? 0 : 1;
}

}  // namespace

int RunSolveCommand(const std::vector<std::string>& arguments) {
  const SolveOptions options = ParseSolveOptions(arguments);
  const bool one_file = !options.example && !std::filesystem::is_directory(options.input);
  if (!options.output.empty() && !one_file) {
    throw UsageError("--output writes the solution of one FCLIB file, not of " +
                     std::string(options.example ? "--example" : "a directory"));
  }
  if (options.example) return SolveExample(options);
  if (!one_file) {
    if (options.json) throw UsageError("--json prints one problem; give one FCLIB file");
    return SolveDirectory(options);
  }
  return SolveOneFile(options);
}

}  // namespace coulomb
