// Time stepping with the exact-NCP solvers (rigid Signorini–Coulomb
// contact, docs/math.md §4): the same physics checks as for SAP, without SAP's
// compliance.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "coulomb/scenes/builtin_scenes.h"
#include "coulomb/sim/simulation.h"
#include "coulomb/sim/time_stepper.h"

namespace coulomb {
namespace {

constexpr double kGravity = 9.81;

// A 1 kg box sliding at v0 = 1 m/s on the ground with μ = 0.5 for 0.4 s
// (it stops at 0.204 s). Returns the system after the run, the largest NCP
// residual of a step and the largest rise of the mechanical energy in a step.
struct SlideResult {
  MultibodySystem system;
  double max_residual = 0.0;
  double max_energy_rise = 0.0;
};
SlideResult SlideBox(ContactSolverKind solver, Scheme scheme) {
  SlideResult result;
  MultibodySystem& system = result.system;
  ContactMaterial material;
  material.friction = 0.5;
  system.AddStaticGeometry(HalfSpace{}, Eigen::Isometry3d::Identity(), material);
  Eigen::Isometry3d pose = Eigen::Isometry3d::Identity();
  pose.translation() = Eigen::Vector3d(0, 0, 0.05);
  system.AddFreeBody("box", Box{{0.2, 0.2, 0.1}}, 1.0, pose, Eigen::Vector3d(1.0, 0, 0),
                     Eigen::Vector3d::Zero(), material);
  TimeStepperParameters parameters;
  parameters.time_step = 1e-3;
  parameters.scheme = scheme;
  parameters.solver.kind = solver;
  TimeStepper stepper(parameters);
  system.UpdateAllTrees();
  double energy = system.MechanicalEnergy();
  for (int n = 0; n < 400; ++n) {
    const StepStatistics stats = stepper.Step(&system);
    EXPECT_TRUE(stats.converged) << stats.failure;
    result.max_residual = std::max(result.max_residual, stats.ncp_residual);
    system.UpdateAllTrees();
    result.max_energy_rise =
        std::max(result.max_energy_rise, system.MechanicalEnergy() - energy);
    energy = system.MechanicalEnergy();
  }
  return result;
}

TEST(RigidContact, NcpSolversSlideTheBoxTheCoulombDistanceWithoutPenetrating) {
  // Every exact-NCP solver within its per-step budget, with symplectic Euler
  // and the midpoint rule. PGS with its scalar local step: its fixed points
  // are Coulomb's law (with W_ii⁻¹ it stopped the box ~10 % late).
  for (Scheme scheme : {Scheme::kSymplecticEuler, Scheme::kMidpoint}) {
    for (ContactSolverKind solver :
         {ContactSolverKind::kCanal, ContactSolverKind::kSubAdmm,
          ContactSolverKind::kPgs}) {
      const std::string name = ToString(solver) + ", " + ToString(scheme);
      const SlideResult slide = SlideBox(solver, scheme);
      const Eigen::VectorXd& q = slide.system.tree(0).q;
      const double expected = 1.0 / (2 * 0.5 * kGravity);  // v0²/(2 μ g)
      // O(δt) discretization only: no compliance, no regularized stiction.
      EXPECT_NEAR(q[0], expected, 0.01 * expected) << name;
      // Exact stiction once stopped.
      EXPECT_LT(std::abs(slide.system.tree(0).v[0]), 1e-9) << name;
      // Rigid: no resting penetration.
      EXPECT_NEAR(q[2], 0.05, 1e-6) << name;
      EXPECT_LT(slide.max_residual, 1e-6) << name;
      // Friction only dissipates. A step's velocities are exact up to the
      // solver tolerance (natural-map residual 1e-8 at speeds of ~1 m/s:
      // δv ≲ 1e-8 m/s), whose energy is at most m |v| δv ≈ 1e-8 J.
      EXPECT_LE(slide.max_energy_rise, 1e-8) << name;
    }
  }
}

// A ball dropped 5 cm onto the ground under CANAL, its contacts built by
// `model`; returns the ball's height after 0.5 s.
double DroppedBallHeight(ContactModel model) {
  MultibodySystem system;
  ContactMaterial material;
  material.stiffness = 1e6;
  system.AddStaticGeometry(HalfSpace{}, Eigen::Isometry3d::Identity(), material);
  Eigen::Isometry3d pose = Eigen::Isometry3d::Identity();
  pose.translation() = Eigen::Vector3d(0, 0, 0.15);
  system.AddFreeBody("ball", Sphere{0.1}, 1.0, pose, Eigen::Vector3d::Zero(),
                     Eigen::Vector3d::Zero(), material);
  TimeStepperParameters parameters;
  parameters.solver.kind = ContactSolverKind::kCanal;
  parameters.contact.model = model;
  TimeStepper stepper(parameters);
  for (int step = 0; step < 50; ++step) {
    const StepStatistics stats = stepper.Step(&system);
    EXPECT_TRUE(stats.converged) << stats.failure;
  }
  system.UpdateAllTrees();
  return system.tree(0).model.body_pose(0).translation().z();
}

TEST(RigidContact, NcpSolversTakeTheRigidLawOfAnyContactModel) {
  // The NCP solvers read each contact's rigid law (μ and the position
  // feedback φ0/(δt + τ_d)), so Hunt & Crossley contacts become the same
  // rigid contacts as SAP's: the ball comes to rest on the surface (no
  // compliance: height = radius up to the solver tolerance) whichever model
  // built the contacts, and the two runs agree.
  const double sap = DroppedBallHeight(ContactModel::kSap);
  const double lagged = DroppedBallHeight(ContactModel::kLagged);
  const double similar = DroppedBallHeight(ContactModel::kSimilar);
  EXPECT_NEAR(sap, 0.1, 1e-6);
  EXPECT_NEAR(lagged, sap, 1e-9);
  EXPECT_NEAR(similar, sap, 1e-9);
}

// Median NCP residual and mean iterations over the last second of 16
// clutter bodies settling for 2 s under SubADMM's 100-iteration budget per
// step (tolerance 1e-9 on the residual).
struct SettledClutter {
  double residual = NAN;
  double iterations = NAN;
};
SettledClutter SettleClutter(bool warm_start) {
  Scene scene = MakeBuiltinScene("clutter", {{"bodies", "16"}});
  scene.parameters.solver.kind = ContactSolverKind::kSubAdmm;
  scene.parameters.ncp_warm_start = warm_start;
  scene.duration = 2.0;
  std::vector<double> residuals;
  double iterations = 0.0;
  Simulation simulation(std::move(scene));
  const SimulationSummary summary =
      simulation.Run({}, [&](const TimeStepper&, const StepRecord& record) {
        if (record.time <= 1.0) return;
        residuals.push_back(record.statistics.ncp_residual);
        iterations += record.statistics.iterations;
      });
  EXPECT_EQ(summary.failed_steps, 0) << summary.failure;
  if (residuals.empty()) return {};
  std::sort(residuals.begin(), residuals.end());
  return {residuals[residuals.size() / 2], iterations / residuals.size()};
}

TEST(RigidContact, WarmStartFromThePreviousImpulsesMakesRestingContactAccurate) {
  // Resting contacts keep their impulses from step to step: started from
  // them, SubADMM reaches the tolerance in a fraction of the iterations.
  const SettledClutter warm = SettleClutter(true);
  const SettledClutter cold = SettleClutter(false);
  std::printf(
      "SubADMM at rest: median NCP residual %.1e warm, %.1e cold; mean "
      "iterations %.1f warm, %.1f cold\n",
      warm.residual, cold.residual, warm.iterations, cold.iterations);
  EXPECT_LT(warm.residual, 1e-5);
  EXPECT_LT(warm.iterations, 0.5 * cold.iterations);
}

// 8 clutter bodies landing for 1 s under CANAL with `budget` outer
// iterations per step: the run's summary, its warnings and, per step,
// whether the solver's own residual is above its tolerance (independently of
// the ended_at_budget flag under test).
struct BudgetRun {
  SimulationSummary summary;
  std::vector<std::string> warnings;
  int steps_above_tolerance = 0;
  int flags_disagreeing = 0;  // ended_at_budget ≠ (residual > tolerance)
};
BudgetRun RunClutterWithBudget(ContactSolverKind solver, int budget) {
  Scene scene = MakeBuiltinScene("clutter", {{"bodies", "8"}});
  scene.parameters.solver.kind = solver;
  scene.parameters.solver.ncp.max_iterations = budget;
  scene.duration = 1.0;
  const double tolerance = scene.parameters.solver.ncp.tolerance;
  BudgetRun run;
  Simulation simulation(std::move(scene));
  run.summary = simulation.Run({}, [&](const TimeStepper&, const StepRecord& record) {
    const bool above = record.statistics.ncp_residual > tolerance;
    run.steps_above_tolerance += above;
    run.flags_disagreeing += above != record.statistics.ended_at_budget;
  });
  run.warnings = simulation.RunWarnings(run.summary);
  return run;
}

TEST(RigidContact, StepsAcceptedAtTheBudgetUnsolvedAreCountedAndWarnedOf) {
  // Two outer iterations leave most landing steps unsolved: each is flagged,
  // counted, and the run warns with the count and the budget.
  const BudgetRun short_budget = RunClutterWithBudget(ContactSolverKind::kCanal, 2);
  ASSERT_EQ(short_budget.summary.failed_steps, 0) << short_budget.summary.failure;
  EXPECT_GT(short_budget.steps_above_tolerance, 10);
  EXPECT_EQ(short_budget.flags_disagreeing, 0);
  EXPECT_EQ(short_budget.summary.budget_ended_steps, short_budget.steps_above_tolerance);
  ASSERT_EQ(short_budget.warnings.size(), 1u);
  const std::string expected =
      std::to_string(short_budget.steps_above_tolerance) + " of " +
      std::to_string(short_budget.summary.steps) +
      " steps ended canal's budget of 2 iterations above its tolerance";
  EXPECT_EQ(short_budget.warnings[0].rfind(expected, 0), 0u) << short_budget.warnings[0];
  // With room to converge, fewer steps end unsolved, and the flag still
  // says which; SAP has no budget (a step it does not solve fails).
  const BudgetRun long_budget = RunClutterWithBudget(ContactSolverKind::kCanal, 200);
  EXPECT_LT(long_budget.steps_above_tolerance, short_budget.steps_above_tolerance);
  EXPECT_EQ(long_budget.flags_disagreeing, 0);
  EXPECT_EQ(long_budget.summary.budget_ended_steps, long_budget.steps_above_tolerance);
  const BudgetRun sap = RunClutterWithBudget(ContactSolverKind::kSap, 2);
  EXPECT_EQ(sap.summary.budget_ended_steps, 0);
  EXPECT_TRUE(sap.warnings.empty());
}

// The dish pile (a 5 kg pot on three 0.1 kg cylinders): SAP's near-rigid
// contact and CANAL's rigid contact both keep it at rest; neither may add
// energy (it once grew 58 % in 0.5 s under SAP, when cylinder patches carried
// one depth for all their points).
TEST(DishPile, StaysAtRestWithoutGainingEnergyUnderSapAndCanal) {
  for (ContactSolverKind solver : {ContactSolverKind::kSap, ContactSolverKind::kCanal}) {
    Scene scene = MakeBuiltinScene("dish_pile");
    scene.parameters.solver.kind = solver;
    Simulation simulation(std::move(scene));
    const SimulationSummary summary = simulation.Run();
    ASSERT_TRUE(summary.failure.empty()) << summary.failure;
    for (const StepRecord& record : simulation.records()) {
      EXPECT_LT(record.energy, summary.energy_initial + 1e-6) << ToString(solver);
    }
    EXPECT_LT(summary.penetration_max, 1e-3) << ToString(solver);
    EXPECT_LT(simulation.scene().system.tree(3).v.norm(), 1e-2) << ToString(solver);
  }
}

// SubADMM's results do not depend on its thread count (every task writes
// only its own subsystem's or constraint's data): 16 clutter bodies for
// 0.5 s give the same trajectory, bit for bit, on 1, 2 and 4 threads.
TEST(RigidContact, SubAdmmTrajectoriesAreTheSameOnAnyNumberOfThreads) {
  SampleRows reference;
  for (int threads : {1, 2, 4}) {
    Scene scene = MakeBuiltinScene("clutter", {{"bodies", "16"}});
    scene.parameters.solver.kind = ContactSolverKind::kSubAdmm;
    scene.parameters.solver.threads = threads;
    scene.duration = 0.5;
    Simulation simulation(std::move(scene));
    const SimulationSummary summary = simulation.Run();
    ASSERT_EQ(summary.failed_steps, 0) << summary.failure;
    const SampleRows& q = simulation.trajectory().q;
    if (reference.empty()) {
      reference = q;
      continue;
    }
    ASSERT_EQ(q.size(), reference.size());
    for (size_t n = 0; n < q.size(); ++n) {
      ASSERT_TRUE(q[n] == reference[n]) << threads << " threads differ at sample " << n;
    }
  }
}

}  // namespace
}  // namespace coulomb
