// Joint limits and PD controllers in simulation, on the one-link pendulum of
// test_support (bob 2 kg at l = 0.5 m, I_hinge = 0.1 + 2·0.25 = 0.6 kg·m²):
// the gravity torque is −m g l sin q whatever the sign convention of q.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <numbers>

#include <gtest/gtest.h>

#include "coulomb/sim/time_stepper.h"
#include "test_support.h"

namespace coulomb {
namespace {

constexpr double kMgl = 2.0 * 9.81 * 0.5;  // m g l [N·m]

MultibodySystem Pendulum(double q0, double v0) {
  const std::filesystem::path path = std::filesystem::temp_directory_path() /
                                     ("pendulum_" + std::to_string(getpid()) + ".urdf");
  testing::WritePendulumUrdf(path.string());
  MultibodyTree model = MultibodyTree::FromUrdf(path.string(), /*floating_base=*/false);
  std::filesystem::remove(path);
  MultibodySystem system;
  system.AddRobot("pendulum", std::move(model), Eigen::VectorXd::Constant(1, q0),
                  Eigen::VectorXd::Constant(1, v0), ContactMaterial{});
  return system;
}

// Runs for `duration` and returns the largest q seen.
double Simulate(MultibodySystem* system, double duration, double dt = 1e-3,
                ContactSolverKind solver = ContactSolverKind::kSap) {
  TimeStepperParameters parameters;
  parameters.time_step = dt;
  parameters.solver.kind = solver;
  TimeStepper stepper(parameters);
  double max_q = system->tree(0).q[0];
  for (int n = 0; n < std::lround(duration / dt); ++n) {
    const StepStatistics stats = stepper.Step(system);
    EXPECT_TRUE(stats.converged) << stats.failure;
    if (!stats.converged) break;
    max_q = std::max(max_q, system->tree(0).q[0]);
  }
  return max_q;
}

TEST(JointLimits, UrdfLimitsAreEnforcedByDefault) {
  MultibodySystem system = Pendulum(0.0, 0.0);
  ASSERT_EQ(system.tree(0).limits.size(), 1u);
  EXPECT_EQ(system.tree(0).limits[0].lower, -3.0);  // from the fixture's URDF
  EXPECT_EQ(system.tree(0).limits[0].upper, 3.0);
  EXPECT_THROW(system.SetJointLimits(0, "hinge", 1.0, -1.0), std::invalid_argument);
  EXPECT_THROW(system.SetJointLimits(0, "elbow", -1.0, 1.0), std::invalid_argument);
}

TEST(JointLimits, SwingingPendulumStopsAtItsLimit) {
  // Unlimited it would swing to acos(1 − ½ I ω² / (m g l)) = 0.760 rad.
  const double free_swing = std::acos(1.0 - 0.5 * 0.6 * 9.0 / kMgl);
  MultibodySystem unlimited = Pendulum(0.0, 3.0);
  EXPECT_NEAR(Simulate(&unlimited, 0.6), free_swing, 5e-3);
  MultibodySystem limited = Pendulum(0.0, 3.0);
  limited.SetJointLimits(0, "hinge", -3.0, 0.5);
  const double max_q = Simulate(&limited, 0.6);
  // Near-rigid: the limit is reached and overshot by far less than a mrad
  // (the regularization lets it in by ~ g δt²-scale amounts).
  EXPECT_GT(max_q, 0.5 - 1e-3);
  EXPECT_LT(max_q, 0.5 + 1e-3);
}

TEST(JointLimits, PendulumRestsAgainstItsLimitUnderGravity) {
  MultibodySystem system = Pendulum(-0.3, 0.0);  // gravity pulls it towards 0
  system.SetJointLimits(0, "hinge", -3.0, -0.3);
  Simulate(&system, 1.0);
  EXPECT_NEAR(system.tree(0).q[0], -0.3, 1e-4);
  EXPECT_NEAR(system.tree(0).v[0], 0.0, 1e-4);
}

// The NCP solvers take a joint limit as AL §III-B's hard law 0 ≤ λ ⊥ u ≥ 0
// (a frictionless contact in ContactNcp): exact, no regularization.
TEST(JointLimits, NcpSolversStopThePendulumAtItsLimitAndHoldItThere) {
  for (const ContactSolverKind solver :
       {ContactSolverKind::kCanal, ContactSolverKind::kSubAdmm,
        ContactSolverKind::kPgs}) {
    MultibodySystem swinging = Pendulum(0.0, 3.0);
    swinging.SetJointLimits(0, "hinge", -3.0, 0.5);
    const double max_q = Simulate(&swinging, 0.6, 1e-3, solver);
    EXPECT_GT(max_q, 0.5 - 1e-3) << ToString(solver);
    EXPECT_LT(max_q, 0.5 + 1e-3) << ToString(solver);
    MultibodySystem resting = Pendulum(-0.3, 0.0);
    resting.SetJointLimits(0, "hinge", -3.0, -0.3);
    Simulate(&resting, 1.0, 1e-3, solver);
    EXPECT_NEAR(resting.tree(0).q[0], -0.3, 1e-4) << ToString(solver);
    EXPECT_NEAR(resting.tree(0).v[0], 0.0, 1e-4) << ToString(solver);
  }
}

// Newton on kp (q_d − q) = m g l sin q: the PD's static error under gravity.
double PdEquilibrium(double kp, double target) {
  double q = target;
  for (int i = 0; i < 50; ++i) {
    q -= (kp * (target - q) - kMgl * std::sin(q)) / (-kp - kMgl * std::cos(q));
  }
  return q;
}

// The pendulum held at 0.5 rad by a PD controller (kp 200, kd 20), after 3 s.
MultibodySystem HeldPendulum(ContactSolverKind solver) {
  MultibodySystem system = Pendulum(0.0, 0.0);
  system.AddJointPdController(
      0, "hinge",
      {.proportional_gain = 200.0, .derivative_gain = 20.0, .target_position = 0.5});
  Simulate(&system, 3.0, 1e-3, solver);
  return system;
}

// m g l sin(0.5) = 4.7 N·m > u_max = 2 N·m: the arm sags to the angle where
// gravity equals the limit, asin(u_max / (m g l)) (a joint damper settles it;
// saturated, the controller's own damping is gone). Returns q after 6 s.
double SaggedAngle(ContactSolverKind solver) {
  MultibodySystem system = Pendulum(0.5, 0.0);
  system.AddJointPdController(0, "hinge",
                              {.proportional_gain = 200.0,
                               .derivative_gain = 20.0,
                               .target_position = 0.5,
                               .effort_limit = 2.0});
  system.AddJointSpringDamper(0, "hinge", 0.0, 0.0, 5.0);  // ζ ≈ 1
  Simulate(&system, 6.0, 1e-3, solver);
  return system.tree(0).q[0];
}

TEST(PdController, HoldsAPoseAgainstGravityWithTheStaticPdError) {
  const MultibodySystem system = HeldPendulum(ContactSolverKind::kSap);
  EXPECT_NEAR(system.tree(0).q[0], PdEquilibrium(200.0, 0.5), 1e-6);
  EXPECT_NEAR(system.tree(0).v[0], 0.0, 1e-6);
}

TEST(PdController, SaturatesWhenTheLoadExceedsTheEffortLimit) {
  EXPECT_NEAR(SaggedAngle(ContactSolverKind::kSap), std::asin(2.0 / kMgl), 1e-5);
}

// The NCP solvers take a PD controller as AL §III-B's soft law
// λ = δt clamp(a − b v, ±u_max): the same static error and saturation angle.
TEST(PdController, NcpSolversHoldThePoseAndSaturateLikeSap) {
  for (const ContactSolverKind solver :
       {ContactSolverKind::kCanal, ContactSolverKind::kSubAdmm,
        ContactSolverKind::kPgs}) {
    const MultibodySystem holding = HeldPendulum(solver);
    EXPECT_NEAR(holding.tree(0).q[0], PdEquilibrium(200.0, 0.5), 1e-6)
        << ToString(solver);
    EXPECT_NEAR(holding.tree(0).v[0], 0.0, 1e-6) << ToString(solver);
    EXPECT_NEAR(SaggedAngle(solver), std::asin(2.0 / kMgl), 1e-5) << ToString(solver);
  }
}

TEST(Armature, AddsToTheJointsDiagonalOfTheMassMatrix) {
  MultibodySystem system = Pendulum(0.3, 0.0);
  MultibodyTree& model = system.tree(0).model;
  model.SetState(system.tree(0).q, system.tree(0).v);
  const double bare = model.mass_matrix()(0, 0);
  EXPECT_NEAR(bare, 0.6, 1e-12);  // I_hinge of the pendulum
  model.SetJointArmature("hinge", 0.25);
  model.SetState(system.tree(0).q, system.tree(0).v);
  EXPECT_NEAR(model.mass_matrix()(0, 0), bare + 0.25, 1e-12);
  EXPECT_EQ(model.joint_armature("hinge"), 0.25);
  EXPECT_THROW(model.SetJointArmature("hinge", -1.0), std::invalid_argument);
  EXPECT_THROW(model.SetJointArmature("hinge", std::nan("")), std::invalid_argument);
  EXPECT_THROW(model.SetJointArmature("elbow", 1.0), std::invalid_argument);
}

// Time of the first downward zero crossing of q, linearly interpolated.
double QuarterPeriod(MultibodySystem* system, double dt) {
  TimeStepperParameters parameters;
  parameters.time_step = dt;
  parameters.scheme = Scheme::kMidpoint;
  TimeStepper stepper(parameters);
  for (int n = 0; n < 10000; ++n) {
    const double before = system->tree(0).q[0];
    EXPECT_TRUE(stepper.Step(system).converged);
    const double after = system->tree(0).q[0];
    if (after <= 0.0) return (n + before / (before - after)) * dt;
  }
  return std::nan("");
}

TEST(Armature, SlowsThePendulumAsTheReflectedInertiaSays) {
  // Small swings: ω = √(m g l / (I_hinge + I_a)); q0 = 0.02 rad keeps the
  // large-amplitude correction (1 + q0²/16) below 3e-5.
  const double armature = 0.6;  // doubles the hinge inertia: period × √2
  MultibodySystem plain = Pendulum(0.02, 0.0);
  MultibodySystem geared = Pendulum(0.02, 0.0);
  geared.tree(0).model.SetJointArmature("hinge", armature);
  const double quarter = std::numbers::pi / 2.0;
  EXPECT_NEAR(QuarterPeriod(&plain, 1e-3), quarter / std::sqrt(kMgl / 0.6), 1e-3);
  EXPECT_NEAR(QuarterPeriod(&geared, 1e-3), quarter / std::sqrt(kMgl / (0.6 + armature)),
              1e-3);
}

}  // namespace
}  // namespace coulomb
