// The public C++ API (coulomb/coulomb.h): stepping, state, bodies, contacts,
// actuation and recording, checked against closed forms.
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <utility>

#include <gtest/gtest.h>

#include "coulomb/coulomb.h"
#include "coulomb/geometry/ray_cast.h"
#include "test_polytopes.h"

namespace coulomb {
namespace {

constexpr double kG = 9.81;

// A 2 kg ball of radius 0.1 m at height z above the ground, at rest.
Scene BallScene(double z) {
  Scene scene;
  scene.name = "ball";
  scene.system.AddStaticGeometry(HalfSpace{}, Eigen::Isometry3d::Identity(),
                                 ContactMaterial{});
  scene.system.AddFreeBody("ball", Sphere{0.1}, 2.0, Pose(Eigen::Vector3d(0, 0, z)),
                           Eigen::Vector3d::Zero(), Eigen::Vector3d::Zero(),
                           ContactMaterial{});
  return scene;
}

// A 3 kg body moving in the x–z plane (joints x, z, theta), no geometry.
Scene PlanarScene() {
  Scene scene;
  scene.system.AddTree(
      "slider", MultibodyTree::PlanarBody("slider", 3.0, Eigen::Matrix3d::Identity()),
      Eigen::Vector3d::Zero(), Eigen::Vector3d::Zero());
  return scene;
}

TEST(SimulationApi, StepsFreeFallAsTheSymplecticEulerRecurrence) {
  Simulation sim(BallScene(10.0));
  const double dt = sim.time_step();
  for (int n = 1; n <= 20; ++n) ASSERT_TRUE(sim.Step().converged);
  // v_n = −n g δt, z_n = z_0 − g δt² n(n+1)/2.
  const BodyState ball = sim.body_state("ball");
  EXPECT_NEAR(ball.linear_velocity.z(), -20 * kG * dt, 1e-12);
  EXPECT_NEAR(ball.pose.translation().z(), 10.0 - kG * dt * dt * 20 * 21 / 2.0, 1e-12);
  EXPECT_NEAR(sim.time(), 20 * dt, 1e-12);
  EXPECT_TRUE(sim.contacts().empty());
}

TEST(SimulationApi, StateRoundTripsAndIsValidated) {
  Simulation sim(BallScene(1.0));
  Eigen::VectorXd q = sim.q(), v = sim.v();
  ASSERT_EQ(q.size(), 7);
  ASSERT_EQ(v.size(), 6);
  q.head<3>() << 0.5, -0.5, 2.0;
  q.segment<4>(3) << 0.0, 0.0, 2.0, 0.0;  // not unit: normalized
  v(0) = 1.5;
  sim.SetState(q, v);
  EXPECT_TRUE(
      sim.body_state("ball").pose.translation().isApprox(Eigen::Vector3d(0.5, -0.5, 2)));
  EXPECT_NEAR(sim.q().segment<4>(3).norm(), 1.0, 1e-15);
  EXPECT_NEAR(sim.v()(0), 1.5, 0.0);
  EXPECT_THROW(sim.SetState(q.head(6), v), std::invalid_argument);
  q(0) = NAN;
  EXPECT_THROW(sim.SetState(q, v), std::invalid_argument);
  EXPECT_THROW(sim.body_state("nothing"), std::invalid_argument);
}

// A state refused for its second body's quaternion changes the first body
// neither: the next step is the one an untouched twin takes, bit for bit.
TEST(SimulationApi, RefusedStateChangesNoBody) {
  const auto two_balls = [] {
    Scene scene = BallScene(1.0);
    scene.system.AddFreeBody("second", Sphere{0.1}, 1.0, Pose(Eigen::Vector3d(1, 0, 1)),
                             Eigen::Vector3d::Zero(), Eigen::Vector3d::Zero(),
                             ContactMaterial{});
    return scene;
  };
  Simulation sim(two_balls()), twin(two_balls());
  Eigen::VectorXd q = sim.q();
  q(0) += 0.5;                    // the ball moved ...
  q.segment<4>(7 + 3).setZero();  // ... and the second body's quaternion zero
  EXPECT_THROW(sim.SetState(q, sim.v()), std::invalid_argument);
  ASSERT_TRUE(sim.Step().converged);
  ASSERT_TRUE(twin.Step().converged);
  EXPECT_EQ(sim.q(), twin.q());
  EXPECT_EQ(sim.v(), twin.v());
}

TEST(SimulationApi, ContactImpulsesCarryTheWeightOfABodyAtRest) {
  Simulation sim(BallScene(0.1));
  for (int n = 0; n < 50; ++n) ASSERT_TRUE(sim.Step().converged);
  // At rest the contact impulses balance gravity over the step: Σγ = m g δt ẑ.
  Eigen::Vector3d total = Eigen::Vector3d::Zero();
  const std::vector<Contact> contacts = sim.contacts();
  ASSERT_FALSE(contacts.empty());
  for (const Contact& contact : contacts) {
    EXPECT_EQ(contact.body_a, "world");
    EXPECT_EQ(contact.body_b, "ball");
    EXPECT_TRUE(contact.normal.isApprox(Eigen::Vector3d::UnitZ(), 1e-12));
    EXPECT_NEAR(contact.point.z(), 0.0, 1e-3);
    total += contact.impulse;
  }
  EXPECT_NEAR(total.z(), 2.0 * kG * sim.time_step(), 1e-6 * 2.0 * kG * sim.time_step());
  EXPECT_NEAR(total.head<2>().norm(), 0.0, 1e-9);
}

TEST(SimulationApi, AJointEffortAcceleratesAsNewtonSays) {
  Scene scene = PlanarScene();
  Simulation sim(std::move(scene));
  sim.SetJointEffort("slider", "x", 6.0);  // F = 6 N on 3 kg: 2 m/s²
  const double dt = sim.time_step();
  for (int n = 0; n < 10; ++n) ASSERT_TRUE(sim.Step().converged);
  EXPECT_NEAR(sim.v()(0), 10 * 2.0 * dt, 1e-12);
  EXPECT_NEAR(sim.q()(0), 2.0 * dt * dt * 10 * 11 / 2.0, 1e-12);
}

// An effort without PD gains is a force in the free motion, not a
// constraint of the contact problem: clamped to the controller's effort
// limit, it accelerates the joint at u_max/m and reads back as u_max. With
// a damping gain the controller is implicit again: one constraint row.
TEST(SimulationApi, AnEffortAloneIsAForceClampedToItsLimitNotAConstraint) {
  Simulation sim(PlanarScene());
  sim.SetJointPdGains("slider", "x", 0.0, 0.0, /*effort_limit=*/4.5);
  sim.SetJointEffort("slider", "x", 6.0);  // clamped to 4.5 N on 3 kg: 1.5 m/s²
  const double dt = sim.time_step();
  for (int n = 0; n < 10; ++n) ASSERT_TRUE(sim.Step().converged);
  EXPECT_NEAR(sim.v()(0), 10 * 1.5 * dt, 1e-12);
  EXPECT_NEAR(sim.JointEfforts("slider")(0), 4.5, 1e-12);  // joints x, z, theta
  EXPECT_EQ(sim.last_contact_problem()->num_constraints(), 0);

  sim.SetJointPdGains("slider", "x", 0.0, 2.0, 4.5);  // u = clamp(6 − 2 v, ±4.5)
  ASSERT_TRUE(sim.Step().converged);
  EXPECT_EQ(sim.last_contact_problem()->num_constraints(), 1);
  EXPECT_NEAR(sim.JointEfforts("slider")(0), 4.5, 1e-12);  // 6 − 2 v > 4.5 still
}

// A PD controller on a joint steps as its law, implicit at the step's end:
//   m (v⁺ − v) = δt u,  u = clamp(Kp (q_d − q − δt v⁺) − Kd v⁺, ±u_max),
// q⁺ = q + δt v⁺, the effort read back that u. The law is monotone in v⁺:
// v⁺ is the unclamped root when its u lies within the limit, else
// v + δt u_max sign(u)/m. A step is solved with the controller folded into
// the free motion (no constraint) when its effort holds the limit, unless
// the effort at the step's start velocity, y0 = Kp (q_d − q) − (Kp δt + Kd)
// v, did not (then it is a constraint, and whether the limit binds is the
// solve's). Alone on a joint its implicit effort is smaller than y0, so y0
// predicts every step at which the limit binds (the next test has the
// steps a first, folded solve finds).
TEST(SimulationApi, APdControllerStepsAsItsImplicitLawFoldedWhileItsLimitHolds) {
  constexpr double kMass = 3.0, kKp = 40.0, kKd = 2.0, kTarget = 0.5;
  for (const double limit : {std::numeric_limits<double>::infinity(), 12.0}) {
    Simulation sim(PlanarScene());
    sim.SetJointPdGains("slider", "x", kKp, kKd, limit);
    sim.SetJointPdTarget("slider", "x", kTarget);
    const double dt = sim.time_step();
    double q = 0.0, v = 0.0;
    int saturated_steps = 0, folded_steps = 0;
    for (int n = 0; n < 80; ++n) {
      ASSERT_TRUE(sim.Step().converged);
      const double start_effort = kKp * (kTarget - q) - (kKp * dt + kKd) * v;
      const double v_unclamped =
          (v + dt / kMass * kKp * (kTarget - q)) / (1.0 + dt / kMass * (kKp * dt + kKd));
      double effort = kKp * (kTarget - q - dt * v_unclamped) - kKd * v_unclamped;
      const bool saturated = std::abs(effort) > limit;
      effort = std::clamp(effort, -limit, limit);
      v = saturated ? v + dt / kMass * effort : v_unclamped;
      q += dt * v;
      EXPECT_NEAR(sim.q()(0), q, 1e-12) << "step " << n << ", effort limit " << limit;
      EXPECT_NEAR(sim.v()(0), v, 1e-12) << "step " << n << ", effort limit " << limit;
      EXPECT_NEAR(sim.JointEfforts("slider")(0), effort, 1e-9)
          << "step " << n << ", effort limit " << limit;
      const bool predicted = std::abs(start_effort) > limit;
      const int constraints = sim.last_contact_problem()->num_constraints();
      EXPECT_EQ(constraints, saturated || predicted ? 1 : 0)
          << "step " << n << ", effort limit " << limit;
      saturated_steps += saturated;
      folded_steps += constraints == 0;
    }
    // The limit of 12 N binds at the start (Kp q_d = 20 N) and as the
    // lightly damped slider swings back, and holds in between.
    EXPECT_EQ(saturated_steps > 0, std::isfinite(limit));
    EXPECT_GT(folded_steps, 40) << "effort limit " << limit;
  }
}

// The slider driven by its PD controller (target 0.8 m, 12 N at most) into
// its upper limit at 0.3 m: the step at which the limit stops it starts
// with the effort inside the limit (y0 = Kp (q_d − q) − b v, the damping
// term large at speed) and ends outside it (v⁺ ≈ 0), so the folded solve
// crosses the limit and the step is solved again with the controller as a
// constraint. Every step balances momentum with the effort read back and
// the limit's impulse, m (v⁺ − v) = δt u + (Jᵀγ)_x, u within ±12 N: a
// step left with its folded effort beyond the limit would not (δt (y − u)
// apart). The step solved again reports both solves: its iterations are
// those of its first, folded solve (the same step with the limit lifted)
// and of its second (its last problem solved anew).
TEST(SimulationApi, AStepWhoseFoldedEffortCrossesItsLimitIsSolvedAgain) {
  constexpr double kMass = 3.0, kKp = 40.0, kKd = 20.0, kTarget = 0.8, kLimit = 12.0;
  Scene scene = PlanarScene();
  scene.system.SetJointLimits(0, "x", -1.0, 0.3);
  Simulation sim(std::move(scene));
  sim.SetJointPdGains("slider", "x", kKp, kKd, kLimit);
  sim.SetJointPdTarget("slider", "x", kTarget);
  const double dt = sim.time_step();
  int found_by_solve = 0, folded = 0;
  for (int n = 0; n < 100; ++n) {
    const double q = sim.q()(0), v = sim.v()(0);
    const double start_effort = kKp * (kTarget - q) - (kKp * dt + kKd) * v;
    const SimulationSnapshot before = sim.Snapshot();
    const StepStatistics stats = sim.Step();
    ASSERT_TRUE(stats.converged);
    const ContactProblem& problem = *sim.last_contact_problem();
    Eigen::VectorXd generalized = Eigen::VectorXd::Zero(problem.num_dofs());
    problem.AddJacobianTransposeTimes(sim.stepper().last_solution().impulses,
                                      &generalized);
    const double effort = sim.JointEfforts("slider")(0);
    const bool is_constraint =
        sim.stepper().last_controller_constraints()[0].constraint >= 0;
    // Jᵀγ holds the controller's impulse δt u when it is a constraint.
    const double controller_in_v_star = is_constraint ? 0.0 : dt * effort;
    EXPECT_NEAR(kMass * (sim.v()(0) - v), controller_in_v_star + generalized(0), 1e-6)
        << "step " << n;
    EXPECT_LE(std::abs(effort), kLimit + 1e-9) << "step " << n;
    const bool solved_again = is_constraint && std::abs(start_effort) <= kLimit;
    EXPECT_EQ(stats.contact_solves, solved_again ? 2 : 1) << "step " << n;
    if (solved_again) {
      // The second solve alone: the problem the step ended with, from the
      // step's warm start (its start velocities); the first: the same step
      // with the limit lifted (it folds, and no limit is crossed).
      ContactSolution second;
      const int second_iterations =
          MakeContactSolver(sim.scene().parameters.solver, SolverUse::kTimeStepping)
              ->Solve(problem, before.StackedVelocities(), Eigen::VectorXd(), &second)
              .iterations;
      const SimulationSnapshot after = sim.Snapshot();
      sim.Restore(before);
      sim.SetJointPdGains("slider", "x", kKp, kKd,
                          std::numeric_limits<double>::infinity());
      const StepStatistics folded_solve = sim.Step();
      EXPECT_EQ(folded_solve.contact_solves, 1);
      EXPECT_EQ(stats.iterations, folded_solve.iterations + second_iterations)
          << "step " << n;
      sim.Restore(after);  // the limit of 12 N again (a snapshot holds the gains)
    }
    found_by_solve += solved_again;
    folded += !is_constraint;
  }
  EXPECT_NEAR(sim.q()(0), 0.3, 2e-3);  // held at its limit
  EXPECT_GT(found_by_solve, 0);
  EXPECT_GT(folded, 0);
  // A run of the same 100 steps counts those steps in its summary.
  Scene same = PlanarScene();
  same.system.SetJointLimits(0, "x", -1.0, 0.3);
  Simulation run(std::move(same));
  run.SetJointPdGains("slider", "x", kKp, kKd, kLimit);
  run.SetJointPdTarget("slider", "x", kTarget);
  const SimulationSummary summary = run.RunFor(100 * dt);
  EXPECT_EQ(summary.steps, 100);
  EXPECT_EQ(summary.steps_solved_again, found_by_solve);

  // Whether a controller folds is decided from the step's start alone: a
  // run restored from a snapshot takes the same steps, to the bit, even
  // from the step after a saturated one (the target now 0.55: 10 N at the
  // limit), then back through saturation.
  sim.SetJointPdTarget("slider", "x", 0.55);
  const SimulationSnapshot snapshot = sim.Snapshot();
  for (int n = 0; n < 5; ++n) ASSERT_TRUE(sim.Step().converged);
  sim.SetJointPdTarget("slider", "x", -0.5);
  for (int n = 0; n < 60; ++n) ASSERT_TRUE(sim.Step().converged);
  const Eigen::VectorXd q_ahead = sim.q(), v_ahead = sim.v();
  sim.Restore(snapshot);
  for (int n = 0; n < 5; ++n) ASSERT_TRUE(sim.Step().converged);
  sim.SetJointPdTarget("slider", "x", -0.5);
  for (int n = 0; n < 60; ++n) ASSERT_TRUE(sim.Step().converged);
  EXPECT_EQ(sim.q(), q_ahead);
  EXPECT_EQ(sim.v(), v_ahead);
}

TEST(SimulationApi, AWorldWrenchOnAFreeBodyAcceleratesItAsNewtonAndEulerSay) {
  // A 2 kg ball (I = 2/5 m r² = 0.008 kg·m², isotropic: no gyroscopic
  // torque) without gravity, turned arbitrarily at the start: a world force
  // and torque give v = F t/m and ω_W = τ t/I, whatever the orientation.
  Scene scene;
  scene.system = MultibodySystem(Eigen::Vector3d::Zero());
  Eigen::Isometry3d pose =
      Pose(Eigen::Vector3d(0, 0, 1), Eigen::Vector3d(0.3, -1.1, 2.0));
  scene.system.AddFreeBody("ball", Sphere{0.1}, 2.0, pose, Eigen::Vector3d::Zero(),
                           Eigen::Vector3d::Zero(), ContactMaterial{});
  Simulation sim(std::move(scene));
  const Eigen::Vector3d force(1.0, -2.0, 0.5), torque(0.01, 0.02, -0.03);
  sim.SetBodyWrench("ball", force, torque);
  const double dt = sim.time_step();
  for (int n = 0; n < 50; ++n) ASSERT_TRUE(sim.Step().converged);
  const BodyState ball = sim.body_state("ball");
  EXPECT_NEAR((ball.linear_velocity - force * 50 * dt / 2.0).norm(), 0.0, 1e-12);
  EXPECT_NEAR((ball.angular_velocity - torque * 50 * dt / 0.008).norm(), 0.0, 1e-9);
  sim.SetBodyWrench("ball", Eigen::Vector3d::Zero(), Eigen::Vector3d::Zero());
  const Eigen::Vector3d omega = sim.body_state("ball").angular_velocity;
  ASSERT_TRUE(sim.Step().converged);
  EXPECT_NEAR((sim.body_state("ball").angular_velocity - omega).norm(), 0.0, 1e-12);
  EXPECT_THROW(sim.SetBodyWrench("ball", Eigen::Vector3d::Constant(NAN), torque),
               std::invalid_argument);
  EXPECT_THROW(sim.SetBodyWrench("nobody", force, torque), std::invalid_argument);
  Simulation planar(PlanarScene());  // no free base
  EXPECT_THROW(planar.SetBodyWrench("slider", force, torque), std::invalid_argument);
}

TEST(SimulationApi, ASpinningBoxTakesTheExplicitNewtonEulerStepOfItsGyroscopicTorque) {
  // A box of three different sides, without gravity or contact, spinning
  // about no principal axis: under an explicit scheme the step's free motion
  // is ω_B1 = ω_B0 − δt I_B⁻¹ (ω_B0 × I_B ω_B0) (h = ω × I ω, Newton–Euler),
  // and the translation keeps its speed. I_B from the model's mass matrix.
  for (const Scheme scheme : {Scheme::kSymplecticEuler, Scheme::kExplicitEuler}) {
    Scene scene;
    scene.system = MultibodySystem(Eigen::Vector3d::Zero());
    scene.parameters.scheme = scheme;
    const Eigen::Vector3d linear_velocity(0.4, -0.1, 0.2), omega_W(3.0, -5.0, 7.0);
    scene.system.AddFreeBody(
        "box", Box{Eigen::Vector3d(0.1, 0.3, 0.6)}, 2.0,
        Pose(Eigen::Vector3d(0, 0, 1), Eigen::Vector3d(0.3, -1.1, 2.0)), linear_velocity,
        omega_W, ContactMaterial{});
    Simulation sim(std::move(scene));
    const Eigen::Matrix3d inertia =
        sim.scene().system.tree(0).model.mass_matrix().bottomRightCorner<3, 3>();
    const Eigen::Vector3d omega_B0 = sim.v().tail<3>();
    ASSERT_GT(omega_B0.cross(inertia * omega_B0).norm(), 1.0);  // a torque to see
    ASSERT_TRUE(sim.Step().converged);
    const Eigen::Vector3d expected = omega_B0 - sim.time_step() * inertia.inverse() *
                                                    omega_B0.cross(inertia * omega_B0);
    EXPECT_LT((sim.v().tail<3>() - expected).norm(), 1e-12 * expected.norm())
        << ToString(scheme);
    EXPECT_LT((sim.v().head<3>() - linear_velocity).norm(), 1e-15);
  }
}

TEST(SimulationApi, APdControllerHoldsTheBodyWhereItsGainsSay) {
  // Gravity pulls z down; a PD on z with target 0.5 m holds it at the
  // target minus the static sag m g / Kp.
  Simulation sim(PlanarScene());
  EXPECT_THROW(sim.SetJointPdTarget("slider", "z", 0.5), std::invalid_argument);
  const double kp = 2000.0, kd = 200.0;
  sim.SetJointPdGains("slider", "z", kp, kd);
  sim.SetJointPdTarget("slider", "z", 0.5);
  for (int n = 0; n < 500; ++n) ASSERT_TRUE(sim.Step().converged);
  EXPECT_NEAR(sim.q()(1), 0.5 - 3.0 * kG / kp, 1e-6);
  EXPECT_THROW(sim.SetJointPdGains("slider", "z", -1.0, 0.0), std::invalid_argument);
  EXPECT_THROW(sim.SetJointEffort("slider", "no_joint", 1.0), std::invalid_argument);
  EXPECT_THROW(sim.SetJointEffort("nobody", "z", 1.0), std::invalid_argument);
}

// The built-in clutter of `bodies` bodies, solved by `kind`.
Scene Pile(const char* bodies, ContactSolverKind kind) {
  Scene scene = MakeBuiltinScene("clutter", {{"bodies", bodies}});
  scene.parameters.solver.kind = kind;
  return scene;
}

// Runs `steps` steps and returns the state they end at.
std::pair<Eigen::VectorXd, Eigen::VectorXd> StepsFrom(Simulation* sim, int steps) {
  for (int n = 0; n < steps; ++n) EXPECT_TRUE(sim->Step().converged);
  return {sim->q(), sim->v()};
}

// A snapshot taken amid a pile's contacts and restored, after a wrench and
// other steps took the pile elsewhere, steps bit for bit as the pile did
// from it, with every solver (the NCP solvers' warm start is part of it),
// in the simulation it was taken from and in a twin of the same scene.
TEST(SimulationApi, ARestoredSnapshotStepsAsTheSimulationDidFromIt) {
  for (const ContactSolverKind kind :
       {ContactSolverKind::kSap, ContactSolverKind::kCanal, ContactSolverKind::kSubAdmm,
        ContactSolverKind::kPgs}) {
    SCOPED_TRACE(ToString(kind));
    Simulation sim(Pile("20", kind)), twin(Pile("20", kind));
    sim.set_recording(false);
    StepsFrom(&sim, 60);  // landed: dozens of contacts
    const SimulationSnapshot snapshot = sim.Snapshot();
    const auto [q, v] = StepsFrom(&sim, 20);
    sim.SetBodyWrench("body_0_0", Eigen::Vector3d(0, 0, 100), Eigen::Vector3d::Zero());
    StepsFrom(&sim, 10);
    sim.Restore(snapshot);
    EXPECT_EQ(sim.time(), snapshot.time);
    const auto [q_again, v_again] = StepsFrom(&sim, 20);  // the wrench is gone too
    EXPECT_EQ(q_again, q);
    EXPECT_EQ(v_again, v);
    twin.Restore(snapshot);
    const auto [q_twin, v_twin] = StepsFrom(&twin, 20);
    EXPECT_EQ(q_twin, q);
    EXPECT_EQ(v_twin, v);
  }
}

// SetState starts the NCP solvers cold: what follows a state set depends on
// that state alone, not on what the simulation did before.
TEST(SimulationApi, ASetStateStepsAsANewSimulationFromIt) {
  Simulation sim(Pile("20", ContactSolverKind::kCanal)),
      fresh(Pile("20", ContactSolverKind::kCanal));
  StepsFrom(&sim, 60);
  const Eigen::VectorXd q = sim.q(), v = sim.v();
  StepsFrom(&sim, 5);
  sim.SetState(q, v);
  fresh.SetState(q, v);
  EXPECT_EQ(StepsFrom(&sim, 20), StepsFrom(&fresh, 20));
}

TEST(SimulationApi, ASnapshotOfAnotherSceneIsRefusedAndChangesNothing) {
  Simulation ball(BallScene(1.0)), pile(MakeBuiltinScene("clutter", {{"bodies", "8"}}));
  const SimulationSnapshot other = ball.Snapshot();
  SimulationSnapshot renamed = pile.Snapshot();
  renamed.trees[0].name = "not_a_body";
  StepsFrom(&pile, 3);
  const Eigen::VectorXd q = pile.q();
  const double time = pile.time();
  EXPECT_THROW(pile.Restore(other), std::invalid_argument);
  EXPECT_THROW(pile.Restore(renamed), std::invalid_argument);
  EXPECT_EQ(pile.q(), q);
  EXPECT_EQ(pile.time(), time);
}

// A snapshot through its bytes restores as itself: the same steps, bit for
// bit. Bytes cut short anywhere, or with a count that exceeds them, are
// refused with a message, never read past their end.
TEST(SimulationApi, ASnapshotsBytesRestoreItExactlyAndBrokenOnesAreRefused) {
  Simulation sim(Pile("8", ContactSolverKind::kCanal)),
      twin(Pile("8", ContactSolverKind::kCanal));
  StepsFrom(&sim, 40);
  sim.SetBodyWrench("body_0_0", Eigen::Vector3d(1, 2, 3), Eigen::Vector3d(4, 5, 6));
  const SimulationSnapshot snapshot = sim.Snapshot();
  ASSERT_FALSE(snapshot.warm_start_contacts.empty());
  const std::string bytes = EncodeSnapshot(snapshot);
  twin.Restore(DecodeSnapshot(bytes));
  EXPECT_EQ(StepsFrom(&twin, 10), StepsFrom(&sim, 10));
  for (size_t length = 0; length < bytes.size(); ++length)
    EXPECT_THROW(DecodeSnapshot(std::string_view(bytes).substr(0, length)),
                 std::invalid_argument);
  std::string longer = bytes + "x";
  EXPECT_THROW(DecodeSnapshot(longer), std::invalid_argument);
  std::string huge_count = bytes;
  const size_t num_trees_at = 4 + std::string_view("coulomb-snapshot-4").size() + 8;
  huge_count[num_trees_at + 3] = 0x7f;  // 2³⁰ trees and more
  try {
    DecodeSnapshot(huge_count);
    ADD_FAILURE() << "a count beyond the bytes was read";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(
        std::string(error.what()).find("a count larger than what follows at byte 34"),
        std::string::npos)
        << error.what();
  }
}

// What a snapshot holds is checked when restored: a controller on another
// joint, gains out of range, a warm start out of order or not finite are
// refused, and the simulation is left as it was.
TEST(SimulationApi, ASnapshotWithInvalidContentIsRefusedAndChangesNothing) {
  Simulation sim(MakeBuiltinScene("clutter", {{"bodies", "8"}}));
  StepsFrom(&sim, 30);
  const SimulationSnapshot good = sim.Snapshot();
  std::vector<SimulationSnapshot> bad(4, good);
  bad[0].trees[0].applied_force_W.x() = NAN;
  bad[1].time = -1.0;
  bad[2].warm_start_contacts.assign(2, ContactPoint{.geometry_a = 1, .geometry_b = 2});
  bad[2].warm_start_contacts[0].geometry_a = 3;  // after the second's pair
  bad[2].warm_start_impulses_C.assign(2, Eigen::Vector3d::Zero());
  bad[3].warm_start_contacts.assign(1, ContactPoint{});
  bad[3].warm_start_impulses_C.assign(1, Eigen::Vector3d(NAN, 0, 0));
  const Eigen::VectorXd q = sim.q();
  for (const SimulationSnapshot& snapshot : bad) {
    EXPECT_THROW(sim.Restore(snapshot), std::invalid_argument);
    EXPECT_EQ(sim.q(), q);
  }
  Scene planar = PlanarScene();
  Simulation slider(std::move(planar));
  slider.SetJointPdGains("slider", "z", 100.0, 10.0);
  SimulationSnapshot moved = slider.Snapshot(), negative = slider.Snapshot();
  moved.trees[0].controllers[0].velocity = 0;  // z's velocity is v(1)
  negative.trees[0].controllers[0].gains.derivative_gain = -1.0;
  EXPECT_THROW(slider.Restore(moved), std::invalid_argument);
  EXPECT_THROW(slider.Restore(negative), std::invalid_argument);
  slider.Restore(slider.Snapshot());
}

// The ball 1 m up, welded to the world (BodyConnection "hold"): held at the
// weld's frame T, which SetConnectionFrame moves (as a mocap body).
Scene HeldBallScene(bool active) {
  Scene scene = BallScene(1.0);
  BodyConnection hold;
  hold.body_a = 0;
  hold.p_b = Eigen::Vector3d(0, 0, 1);
  hold.weld = true;
  hold.name = "hold";
  hold.active = active;
  scene.system.AddBodyConnection(0, hold);
  return scene;
}

TEST(SimulationApi, AWeldToTheWorldHoldsItsBodyAtItsMovedFrameWhileActive) {
  Simulation sim(HeldBallScene(true));
  EXPECT_EQ(sim.connection_names("ball"), std::vector<std::string>{"hold"});
  Eigen::Isometry3d X_WT = Eigen::Isometry3d::Identity();
  X_WT.translation() = Eigen::Vector3d(0.1, -0.2, 0.3);
  X_WT.linear() = Eigen::AngleAxisd(0.4, Eigen::Vector3d::UnitZ()).toRotationMatrix();
  sim.SetConnectionFrame("ball", "hold", X_WT);
  for (int k = 0; k < 100; ++k) sim.Step();
  const BodyState held = sim.body_state("ball");
  // The point p_b of T, and T's orientation: near-rigid, within 1e-4.
  EXPECT_LT((held.pose.translation() - X_WT * Eigen::Vector3d(0, 0, 1)).norm(), 1e-4);
  EXPECT_LT(Eigen::AngleAxisd(held.pose.linear().transpose() * X_WT.linear()).angle(),
            1e-4);
  EXPECT_LT(held.linear_velocity.norm(), 1e-3);
  sim.SetConnectionActive("ball", "hold", false);
  EXPECT_FALSE(sim.ConnectionActive("ball", "hold"));
  sim.Step();  // now falling freely: v = −g δt from rest, to the held rest's ~1e-3
  EXPECT_NEAR(sim.body_state("ball").linear_velocity.z(), -kG * sim.time_step(), 1e-3);
}

TEST(SimulationApi, ConnectionChangesAreValidatedAndChangeNothingWhenRefused) {
  Simulation sim(HeldBallScene(false));
  EXPECT_THROW(sim.SetConnectionActive("ball", "grip", true), std::invalid_argument);
  EXPECT_THROW(sim.connection_names("nobody"), std::invalid_argument);
  Eigen::Isometry3d bad = Eigen::Isometry3d::Identity();
  bad.linear().diagonal() << 1.0, 1.0, -1.0;  // a reflection
  EXPECT_THROW(sim.SetConnectionFrame("ball", "hold", bad), std::invalid_argument);
  bad.linear() = 2.0 * Eigen::Matrix3d::Identity();  // a scaling
  EXPECT_THROW(sim.SetConnectionFrame("ball", "hold", bad), std::invalid_argument);
  bad.linear().setIdentity();
  bad.translation().x() = std::nan("");
  EXPECT_THROW(sim.SetConnectionFrame("ball", "hold", bad), std::invalid_argument);
  EXPECT_TRUE(
      sim.ConnectionFrame("ball", "hold").isApprox(Eigen::Isometry3d::Identity()));
  // A snapshot's connections: as many as the tree's, each frame a rigid motion.
  SimulationSnapshot scaled = sim.Snapshot(), missing = sim.Snapshot();
  scaled.trees[0].connections[0].X_WT.linear() *= 2.0;
  missing.trees[0].connections.clear();
  for (const SimulationSnapshot* snapshot : {&scaled, &missing})
    EXPECT_THROW(sim.Restore(*snapshot), std::invalid_argument);
  // Inactive from the start: the ball falls as the symplectic Euler recurrence.
  sim.Step();
  EXPECT_DOUBLE_EQ(sim.body_state("ball").linear_velocity.z(), -kG * sim.time_step());
}

// The ball welded 0.5 m below a mocap body "hand" (added after the weld:
// the weld takes its frame then), and a mocap shelf, its top at 0.7 m.
Scene MocapScene() {
  Scene scene = BallScene(1.0);
  BodyConnection hold;
  hold.body_a = 0;
  hold.p_b = Eigen::Vector3d(0, 0, -0.5);
  hold.weld = true;
  hold.name = "hold";
  hold.mocap = "hand";
  scene.system.AddBodyConnection(0, hold);
  scene.system.AddMocapBody("hand", Pose(Eigen::Vector3d(0, 0, 1.5)));
  const int shelf = scene.system.AddMocapBody("shelf", Pose(Eigen::Vector3d(2, 0, 0.6)));
  scene.system.AddGeometry(Box{Eigen::Vector3d(1.0, 1.0, 0.2)}, -1, shelf,
                           Eigen::Isometry3d::Identity(), ContactMaterial{});
  return scene;
}

TEST(SimulationApi, ABodyExcludedFromGeometriesFallsThroughThem) {
  // The ball carried over the mocap shelf and let go: excluded from the
  // shelf's box, it falls through it onto the ground (z = 0.1), not onto
  // the shelf's top (0.8). Ids that are no geometry are refused.
  Scene scene = MocapScene();
  const int shelf_box = scene.system.collision_world().num_geometries() - 1;
  EXPECT_THROW(scene.system.ExcludeBodyAndGeometries(0, 0, {-1}), std::invalid_argument);
  EXPECT_THROW(scene.system.ExcludeBodyAndGeometries(0, 0, {shelf_box + 1}),
               std::invalid_argument);
  scene.system.ExcludeBodyAndGeometries(0, 0, {shelf_box});
  Simulation sim(std::move(scene));
  sim.SetMocapPose("hand", Pose(Eigen::Vector3d(2, 0, 1.5)));
  for (int k = 0; k < 100; ++k) sim.Step();
  sim.SetConnectionActive("ball", "hold", false);
  for (int k = 0; k < 150; ++k) sim.Step();
  EXPECT_NEAR(sim.body_state("ball").pose.translation().z(), 0.1, 2e-3);
}

TEST(SimulationApi, MocapBodiesCarryTheirGeometryAndTheWeldsThatNameThem) {
  Simulation sim(MocapScene());
  EXPECT_EQ(sim.mocap_names(), (std::vector<std::string>{"hand", "shelf"}));
  EXPECT_TRUE(
      sim.ConnectionFrame("ball", "hold").isApprox(Pose(Eigen::Vector3d(0, 0, 1.5))));
  // The hand moved 2 m along x: the weld pulls the ball onto the shelf's
  // column, 0.5 m below the hand; let go, it falls onto the shelf, which
  // then lifts it.
  sim.SetMocapPose("hand", Pose(Eigen::Vector3d(2, 0, 1.5)));
  for (int k = 0; k < 100; ++k) sim.Step();
  EXPECT_LT((sim.body_state("ball").pose.translation() - Eigen::Vector3d(2, 0, 1)).norm(),
            1e-4);
  sim.SetConnectionActive("ball", "hold", false);
  for (int k = 0; k < 100; ++k) sim.Step();  // fallen onto the shelf's top, 0.7
  EXPECT_NEAR(sim.body_state("ball").pose.translation().z(), 0.8, 2e-3);
  const SimulationSnapshot resting = sim.Snapshot();
  for (int k = 1; k <= 60; ++k) {  // raised 0.1 m, 1 cm a step, then held
    sim.SetMocapPose("shelf", Pose(Eigen::Vector3d(2, 0, 0.6 + 0.01 * std::min(k, 10))));
    sim.Step();
  }
  EXPECT_NEAR(sim.body_state("ball").pose.translation().z(), 0.9, 2e-3);
  EXPECT_TRUE(sim.MocapPose("shelf").isApprox(Pose(Eigen::Vector3d(2, 0, 0.7))));
  // Refused: an unknown name, a pose that is not a rigid motion, a
  // snapshot without the scene's mocap bodies or with such a pose.
  EXPECT_THROW(sim.SetMocapPose("ball", Pose(Eigen::Vector3d::Zero())),
               std::invalid_argument);
  Eigen::Isometry3d scaled = Pose(Eigen::Vector3d::Zero());
  scaled.linear() *= 2.0;
  EXPECT_THROW(sim.SetMocapPose("hand", scaled), std::invalid_argument);
  SimulationSnapshot missing = resting, bad = resting;
  missing.mocap_poses.pop_back();
  bad.mocap_poses[1] = scaled;
  for (const SimulationSnapshot* snapshot : {&missing, &bad})
    EXPECT_THROW(sim.Restore(*snapshot), std::invalid_argument);
  sim.Restore(resting);
  EXPECT_TRUE(sim.MocapPose("shelf").isApprox(Pose(Eigen::Vector3d(2, 0, 0.6))));
}

// Two free balls 1 m apart at 5 m, the second (1 kg) thrown sideways and
// spinning, held to the first (2 kg) by a connect of their centres' midpoint
// (a weld too, with `weld`): a connection across two trees.
Simulation LinkedBalls(bool weld) {
  Scene scene = BallScene(5.0);
  scene.system.AddFreeBody("second", Sphere{0.1}, 1.0, Pose(Eigen::Vector3d(1, 0, 5)),
                           Eigen::Vector3d(0, 2, 1), Eigen::Vector3d(0, 0, 3),
                           ContactMaterial{});
  BodyConnection link;
  link.body_a = 0;
  link.p_a = Eigen::Vector3d(0.5, 0, 0);
  link.tree_b = 1;
  link.body_b = 0;
  link.p_b = Eigen::Vector3d(-0.5, 0, 0);
  link.weld = weld;
  link.name = "link";
  scene.system.AddBodyConnection(0, link);
  return Simulation(std::move(scene));
}

TEST(SimulationApi, AConnectionOfTwoTreesHoldsTheirPointsAndConservesMomentum) {
  for (const bool weld : {false, true}) {
    Simulation sim = LinkedBalls(weld);
    const Eigen::Vector3d p0(0, 2, 1);  // 2 kg at rest, 1 kg at (0, 2, 1) m/s
    for (int k = 0; k < 50; ++k) sim.Step();
    const BodyState a = sim.body_state("ball"), b = sim.body_state("second");
    // The held points coincide, to the first-order drift of a pair turning
    // at ω ≈ 2 rad/s: (ω δt)² L ≈ 4e-4 m a step, corrected at the next
    // (without the connection they are 0.5 m apart); a weld keeps the turn.
    EXPECT_LT((a.pose * Eigen::Vector3d(0.5, 0, 0) - b.pose * Eigen::Vector3d(-0.5, 0, 0))
                  .norm(),
              2e-3)
        << weld;
    if (weld) {
      EXPECT_LT(Eigen::AngleAxisd(a.pose.linear().transpose() * b.pose.linear()).angle(),
                2e-3);
    }
    // Internal forces: the momentum changes by gravity's impulse alone, the
    // centre of mass falls as a point, m_total g t.
    const Eigen::Vector3d momentum = 2.0 * a.linear_velocity + 1.0 * b.linear_velocity;
    const double t = sim.time();
    EXPECT_LT((momentum - (p0 + 3.0 * t * Eigen::Vector3d(0, 0, -kG))).norm(), 1e-9)
        << weld;
    EXPECT_EQ(sim.connection_names("ball"), std::vector<std::string>{"link"});
  }
}

TEST(SimulationApi, AConnectionToAnotherTreeNeedsThatTreesBody) {
  Scene scene = BallScene(5.0);
  BodyConnection link;
  link.tree_b = 0;  // the tree itself
  link.body_b = 0;
  EXPECT_THROW(scene.system.AddBodyConnection(0, link), std::invalid_argument);
  link.tree_b = 3;  // no such tree
  EXPECT_THROW(scene.system.AddBodyConnection(0, link), std::invalid_argument);
}

TEST(SimulationApi, RecordsWhileRecordingAndNothingOtherwise) {
  Simulation sim(BallScene(1.0));
  for (int n = 0; n < 5; ++n) sim.Step();
  EXPECT_EQ(sim.records().size(), 5u);
  EXPECT_EQ(sim.trajectory().time.size(), 6u);  // the initial state and 5 steps
  sim.set_recording(false);
  for (int n = 0; n < 5; ++n) sim.Step();
  EXPECT_EQ(sim.records().size(), 5u);
  const SimulationSummary summary = sim.Summary();
  EXPECT_EQ(summary.steps, 5);
  EXPECT_EQ(summary.failed_steps, 0);
  // Free fall conserves energy up to symplectic Euler's O(δt) oscillation.
  EXPECT_LT(summary.energy_final, summary.energy_initial + 1e-9);
}

}  // namespace
}  // namespace coulomb

