// Two runs of the same input give bitwise-identical trajectories, for every
// solver and any thread count (the thread pool splits work, never the order
// of a floating-point sum).
#include <functional>

#include <gtest/gtest.h>

#include "coulomb/coulomb.h"
#include "coulomb/scenes/builtin_scenes.h"

namespace coulomb {
namespace {

using SceneMaker = std::function<Scene()>;

// The stacked q after `duration` of a new scene under `solver` with `threads`.
Eigen::VectorXd FinalState(const SceneMaker& make, ContactSolverKind solver, int threads,
                           double duration) {
  Scene scene = make();
  scene.parameters.solver.kind = solver;
  scene.parameters.solver.threads = threads;
  // SAP's islands on the pool whatever their size: these scenes are small.
  scene.parameters.solver.sap.parallel_min_constraints = 0;
  Simulation simulation(std::move(scene));
  simulation.set_recording(false);
  const SimulationSummary summary = simulation.RunFor(duration);
  EXPECT_EQ(summary.failed_steps, 0) << summary.failure;
  return simulation.q();
}

void ExpectDeterministic(const SceneMaker& scene, double duration) {
  for (ContactSolverKind solver :
       {ContactSolverKind::kSap, ContactSolverKind::kCanal, ContactSolverKind::kSubAdmm,
        ContactSolverKind::kSubAdmmNoBody, ContactSolverKind::kAdmm,
        ContactSolverKind::kPgs}) {
    const Eigen::VectorXd reference = FinalState(scene, solver, 1, duration);
    for (int threads : {1, 2, 4}) {
      const Eigen::VectorXd q = FinalState(scene, solver, threads, duration);
      // Bitwise: no tolerance.
      EXPECT_TRUE(q == reference) << ToString(solver) << " with " << threads
                                  << " threads differs by " << (q - reference).norm();
    }
  }
}

TEST(Determinism, ClutterIsBitwiseRepeatableForEverySolverAndThreadCount) {
  ExpectDeterministic([] { return MakeBuiltinScene("clutter", {}); }, 0.5);
}

// SAP's line searches run island by island on the thread pool: a grid of
// columns falls apart into dozens of islands, searched at once.
TEST(Determinism, SapOnManyIslandsIsBitwiseRepeatableForAnyThreadCount) {
  const SceneMaker grid = [] {
    return MakeBuiltinScene("clutter",
                            {{"bodies", "100"}, {"columns", "10"}, {"walls", "false"}});
  };
  const Eigen::VectorXd reference = FinalState(grid, ContactSolverKind::kSap, 1, 1.0);
  for (int threads : {2, 4}) {
    const Eigen::VectorXd q = FinalState(grid, ContactSolverKind::kSap, threads, 1.0);
    EXPECT_TRUE(q == reference)
        << threads << " threads differ by " << (q - reference).norm();
  }
}

TEST(Determinism, LaikagoDropIsBitwiseRepeatableForEverySolverAndThreadCount) {
  const SceneMaker laikagos = [] {
    return MakeBuiltinScene("laikago_drop", {{"robots", "2"}});
  };
  try {
    laikagos();
  } catch (const std::exception& error) {
    GTEST_SKIP() << "no robot models: " << error.what();
  }
  ExpectDeterministic(laikagos, 0.5);
}

}  // namespace
}  // namespace coulomb
