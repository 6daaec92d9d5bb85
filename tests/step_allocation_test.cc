// Counts heap allocations per time step (allocation_counter.h: every
// malloc, calloc and realloc of this test executable): nothing allocates
// inside the step loop once the contact pattern has been seen.
#include <unistd.h>

#include <filesystem>

#include <gtest/gtest.h>

#include "allocation_counter.h"
#include "coulomb/scenes/builtin_scenes.h"
#include "coulomb/sim/time_stepper.h"
#include "robot_scenes.h"
#include "test_support.h"

namespace coulomb {
namespace {

// Eight clutter bodies at rest in their box, and the test_support pendulum
// held by a PD controller against its lower joint limit (so that contacts,
// a joint limit and a controller are all in the problem).
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
  return scene;
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
TEST(StepAllocation, StepsAllocateNothingButCoalsOwnOnceThePatternWasSeen) {
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
    // 4 s: the midpoint scheme's bodies still rock apart at 3 s, and the
    // last speculative contact between two of them goes just after. That
    // step allocates (6 times), although its pattern of 22 contacts was seen
    // before: the joint limit and the controller move to constraint slots
    // that held contacts (their potentials are made anew), and the working
    // set's whole-problem v_c changes size. What is checked here is a step
    // with the pattern of the step before it.
    for (int n = 0; n < 400; ++n) ASSERT_TRUE(stepper.Step(&scene.system).converged);
    ASSERT_GT(stepper.last_problem()->num_constraints(),
              stepper.last_problem()->num_cliques());
    for (int n = 0; n < 5; ++n) {
      const auto [step, query] = StepAndQueryAllocations(&stepper, &scene);
      // Everything in the step but the narrow phase is allocation-free. What
      // remains is inside libcoal (3.0.3), traced with backtraces at malloc:
      // its COAL_ASSERT constructs the std::logic_error / invalid_argument
      // (and its message string) of every assertion that holds, in
      // GJK::reset, GJKSolver::runGJKAndEPA and GJKExtractWitnessPoints and
      // ShapeShapeContactPatch (one each per colliding pair), and
      // computeSupportSetConvex allocates its support set with new.
      EXPECT_EQ(step, query) << ToString(scheme) << ", " << ToString(solver)
                             << ": the step allocated " << step - query
                             << " times besides Coal's " << query;
      std::printf("%s, %s: %ld allocations per step, all in Coal's narrow phase\n",
                  ToString(scheme).c_str(), ToString(solver).c_str(), step);
    }
  }
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

}  // namespace
}  // namespace coulomb
