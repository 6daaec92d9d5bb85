#include "coulomb/cli/fclib_sap_run.h"

#include "coulomb/fclib/hdf5_file.h"

namespace coulomb {

FclibSapRun SolveFclibWithSap(const FclibProblem& fclib,
                              const FclibContactProblem& mapped,
                              const SapSolverParameters& parameters) {
  FclibSapRun run;
  SapSolver solver(parameters);
  SapSolution solution;
  run.statistics = solver.Solve(mapped.problem, Eigen::VectorXd(), &solution);
  run.wall_time_s = run.statistics.total_time_s;
  run.num_dofs = mapped.problem.num_dofs();
  run.w_relative_asymmetry = mapped.w_relative_asymmetry;
  run.r = ToFclibContactOrder(solution.gamma);
  run.residual = CalcNaturalMapResidual(fclib, run.r);
  run.u = run.residual.u;
  if (fclib.kind == FclibProblem::Kind::kGlobal)
    run.v = ToFclibDofOrder(mapped, solution.v);
  return run;
}

void WriteFclibSolution(const std::string& path, const FclibProblem& fclib,
                        const FclibSapRun& run) {
  Hdf5File file(path, Hdf5File::Mode::kCreate);
  file.WriteDoubles("/solution/r", run.r);
  file.WriteDoubles("/solution/u", run.u);
  if (fclib.kind == FclibProblem::Kind::kGlobal) file.WriteDoubles("/solution/v", run.v);
}

}  // namespace coulomb
