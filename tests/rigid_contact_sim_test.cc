// Time stepping with the exact-NCP solvers (rigid Signorini–Coulomb
// contact, docs/math.md §4): the same physics checks as for SAP, without SAP's
// compliance.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include <gtest/gtest.h>

#include "coulomb/scenes/builtin_scenes.h"
#include "coulomb/sim/simulation.h"
#include "coulomb/sim/time_stepper.h"

namespace coulomb {
namespace {

constexpr double kGravity = 9.81;

// A 1 kg box sliding at v0 = 1 m/s on the ground with μ = 0.5 for 0.4 s
// (it stops at 0.204 s). Returns the system after the run.
MultibodySystem SlideBox(ContactSolverKind solver, double* max_residual) {
  MultibodySystem system;
  ContactMaterial material;
  material.friction = 0.5;
  system.AddStaticGeometry(HalfSpace{}, Eigen::Isometry3d::Identity(), material);
  Eigen::Isometry3d pose = Eigen::Isometry3d::Identity();
  pose.translation() = Eigen::Vector3d(0, 0, 0.05);
  system.AddFreeBody("box", Box{{0.2, 0.2, 0.1}}, 1.0, pose, Eigen::Vector3d(1.0, 0, 0),
                     Eigen::Vector3d::Zero(), material);
  TimeStepperParameters parameters;
  parameters.time_step = 1e-3;
  parameters.solver.kind = solver;
  TimeStepper stepper(parameters);
  *max_residual = 0.0;
  for (int n = 0; n < 400; ++n) {
    const StepStatistics stats = stepper.Step(&system);
    EXPECT_TRUE(stats.converged) << stats.failure;
    *max_residual = std::max(*max_residual, stats.ncp_residual);
  }
  return system;
}

TEST(RigidContact, CanalAndPgsSlideTheBoxTheCoulombDistanceWithoutPenetrating) {
  // PGS within its 100 sweeps per step: with the scalar local step its fixed
  // points are Coulomb's law (with W_ii⁻¹ it stopped the box ~10 % late).
  for (ContactSolverKind solver : {ContactSolverKind::kCanal, ContactSolverKind::kPgs}) {
    double max_residual = 0.0;
    const MultibodySystem system = SlideBox(solver, &max_residual);
    const double expected = 1.0 / (2 * 0.5 * kGravity);  // v0²/(2 μ g)
    // O(δt) discretization only: no compliance, no regularized stiction.
    EXPECT_NEAR(system.tree(0).q[0], expected, 0.01 * expected) << ToString(solver);
    // Exact stiction once stopped.
    EXPECT_LT(std::abs(system.tree(0).v[0]), 1e-9) << ToString(solver);
    // Rigid: no resting penetration.
    EXPECT_NEAR(system.tree(0).q[2], 0.05, 1e-6) << ToString(solver);
    EXPECT_LT(max_residual, 1e-6) << ToString(solver);
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

}  // namespace
}  // namespace coulomb