namespace coulomb {
namespace {

// Speculative contacts follow each pair's own speed: two boxes resting 5 cm
// apart get no contact between them while a ball falls fast elsewhere
// (a margin from the fastest body, 10 m/s over the look-ahead ≥ δt, would pair them),
// and the fast ball still sees the ground a step ahead and does not pass it.
TEST(SimulationApi, SpeculativeContactsFollowEachPairsSpeed) {
  Scene scene;
  scene.system.AddStaticGeometry(HalfSpace{}, Eigen::Isometry3d::Identity(),
                                 ContactMaterial{});
  for (const double x : {0.0, 0.25}) {  // 0.2 m boxes, 5 cm apart
    scene.system.AddFreeBody("box" + std::to_string(static_cast<int>(x * 100)),
                             Box{Eigen::Vector3d(0.2, 0.2, 0.2)}, 1.0,
                             Pose(Eigen::Vector3d(x, 0, 0.1)), Eigen::Vector3d::Zero(),
                             Eigen::Vector3d::Zero(), ContactMaterial{});
  }
  scene.system.AddFreeBody("ball", Sphere{0.05}, 1.0, Pose(Eigen::Vector3d(3, 0, 0.13)),
                           Eigen::Vector3d(0, 0, -10), Eigen::Vector3d::Zero(),
                           ContactMaterial{});
  Simulation sim(std::move(scene));
  bool ball_touched = false;
  for (int n = 0; n < 3; ++n) {
    ASSERT_TRUE(sim.Step().converged);
    for (const Contact& contact : sim.contacts()) {
      EXPECT_FALSE(contact.body_a.starts_with("box") && contact.body_b.starts_with("box"))
          << "a speculative contact between the resting boxes";
      ball_touched = ball_touched || contact.body_b == "ball" || contact.body_a == "ball";
    }
    EXPECT_GT(sim.body_state("ball").pose.translation().z(), 0.05 - 1e-3)
        << "the ball went through";
  }
  EXPECT_TRUE(ball_touched);
}

// A SAP contact engages a gap once v_n < −φ0/(δt + τ_d) (SAP §V-A), before
// the bodies would touch; the speculative contacts look that far ahead by
// default. A ball falling at 1 m/s 25 mm above the ground, with τ_d = 2 δt,
// is pushed at the first step: 1.1 m/s (after a step of gravity) exceeds
// 25 mm / 30 ms = 0.83 m/s. A look-ahead of δt (10 mm) or 2 δt (20 mm)
// would leave the gap out of the problem and let the ball fall freely, as
// `contact_lookahead` = 0 does on purpose.
double BallSpeedAfterAStepTowardsTheGround(std::optional<double> lookahead) {
  Scene scene;
  ContactMaterial material;
  material.dissipation_time_scale = 0.02;  // τ_d [s], δt = 10 ms
  scene.parameters.contact_lookahead = lookahead;
  scene.system.AddStaticGeometry(HalfSpace{}, Eigen::Isometry3d::Identity(), material);
  scene.system.AddFreeBody("ball", Sphere{0.05}, 1.0, Pose(Eigen::Vector3d(0, 0, 0.075)),
                           Eigen::Vector3d(0, 0, -1.0), Eigen::Vector3d::Zero(),
                           material);
  Simulation sim(std::move(scene));
  EXPECT_EQ(sim.time_step(), 0.01);
  EXPECT_TRUE(sim.Step().converged);
  double pushed = 0.0;
  for (const Contact& contact : sim.contacts()) {
    EXPECT_NEAR(contact.depth, -0.025, 1e-9);  // a gap, not a touch
    pushed += contact.impulse.z();
  }
  const double speed = sim.body_state("ball").linear_velocity.z();
  EXPECT_NEAR(speed, -1.0 - 9.81 * 0.01 + pushed / 1.0, 1e-9);  // m Δv = −m g δt + λ
  return speed;
}

TEST(SimulationApi, SpeculativeContactsReachAsFarAsSapEngagesAGap) {
  const double free_fall = -1.0 - 9.81 * 0.01;
  EXPECT_GT(BallSpeedAfterAStepTowardsTheGround(std::nullopt), free_fall + 1e-3)
      << "the gap SAP engages was left out of the problem";
  EXPECT_GT(BallSpeedAfterAStepTowardsTheGround(0.03), free_fall + 1e-3);
  EXPECT_NEAR(BallSpeedAfterAStepTowardsTheGround(0.0), free_fall, 1e-12);
  EXPECT_NEAR(BallSpeedAfterAStepTowardsTheGround(0.02), free_fall, 1e-12);
  Scene scene;
  scene.parameters.contact_lookahead = -0.01;
  EXPECT_THROW(Simulation{std::move(scene)}, std::invalid_argument);
}

// A ball alone and a stack of two boxes, 2 m apart on the ground: SAP's
// islands are the cliques joined by the contacts with an impulse (the ground
// is no clique), so once everything rests there are exactly two.
TEST(SimulationApi, StepsReportSapsIslandsAndLineSearches) {
  Scene scene;
  scene.system.AddStaticGeometry(HalfSpace{}, Eigen::Isometry3d::Identity(),
                                 ContactMaterial{});
  scene.system.AddFreeBody("ball", Sphere{0.1}, 1.0, Pose(Eigen::Vector3d(-1, 0, 0.1)),
                           Eigen::Vector3d::Zero(), Eigen::Vector3d::Zero(),
                           ContactMaterial{});
  for (int k = 0; k < 2; ++k) {
    scene.system.AddFreeBody(
        "box" + std::to_string(k), Box{Eigen::Vector3d(0.2, 0.2, 0.2)}, 1.0,
        Pose(Eigen::Vector3d(1, 0, 0.1 + 0.2 * k)), Eigen::Vector3d::Zero(),
        Eigen::Vector3d::Zero(), ContactMaterial{});
  }
  Simulation sim(std::move(scene));
  int line_searches = 0;
  for (int n = 0; n < 50; ++n) {
    const StepStatistics stats = sim.Step();
    ASSERT_TRUE(stats.converged);
    EXPECT_EQ(stats.islands, 2) << "step " << n;
    // Every Newton iteration searches its line, unless it starts at the
    // minimum to round-off; no iteration, no search.
    if (stats.iterations == 0) {
      EXPECT_EQ(stats.line_search_iterations, 0);
    }
    line_searches += stats.line_search_iterations;
    // The first step starts at rest: at v* both boxes fall alike, so their
    // contact has no impulse and SAP's working set leaves it out, then takes
    // it in for a second round. From then on the warm start (the last
    // velocity) gives every contact its impulse: the whole problem at once.
    EXPECT_EQ(stats.working_set_rounds, n == 0 ? 2 : 0) << "step " << n;
  }
  EXPECT_GT(line_searches, 0);
}

// The nearest crossing of the ray from o along d (normalized, as CastRay
// does) among all of the scene's geometries, each tested on its own
// (RayDistance), those of tree `tree`'s body `body` left out (tree −1: none):
// what CastRay must find, without the bounding spheres it culls with.
std::optional<double> EveryGeometrysNearestCrossing(const Simulation& sim,
                                                    const Eigen::Vector3d& o,
                                                    const Eigen::Vector3d& d, int tree,
                                                    int body) {
  const CollisionWorld& world = sim.scene().system.collision_world();
  std::vector<Eigen::Isometry3d> X_WG;
  sim.scene().system.CalcGeometryPoses(&X_WG);
  std::optional<double> nearest;
  for (int g = 0; g < world.num_geometries(); ++g) {
    if (tree >= 0 && world.OnBody(g, tree, body)) continue;
    const Eigen::Isometry3d X_GW = X_WG[g].inverse();
    const std::optional<double> t =
        RayDistance(world.shape(g), X_GW * o, X_GW.linear() * d.normalized());
    if (t && (!nearest || *t < *nearest)) nearest = t;
  }
  return nearest;
}

// Rays cast into a pile of every convex shape kind (the clutter's boxes and
// balls, with a capsule, a cylinder, an ellipsoid and a convex mesh landed
// on them, inside walls on the ground), from points around and inside the
// bodies along random directions, meet what testing every geometry on its
// own meets, to the bit: CastRay's and CastRays' bounding-sphere culling
// leaves out no geometry that a ray meets first.
TEST(SimulationApi, CastRaysMeetWhatTestingEveryGeometryMeets) {
  Scene scene = MakeBuiltinScene("clutter", {{"bodies", "40"}});
  const Shape shapes[] = {Capsule{0.05, 0.2}, Cylinder{0.08, 0.1},
                          Ellipsoid{Eigen::Vector3d(0.1, 0.06, 0.04)},
                          testing::TwelveGonPrism()};
  for (int k = 0; k < 4; ++k) {
    scene.system.AddFreeBody("odd" + std::to_string(k), shapes[k], 0.5,
                             Pose(Eigen::Vector3d(-0.15 + 0.1 * k, 0.05, 1.2 + 0.15 * k)),
                             Eigen::Vector3d::Zero(), Eigen::Vector3d(1, 2, 3),
                             ContactMaterial{});
  }
  Simulation sim(std::move(scene));
  ASSERT_FALSE(sim.RunFor(1.5).interrupted);
  std::mt19937 random(7);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  const auto point = [&] {
    return Eigen::Vector3d(unit(random), unit(random), 0.6 + 0.6 * unit(random));
  };
  int met = 0, missed = 0;
  for (int ray = 0; ray < 3000; ++ray) {
    // Half from a body's centre (that body left out, as a rangefinder's), half anywhere.
    const int tree = ray % 2 == 0 ? ray / 2 % sim.num_trees() : -1;
    const Eigen::Vector3d o =
        tree >= 0 ? sim.scene().system.tree(tree).model.body_pose(0).translation()
                  : point();
    Eigen::Vector3d d = point() - o;
    if (!(d.norm() > 1e-3)) continue;
    d.normalize();
    const std::optional<double> expected =
        EveryGeometrysNearestCrossing(sim, o, d, tree, 0);
    EXPECT_EQ(sim.CastRay(o, d, tree, 0), expected) << "ray " << ray;
    expected ? ++met : ++missed;
  }
  // Both kinds of answer occur (the walls and ground leave some rays unmet:
  // those going up and out).
  EXPECT_GT(met, 1000);
  EXPECT_GT(missed, 100);
  // A scan: the same, −1 where nothing is met.
  const Eigen::Vector3d o(0.0, 0.0, 0.9);
  Eigen::Matrix<double, Eigen::Dynamic, 3> directions(500, 3);
  for (int k = 0; k < 500; ++k)
    directions.row(k) = (point() - o).normalized().transpose();
  const Eigen::VectorXd scan = sim.CastRays(o, directions);
  for (int k = 0; k < 500; ++k) {
    EXPECT_EQ(scan[k],
              EveryGeometrysNearestCrossing(sim, o, directions.row(k).transpose(), -1, 0)
                  .value_or(-1.0))
        << "direction " << k;
  }
}

}  // namespace
}  // namespace coulomb
