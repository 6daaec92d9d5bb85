// Counts heap allocations per time step (allocation_counter.h: every
// malloc, calloc and realloc of this test executable): nothing allocates
// inside the step loop once the contact pattern has been seen.
#include <sys/resource.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "allocation_counter.h"
#include "coulomb/geometry/collision_world.h"
#include "coulomb/geometry/height_field.h"
#include "coulomb/scenes/builtin_scenes.h"
#include "coulomb/sim/simulation.h"
#include "coulomb/sim/time_stepper.h"
#include "model_text.h"
#include "robot_scenes.h"
#include "test_support.h"

namespace coulomb {
namespace {

// Eight clutter bodies at rest in their box, the test_support pendulum
// held by a PD controller against its lower joint limit, two sliders
// coupled as an Atwood machine resting on a limit, two cans outside the
// box, one standing on the ground and one lying on it, and an MJCF box whose
// centre of mass lies off its frame's origin, with a cap welded to it, on the
// ground (so that
// contacts, joint limits, a controller, joint friction, a coupler, a body
// connection, the closed-form patches of boxes, spheres and cylinders and a
// loose body's closed form with its mass matrix turning with it and a welded
// body's geometry are all in
// the problem).
Scene RestingScene(Scheme scheme, ContactSolverKind solver) {
  Scene scene = MakeBuiltinScene("clutter", {{"bodies", "8"}});
  scene.parameters.scheme = scheme;
  scene.parameters.solver.kind = solver;
  const std::filesystem::path urdf =
      std::filesystem::temp_directory_path() /
      ("pendulum_alloc_" + std::to_string(getpid()) + ".urdf");
  testing::WritePendulumUrdf(urdf.string());
  MultibodyTree pendulum =
      MultibodyTree::FromUrdf(urdf.string(), false, testing::At(2, 2, 1));
  std::filesystem::remove(urdf);
  const int tree =
      scene.system.AddRobot("pendulum", std::move(pendulum), Eigen::VectorXd::Zero(1),
                            Eigen::VectorXd::Zero(1), ContactMaterial{});
  scene.system.SetJointLimits(tree, "hinge", 0.0, 1.0);
  scene.system.AddJointPdController(
      tree, "hinge",
      {.proportional_gain = 50.0, .derivative_gain = 5.0, .target_position = -0.2});
  scene.system.SetJointFriction(tree, "hinge", 0.5);
  // Two sliders coupled as an Atwood machine, held apart by slide_a's limit.
  testing::WriteSliderPairUrdf(urdf.string());
  MultibodyTree sliders =
      MultibodyTree::FromUrdf(urdf.string(), false, testing::At(-2, 2, 1));
  std::filesystem::remove(urdf);
  const int pair =
      scene.system.AddRobot("sliders", std::move(sliders), Eigen::VectorXd::Zero(2),
                            Eigen::VectorXd::Zero(2), ContactMaterial{});
  scene.system.AddJointCoupler(pair, {.joint = "slide_b",
                                      .reference = "slide_a",
                                      .polynomial = {0.0, -1.0, 0.5, 0.0, 0.0}});
  const MultibodyTree& slider_model = scene.system.tree(pair).model;
  BodyConnection connection;
  connection.body_a = slider_model.FindBody("a");
  connection.body_b = slider_model.FindBody("b");
  scene.system.AddBodyConnection(pair, connection);
  scene.system.SetJointLimits(pair, "slide_a", 0.0, 1.0);
  const Cylinder can{.radius = 0.033, .length = 0.12};
  const Eigen::Vector3d zero = Eigen::Vector3d::Zero();
  scene.system.AddFreeBody("standing_can", can, 0.35, Pose({1.5, 0.0, 0.06}), zero, zero,
                           ContactMaterial{});
  scene.system.AddFreeBody("lying_can", can, 0.35,
                           Pose({1.5, 0.5, 0.033}, {0.5 * M_PI, 0.0, 0.0}), zero, zero,
                           ContactMaterial{});
  MultibodyTree offset_box = testing::MjcfTreeFromText(
      "<mujoco><worldbody><body name=\"offset_box\"><freejoint/><geom type=\"box\" "
      "size=\"0.05 0.05 0.05\" pos=\"0.02 0 0\" mass=\"1\"/><body name=\"cap\" "
      "pos=\"0.02 0 0.06\"><geom type=\"sphere\" size=\"0.01\" mass=\"0.1\"/></body>"
      "</body></worldbody></mujoco>");
  Eigen::VectorXd q(7);
  q << -1.5, 0.0, 0.05, 0.0, 0.0, 0.0, 1.0;  // its geom resting on the ground
  scene.system.AddRobot("offset_box", std::move(offset_box), q, Eigen::VectorXd::Zero(6),
                        ContactMaterial{});
  return scene;
}

// The resting scene runs for two minutes with every step solved. Its
// SAP steps set aside the islands at rest and iterate the others; a contact
// between an island aside and one iterated used to bring into H the rows
// that an earlier step's problem left in the factorization, and at 29.19 s a
// step failed on a pivot that was not positive definite.
TEST(StepAllocation, TheRestingSceneRunsTwoMinutesWithEveryStepSolved) {
  Simulation simulation(RestingScene(Scheme::kSymplecticEuler, ContactSolverKind::kSap));
  simulation.set_recording(false);
  const SimulationSummary summary = simulation.RunFor(120.0);
  EXPECT_EQ(summary.failed_steps, 0);
  EXPECT_EQ(summary.steps, static_cast<int>(std::lround(120.0 / simulation.time_step())));
}

// Allocations of one step, and of the collision query that step makes (same
// poses, same margin) run on its own just before.
std::pair<long, long> StepAndQueryAllocations(TimeStepper* stepper, Scene* scene,
                                              int min_contacts = 9) {
  MultibodySystem& system = scene->system;
  std::vector<ContactPoint> contacts;
  system.UpdateAllTrees();
  stepper->QueryContacts(system, &contacts);  // sizes the buffers
  long before = testing::AllocationCount();
  stepper->QueryContacts(system, &contacts);
  const long query = testing::AllocationCount() - before;
  before = testing::AllocationCount();
  const StepStatistics stats = stepper->Step(&system);
  const long step = testing::AllocationCount() - before;
  EXPECT_TRUE(stats.converged) << stats.failure;
  EXPECT_GE(stats.num_contacts, min_contacts);
  return {step, query};
}

// SAP, and the NCP solvers with their contact NCP (the padded copy for the
// limit and the controller included) and CANAL's inner problem rebuilt in
// place.
TEST(StepAllocation, StepsAllocateNothingOnceThePatternWasSeen) {
  if (!testing::AllocationCountingEnabled())
    GTEST_SKIP() << "AddressSanitizer owns malloc";
  for (const auto& [scheme, solver] :
       {std::pair{Scheme::kSymplecticEuler, ContactSolverKind::kSap},
        std::pair{Scheme::kMidpoint, ContactSolverKind::kSap},
        std::pair{Scheme::kSymplecticEuler, ContactSolverKind::kSubAdmm},
        std::pair{Scheme::kSymplecticEuler, ContactSolverKind::kPgs},
        std::pair{Scheme::kSymplecticEuler, ContactSolverKind::kCanal}}) {
    Scene scene = RestingScene(scheme, solver);
    TimeStepper stepper(scene.parameters);
    // 4 s: the midpoint scheme's bodies still rock apart at 3 s. What is
    // checked here is a step with the pattern of the step before it; the
    // next test changes the pattern.
    for (int n = 0; n < 400; ++n) ASSERT_TRUE(stepper.Step(&scene.system).converged);
    ASSERT_GT(stepper.last_problem()->num_constraints(),
              stepper.last_problem()->num_cliques());
    for (int n = 0; n < 5; ++n) {
      const auto [step, query] = StepAndQueryAllocations(&stepper, &scene);
      // Everything in the step but Coal's narrow phase is allocation-free,
      // and this scene's pairs (boxes, spheres and cylinders, the ground)
      // have closed-form patches: nothing at all. Coal (3.0.3), used for other shapes,
      // allocates (traced with backtraces at malloc): its COAL_ASSERT
      // constructs the std::logic_error / invalid_argument (and its message
      // string) of every assertion that holds, in GJK::reset,
      // GJKSolver::runGJKAndEPA and GJKExtractWitnessPoints and
      // ShapeShapeContactPatch (one each per colliding pair), and
      // computeSupportSetConvex allocates its support set with new.
      EXPECT_EQ(step, 0) << ToString(scheme) << ", " << ToString(solver)
                         << ": the step allocated " << step << " times, the query "
                         << query;
      std::printf("%s, %s: %ld allocations per step\n", ToString(scheme).c_str(),
                  ToString(solver).c_str(), step);
    }
  }
}

// A run not recorded (a control loop's, a benchmark's): what Simulation adds
// to each step (the trees' kinematics after it, the state vector, the
// step's mechanical energy for the summary) allocates nothing either. The
// steps' share is the count of ten steps less that of one.
TEST(StepAllocation, AnUnrecordedRunAllocatesNothingPerStep) {
  if (!testing::AllocationCountingEnabled())
    GTEST_SKIP() << "AddressSanitizer owns malloc";
  Simulation simulation(RestingScene(Scheme::kSymplecticEuler, ContactSolverKind::kSap));
  simulation.set_recording(false);
  const double dt = simulation.time_step();
  ASSERT_FALSE(simulation.RunFor(4.0).interrupted);  // at rest: the pattern seen
  const auto allocations = [&](int steps) {
    const long before = testing::AllocationCount();
    const SimulationSummary summary = simulation.RunFor(steps * dt);
    EXPECT_EQ(summary.failed_steps, 0);
    return testing::AllocationCount() - before;
  };
  allocations(1);
  const long one = allocations(1), ten = allocations(10);
  EXPECT_EQ(ten, one) << "nine more steps allocated " << ten - one << " times";
}

// A control loop that names what it drives (a controller's target and a
// body's wrench set before every step, recording off) allocates nothing per
// step: finding a tree or a body by name builds no message for a name that
// is there. The pendulum comes after the eight clutter bodies, so its
// lookup passes them all.
TEST(StepAllocation, AControlLoopByNameAllocatesNothingPerStep) {
  if (!testing::AllocationCountingEnabled())
    GTEST_SKIP() << "AddressSanitizer owns malloc";
  Simulation simulation(RestingScene(Scheme::kSymplecticEuler, ContactSolverKind::kSap));
  simulation.set_recording(false);
  const std::string pendulum = "pendulum", hinge = "hinge", body = "body_1_1";
  ASSERT_GT(simulation.VelocityRange(pendulum).first, 0);
  ASSERT_FALSE(simulation.RunFor(4.0).interrupted);  // at rest: the pattern seen
  const auto allocations = [&](int steps) {
    const long before = testing::AllocationCount();
    for (int k = 0; k < steps; ++k) {
      simulation.SetJointPdTarget(pendulum, hinge, -0.2 - 1e-4 * k);
      simulation.SetBodyWrench(body, Eigen::Vector3d(0.0, 0.0, 0.1 * k),
                               Eigen::Vector3d::Zero());
      EXPECT_TRUE(simulation.Step().converged);
    }
    return testing::AllocationCount() - before;
  };
  allocations(1);
  const long one = allocations(1), ten = allocations(10);
  EXPECT_EQ(ten, one) << "nine more steps allocated " << ten - one << " times";
}

// Eighteen sensors on the pendulum, recorded with every sample: seven that
// read its state alone (a joint's coordinate and rate, a frame's position,
// orientation and velocities, a gyro, the clock), and eleven that read what
// several sensors share or the last step's solution (the controller's
// effort, the scene's energies and momentum, a ray, the contacts: touch and
// the link's wrench, and the last step's accelerations).
void AddPendulumSensors(Scene* scene) {
  struct Added {
    const char* name;
    Sensor::Kind kind;
    const char* object;
  };
  using Kind = Sensor::Kind;
  const Added sensors[] = {
      {"angle", Kind::kJointPosition, "hinge"},
      {"rate", Kind::kJointVelocity, "hinge"},
      {"where", Kind::kFramePosition, "bob"},
      {"attitude", Kind::kFrameOrientation, "bob"},
      {"speed", Kind::kFrameLinearVelocity, "bob"},
      {"gyro", Kind::kGyro, "bob"},
      {"clock", Kind::kClock, ""},
      {"effort", Kind::kJointActuatorForce, "hinge"},
      {"potential", Kind::kPotentialEnergy, ""},
      {"kinetic", Kind::kKineticEnergy, ""},
      {"centre", Kind::kSubtreeCom, ""},
      {"momentum", Kind::kSubtreeAngularMomentum, "bob"},
      {"range", Kind::kRangefinder, "bob"},
      {"touch", Kind::kTouch, "bob"},
      {"imu", Kind::kAccelerometer, "bob"},
      {"spin_up", Kind::kFrameAngularAcceleration, "bob"},
      {"force", Kind::kForce, "bob"},
      {"torque", Kind::kTorque, "bob"},
  };
  int tree = 0;
  while (scene->system.tree(tree).name != "pendulum") ++tree;
  for (const Added& added : sensors) {
    Sensor sensor;
    sensor.name = added.name;
    sensor.kind = added.kind;
    sensor.size = Eigen::Vector3d::Constant(1.0);  // touch: a sphere of 1 m about the bob
    scene->system.AddSensor(tree, sensor, added.object);
  }
}

// A recorded run (Simulation's default) keeps every sample, so its record
// grows: but by buffer, not by sample. Each of its arrays (time, q, v, the
// geometries' poses, the contacts, the pendulum's sensors' rows, every tree's body
// samples, the step records) grows geometrically, so a thousand steps
// allocate a few times per array, about log2 of the growth, where one
// allocation per sample and array would be thousands.
TEST(StepAllocation, ARecordedRunAllocatesByBufferNotBySample) {
  if (!testing::AllocationCountingEnabled())
    GTEST_SKIP() << "AddressSanitizer owns malloc";
  Scene scene = RestingScene(Scheme::kSymplecticEuler, ContactSolverKind::kSap);
  AddPendulumSensors(&scene);
  Simulation simulation(std::move(scene));
  ASSERT_EQ(simulation.sensor_names("pendulum").size(), 18u);
  ASSERT_TRUE(simulation.recording());
  const double dt = simulation.time_step();
  ASSERT_FALSE(simulation.RunFor(4.0).interrupted);  // at rest: the pattern seen
  const int trees = simulation.num_trees();
  const long before = testing::AllocationCount();
  const int steps = 1000;
  const SimulationSummary summary = simulation.RunFor(steps * dt);
  const long allocations = testing::AllocationCount() - before;
  EXPECT_EQ(summary.steps, steps);
  EXPECT_EQ(summary.failed_steps, 0);
  // 100 samples grown to 1 100: at most ⌈log2 11⌉ + 1 = 5 growths for each
  // of the trees' body samples and of a dozen other arrays.
  EXPECT_LE(allocations, 5 * (trees + 12))
      << steps << " recorded steps allocated " << allocations << " times";
}

// The bytes a simulation's recording holds: samples, contacts, step records.
double RecordedBytes(const Simulation& simulation) {
  const Trajectory& t = simulation.trajectory();
  const auto bytes = [](const SampleRows& rows) {
    return 8.0 * static_cast<double>(rows.size()) * static_cast<double>(rows.width());
  };
  double total = bytes(t.q) + bytes(t.v) + bytes(t.geometry_poses);
  for (const SampleRows& rows : t.body_samples) total += bytes(rows);
  for (const SampleRows& rows : t.sensor_samples) total += bytes(rows);
  total += 8.0 * static_cast<double>(t.time.size() + t.contact_offsets.size());
  total += static_cast<double>(t.contacts.size() * sizeof(RecordedContact));
  return total + static_cast<double>(simulation.records().size() * sizeof(StepRecord));
}

long MinorPageFaults() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_minflt;
}

// A long recorded run's fresh memory is its recording, and each fresh page
// costs a page fault when first touched. Grown as a std::vector grows (a new
// buffer twice as large, the old one copied into it and freed), a recording
// touches about twice its size in pages; grown in place (SampleRows's
// realloc, SegmentedArray's segments), about its size.
TEST(StepAllocation, ARecordedRunTouchesEachPageOfItsRecordingAboutOnce) {
  Simulation simulation(MakeBuiltinScene("clutter", {{"bodies", "40"}}));
  ASSERT_FALSE(simulation.RunFor(1.0).interrupted);
  const double bytes_before = RecordedBytes(simulation);
  const long faults_before = MinorPageFaults();
  const SimulationSummary summary = simulation.RunFor(30.0);
  const double pages = static_cast<double>(MinorPageFaults() - faults_before);
  const double recorded_pages = (RecordedBytes(simulation) - bytes_before) / 4096.0;
  EXPECT_EQ(summary.failed_steps, 0);
  ASSERT_GT(recorded_pages, 10000.0);  // so that what else touches a page does not count
  EXPECT_LE(pages, 1.25 * recorded_pages)
      << "the run touched " << pages << " fresh pages to record " << recorded_pages;
}

// Every tree's q and v, and the time: where a run is replayed from.
struct SystemState {
  std::vector<Eigen::VectorXd> q, v;
  double time = 0.0;
};

SystemState SaveState(const MultibodySystem& system) {
  SystemState state;
  state.time = system.time();
  for (int t = 0; t < system.num_trees(); ++t) {
    state.q.push_back(system.tree(t).q);
    state.v.push_back(system.tree(t).v);
  }
  return state;
}

void RestoreState(const SystemState& state, MultibodySystem* system) {
  for (int t = 0; t < system->num_trees(); ++t) {
    system->tree(t).q = state.q[t];
    system->tree(t).v = state.v[t];
  }
  system->set_time(state.time);
}

// The drop of the eight bodies and the pendulum's swing onto its limit, run
// once and then replayed with the same stepper from the same start, with
// SAP and the NCP solvers. The contact pattern changes from step to step
// (bodies land, bounce, slide apart), growing and shrinking every size of
// the problem, of SAP's working sets and factorizations, of the NCP's padded
// problem, CANAL's inner problem, SubADMM's links and PGS's blocks, and
// moving the joint constraints between slots; the replay meets only sizes
// the first run met, so none of its steps allocates (its pairs have
// closed-form patches: no Coal). (The dual solvers take no PD controller,
// so they are not in this scene.)
TEST(StepAllocation, AReplayedRunAllocatesNothingWhileItsContactPatternChanges) {
  if (!testing::AllocationCountingEnabled())
    GTEST_SKIP() << "AddressSanitizer owns malloc";
  constexpr int kSteps = 150;
  for (const auto& [scheme, solver] :
       {std::pair{Scheme::kSymplecticEuler, ContactSolverKind::kSap},
        std::pair{Scheme::kMidpoint, ContactSolverKind::kSap},
        std::pair{Scheme::kSymplecticEuler, ContactSolverKind::kSubAdmm},
        std::pair{Scheme::kSymplecticEuler, ContactSolverKind::kPgs},
        std::pair{Scheme::kSymplecticEuler, ContactSolverKind::kCanal},
        std::pair{Scheme::kSymplecticEuler, ContactSolverKind::kAdmm},
        std::pair{Scheme::kSymplecticEuler, ContactSolverKind::kSubAdmmNoBody}}) {
    Scene scene = RestingScene(scheme, solver);
    TimeStepper stepper(scene.parameters);
    const SystemState start = SaveState(scene.system);
    std::vector<int> first_run_contacts;
    for (int n = 0; n < kSteps; ++n) {
      const StepStatistics stats = stepper.Step(&scene.system);
      ASSERT_TRUE(stats.converged) << stats.failure;
      first_run_contacts.push_back(stats.num_contacts);
    }
    RestoreState(start, &scene.system);
    int pattern_changes = 0;
    for (int n = 0; n < kSteps; ++n) {
      const int contacts_before =
          n == 0 ? -1 : static_cast<int>(stepper.last_contacts().size());
      const auto [step, query] = StepAndQueryAllocations(&stepper, &scene, 0);
      const int contacts = static_cast<int>(stepper.last_contacts().size());
      ASSERT_EQ(contacts, first_run_contacts[n])
          << "step " << n << ": the replay left the first run's trajectory";
      pattern_changes += contacts != contacts_before;
      EXPECT_EQ(step, 0) << ToString(scheme) << ", " << ToString(solver) << ", step " << n
                         << " (" << contacts << " contacts): allocated " << step
                         << " times, the query " << query;
    }
    // The replay covers the changes it is meant to: ≥ 20 steps whose
    // contact count differs from the step before.
    EXPECT_GE(pattern_changes, 20) << ToString(scheme) << ", " << ToString(solver);
    std::printf("%s, %s: %d steps of a changed contact count replayed\n",
                ToString(scheme).c_str(), ToString(solver).c_str(), pattern_changes);
  }
}

// A step solved twice: the pendulum, swung at 1.5 rad/s into the hinge's
// limit that it rests on, starts the step with its controller's effort
// inside a limit of 5 N·m (a − b v0 = −10 + 5.5 · 1.5 N·m) and so folded
// into the free motion; the limit stops it, the effort at the solution
// (−10 N·m) crosses the limit, and the step is solved again with the
// controller as a constraint. Both patterns were seen before (the limit at
// 5, then at 20, 2 s each: by then the clutter's bodies rest, and no box
// rocks a vertex into the ground's far points).
TEST(StepAllocation, AStepSolvedAgainForAControllerAtItsLimitAllocatesNothing) {
  if (!testing::AllocationCountingEnabled())
    GTEST_SKIP() << "AddressSanitizer owns malloc";
  Scene scene = RestingScene(Scheme::kSymplecticEuler, ContactSolverKind::kSap);
  int pendulum = 0;
  while (scene.system.tree(pendulum).name != "pendulum") ++pendulum;
  MultibodySystem::Tree& tree = scene.system.tree(pendulum);
  double& limit = tree.controllers[0].gains.effort_limit;
  TimeStepper stepper(scene.parameters);
  const auto pendulum_controller = [&] {
    for (const TimeStepper::ControllerConstraint& c :
         stepper.last_controller_constraints())
      if (c.tree == pendulum) return c;
    return TimeStepper::ControllerConstraint{};
  };
  for (const double warm_up_limit : {5.0, 20.0}) {
    limit = warm_up_limit;
    for (int n = 0; n < 200; ++n) ASSERT_TRUE(stepper.Step(&scene.system).converged);
  }
  ASSERT_EQ(pendulum_controller().constraint, -1);  // folded
  limit = 5.0;
  tree.v[0] = -1.5;  // into the lower limit
  const auto [step, query] = StepAndQueryAllocations(&stepper, &scene);
  EXPECT_GE(pendulum_controller().constraint, 0);  // solved again as a constraint
  EXPECT_EQ(step, 0) << "the step allocated " << step << " times, the query " << query;
}

// A floating-base robot (the A1 quadruped of example-robot-data) standing
// after its drop: its free joint is a translation and a spherical joint in
// series, so Pinocchio's algorithms allocate nothing either.
TEST(StepAllocation, AFloatingBaseRobotStepsWithoutAllocating) {
  if (!testing::AllocationCountingEnabled())
    GTEST_SKIP() << "AddressSanitizer owns malloc";
  std::string why;
  std::optional<Scene> loaded = testing::TryQuadrupedDrop(&why);
  if (!loaded) GTEST_SKIP() << why;
  Scene scene = std::move(*loaded);
  TimeStepper stepper(scene.parameters);
  for (int n = 0; n < 400; ++n) ASSERT_TRUE(stepper.Step(&scene.system).converged);
  for (int n = 0; n < 3; ++n) {
    const auto [step, query] = StepAndQueryAllocations(&stepper, &scene, 4);
    EXPECT_EQ(step, query) << "the step allocated " << step - query
                           << " times besides Coal's " << query;
  }
}

// The nut on the bolt: SDF contact (samples against the fields, clustering
// to 120) reuses its buffers, so the whole step allocates nothing, and the
// collision query alone nothing either (no Coal in it).
TEST(StepAllocation, SignedDistanceContactAllocatesNothing) {
  if (!testing::AllocationCountingEnabled())
    GTEST_SKIP() << "AddressSanitizer owns malloc";
  Scene scene = MakeBuiltinScene("bolt_nut");
  TimeStepper stepper(scene.parameters);
  for (int n = 0; n < 30; ++n) ASSERT_TRUE(stepper.Step(&scene.system).converged);
  for (int n = 0; n < 3; ++n) {
    const auto [step, query] = StepAndQueryAllocations(&stepper, &scene, 100);
    EXPECT_EQ(query, 0);
    EXPECT_EQ(step, 0);
  }
}

// Two boxes corner to corner, 5 mm apart: their closest features (two
// vertices) lie on no separating axis, and the closed form finds them
// (box_distance.h) where Coal's GJK would allocate.
TEST(StepAllocation, BoxesCornerToCornerQueryWithoutAllocating) {
  if (!testing::AllocationCountingEnabled())
    GTEST_SKIP() << "AddressSanitizer owns malloc";
  const Eigen::Vector3d size = Eigen::Vector3d::Constant(0.1);
  CollisionWorld world;
  world.AddGeometry(Box{size}, 0, 0, Eigen::Isometry3d::Identity());
  world.AddGeometry(Box{size}, 1, 0, Eigen::Isometry3d::Identity());
  // B turned half round an axis normal to the diagonal: its corner −(h, h, h)
  // comes to face A's corner (h, h, h).
  Eigen::Isometry3d X_WB = Eigen::Isometry3d::Identity();
  X_WB.linear() =
      Eigen::AngleAxisd(M_PI, Eigen::Vector3d(1, -1, 0).normalized()).toRotationMatrix();
  const double gap = 0.005;
  X_WB.translation() = Eigen::Vector3d::Constant(0.1 + gap / std::sqrt(3.0));
  const std::vector<Eigen::Isometry3d> X_WG{Eigen::Isometry3d::Identity(), X_WB};
  std::vector<ContactPoint> contacts;
  world.ComputeContacts(X_WG, 0.01, &contacts);  // sizes the buffers
  const long before = testing::AllocationCount();
  world.ComputeContacts(X_WG, 0.01, &contacts);
  EXPECT_EQ(testing::AllocationCount() - before, 0);
  ASSERT_EQ(contacts.size(), 1u);
  EXPECT_NEAR(contacts[0].phi, gap, 1e-12);
  EXPECT_TRUE(contacts[0].normal_W.isApprox(Eigen::Vector3d::Ones().normalized(), 1e-12));
}

// A box, a ball and a capsule resting on a sloped height field (4 × 4
// elevations, 18 prisms): their closed-form patches with the prisms (face
// patches of the box and the capsule, the ball's point) allocate nothing.
// (Coal's queries of these pairs, at these shallow depths, allocate nothing
// either; where a pair overlaps by centimetres, they did, 54 times per
// query for one box.)
TEST(StepAllocation, ABoxABallAndACapsuleOnAHeightFieldQueryWithoutAllocating) {
  if (!testing::AllocationCountingEnabled())
    GTEST_SKIP() << "AddressSanitizer owns malloc";
  HeightField field;
  field.rows = field.cols = 4;
  field.half_size = Eigen::Vector2d(0.3, 0.3);
  field.base_depth = 0.1;
  for (int r = 0; r < 4; ++r) {
    for (int c = 0; c < 4; ++c) field.heights.push_back(0.02 * c + 0.01 * r);
  }
  CollisionWorld world;
  std::vector<Eigen::Isometry3d> X_WG;
  for (const HeightFieldPrism& prism : HeightFieldPrisms(field, "slope")) {
    X_WG.emplace_back(Eigen::Translation3d(prism.offset));
    world.AddGeometry(prism.mesh, -1, 0, X_WG.back());
  }
  world.AddGeometry(Box{Eigen::Vector3d(0.12, 0.1, 0.08)}, 0, 0,
                    Eigen::Isometry3d::Identity());
  world.AddGeometry(Sphere{0.05}, 1, 0, Eigen::Isometry3d::Identity());
  world.AddGeometry(Capsule{.radius = 0.03, .length = 0.1}, 2, 0,
                    Eigen::Isometry3d::Identity());
  X_WG.resize(world.num_geometries(), Eigen::Isometry3d::Identity());
  const int box = world.num_geometries() - 3, ball = box + 1, capsule = box + 2;
  // The surface z = 0.02 c + 0.01 r at x = (c − 1.5) 0.2, y = (r − 1.5) 0.2.
  const auto surface = [](double x, double y) {
    return 0.02 * (x / 0.2 + 1.5) + 0.01 * (y / 0.2 + 1.5);
  };
  // The box and the capsule (on its side) lie along the slope, 1 mm into
  // it; the ball 1 mm above it.
  const Eigen::Vector3d up = Eigen::Vector3d(-0.1, -0.05, 1.0).normalized();
  const Eigen::Matrix3d R_WS =
      Eigen::Quaterniond::FromTwoVectors(Eigen::Vector3d::UnitZ(), up).toRotationMatrix();
  const auto on_slope = [&](double x, double y, double height) {
    return Eigen::Vector3d(Eigen::Vector3d(x, y, surface(x, y)) + height * up);
  };
  X_WG[box].linear() = R_WS;
  X_WG[box].translation() = on_slope(-0.1, -0.1, 0.039);
  X_WG[ball].translation() = on_slope(0.15, 0.1, 0.051);
  X_WG[capsule].linear() =
      R_WS * Eigen::AngleAxisd(M_PI / 2, Eigen::Vector3d::UnitX()).toRotationMatrix();
  X_WG[capsule].translation() = on_slope(0.15, -0.15, 0.029);
  std::vector<ContactPoint> contacts;
  world.ComputeContacts(X_WG, 0.01, &contacts);  // sizes the buffers
  const long before = testing::AllocationCount();
  world.ComputeContacts(X_WG, 0.01, &contacts);
  EXPECT_EQ(testing::AllocationCount() - before, 0);
  const auto contacts_of = [&](int g) {
    int count = 0;
    for (const ContactPoint& contact : contacts)
      count += contact.geometry_a == g || contact.geometry_b == g;
    return count;
  };
  EXPECT_GE(contacts_of(box), 3);
  EXPECT_GE(contacts_of(ball), 1);
  EXPECT_GE(contacts_of(capsule), 1);
}

}  // namespace
}  // namespace coulomb
