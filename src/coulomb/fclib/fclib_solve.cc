#include "coulomb/fclib/fclib_solve.h"

#include <utility>
#include <vector>

#include "coulomb/fclib/skew_refinement.h"
#include "coulomb/io/hdf5_file.h"

namespace coulomb {
namespace {

// Statistics of the refinement passes together: iterations and time summed,
// the history concatenated, the status and residuals of the last pass.
void Accumulate(ContactSolverStatistics pass, ContactSolverStatistics* total) {
  pass.iterations += total->iterations;
  pass.inner_iterations += total->inner_iterations;
  pass.inner_solves += total->inner_solves;
  pass.inner_failures += total->inner_failures;
  pass.fallback_iterations += total->fallback_iterations;
  pass.total_time_s += total->total_time_s;
  std::vector<NcpIterationRecord> history = std::move(total->ncp_history);
  history.insert(history.end(), pass.ncp_history.begin(), pass.ncp_history.end());
  pass.ncp_history = std::move(history);
  *total = std::move(pass);
}

// SAP and the dual solvers solve a regularized problem (the dual of SAP's,
// or the CCP): refining on W − J Jᵀ cannot bring the rigid residual down.
bool SolvesTheRigidNcp(ContactSolverKind kind) {
  return kind != ContactSolverKind::kSap && kind != ContactSolverKind::kDual &&
         kind != ContactSolverKind::kDualCcp;
}

}  // namespace

FclibRun SolveFclibProblem(const FclibProblem& fclib, const FclibContactProblem& mapped,
                           const ContactSolverOptions& options) {
  FclibRun run;
  run.num_dofs = mapped.problem.num_dofs();
  run.w_relative_asymmetry = mapped.w_relative_asymmetry;
  if (fclib.kind == FclibProblem::Kind::kLocal)
    run.w_factor = mapped.sparse_factor ? "block-sparse" : "dense";
  run.w_model_error = mapped.w_model_error;
  const std::unique_ptr<ContactSolver> solver =
      MakeContactSolver(options, SolverUse::kSingleProblem);
  ContactSolution solution;
  if (!SolvesTheRigidNcp(options.kind)) {
    run.statistics =
        solver->Solve(mapped.problem, Eigen::VectorXd(), Eigen::VectorXd(), &solution);
    run.r = ToFclibContactOrder(solution.impulses);
    run.residual = CalcNaturalMapResidual(fclib, run.r);
  } else {
    const auto solve = [&](const FclibContactProblem& problem,
                           const Eigen::VectorXd& lambda_guess) {
      Accumulate(
          solver->Solve(problem.problem, Eigen::VectorXd(), lambda_guess, &solution),
          &run.statistics);
      return solution.impulses;
    };
    const double tolerance = options.ncp.tolerance;
    SkewRefinement refined = SolveWithSkewRefinement(fclib, mapped, tolerance,
                                                     kMaxSkewRefinementPasses, solve);
    run.r = std::move(refined.r);
    run.residual = std::move(refined.residual);
    run.skew_passes = refined.passes;
  }
  run.u = run.residual.u;
  if (fclib.kind == FclibProblem::Kind::kGlobal) {
    run.v = ToFclibDofOrder(mapped, solution.v);
  }
  return run;
}

void WriteFclibSolution(const std::string& path, const FclibProblem& fclib,
                        const FclibRun& run) {
  Hdf5File file(path, Hdf5File::Mode::kCreate);
  file.WriteDoubles("/solution/r", run.r);
  file.WriteDoubles("/solution/u", run.u);
  if (fclib.kind == FclibProblem::Kind::kGlobal) file.WriteDoubles("/solution/v", run.v);
}

}  // namespace coulomb
