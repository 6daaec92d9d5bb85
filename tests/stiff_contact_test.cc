// Lagged and Similar at any stiffness (docs/stiff_contact.md): the 40-body
// clutter runs through from soft to near-rigid contact, and a resting
// sphere's penetration follows Hooke's law up to the near-rigid clamp, then
// the clamp's closed form.
#include <cmath>
#include <numbers>
#include <string>

#include <gtest/gtest.h>

#include "coulomb/coulomb.h"
#include "coulomb/scenes/builtin_scenes.h"
#include "coulomb/solvers/sap_solver.h"

namespace coulomb {
namespace {

constexpr double kEpsilonR = 1e-6;  // the clutter's ε_r

struct SweepCase {
  ContactModel model;
  double stiffness;  // per geometry [N/m]
};

class StiffClutter : public ::testing::TestWithParam<SweepCase> {};

// 10 s of the 40-body clutter with walls (δt = 10 ms): no failed step, no
// energy gain, round-off acceptances within their bound, and the clamp on
// exactly where the stiffness exceeds what the step resolves.
TEST_P(StiffClutter, RunsTenSecondsWithoutFailureOrEnergyGain) {
  const SweepCase c = GetParam();
  Scene scene = MakeBuiltinScene("clutter", {{"stiffness", std::to_string(c.stiffness)}});
  scene.parameters.contact.model = c.model;
  Simulation simulation(std::move(scene));
  const SimulationSummary summary = simulation.Run();
  EXPECT_EQ(summary.failed_steps, 0) << summary.failure;
  EXPECT_EQ(summary.steps, 1000);
  int near_rigid = 0;
  for (const StepRecord& record : simulation.records()) {
    EXPECT_LE(record.energy, summary.energy_initial * (1 + 1e-9))
        << "t = " << record.time;
    const StepStatistics& s = record.statistics;
    const double bound =
        s.converged_at_roundoff ? SapSolver::kRoundoffAcceptance * kEpsilonR : kEpsilonR;
    EXPECT_LE(s.momentum_error, bound) << "t = " << record.time;
    near_rigid = std::max(near_rigid, s.near_rigid_contacts);
  }
  if (c.stiffness <= 1e6) {
    EXPECT_EQ(near_rigid, 0);
  } else {
    EXPECT_GT(near_rigid, 0);
  }
}

INSTANTIATE_TEST_SUITE_P(ModelsAndStiffnesses, StiffClutter, ::testing::ValuesIn([] {
                           std::vector<SweepCase> cases;
                           for (ContactModel model :
                                {ContactModel::kLagged, ContactModel::kRegularizedLagged,
                                 ContactModel::kSimilar}) {
                             for (double stiffness : {1e6, 1e9, 1e12, 1e14})
                               cases.push_back({model, stiffness});
                           }
                           return cases;
                         }()),
                         [](const ::testing::TestParamInfo<SweepCase>& info) {
                           return ToString(info.param.model) + "_k1e" +
                                  std::to_string(static_cast<int>(
                                      std::lround(std::log10(info.param.stiffness))));
                         });

// The IRR scenes (a box on the belt, the falling sphere, Painlevé's rod)
// run through at steel-times-a-million stiffness under every model, without
// energy gain where nothing drives them (the belt does work on the box).
TEST(StiffIrrScenes, RunWithoutFailureAtNearRigidStiffness) {
  for (const char* name : {"conveyor_belt", "falling_sphere", "sliding_rod"}) {
    for (ContactModel model : {ContactModel::kLagged, ContactModel::kRegularizedLagged,
                               ContactModel::kSimilar}) {
      Scene scene = MakeBuiltinScene(name, {{"stiffness", "1e14"}});
      scene.parameters.contact.model = model;
      Simulation simulation(std::move(scene));
      const SimulationSummary summary = simulation.Run();
      EXPECT_EQ(summary.failed_steps, 0)
          << name << " " << ToString(model) << ": " << summary.failure;
      if (std::string(name) != "conveyor_belt") {
        EXPECT_LE(summary.energy_final, summary.energy_initial) << name;
      }
    }
  }
}

// The clamp is what makes stiff Lagged solvable: switched off, the clutter
// at 1e14 N/m fails within its first second. (At 1e12 it runs, at 36 Newton
// iterations per step on average and up to 238: docs/stiff_contact.md.)
TEST(StiffClutterWithoutClamp, LaggedFailsAtNearRigidStiffness) {
  Scene scene = MakeBuiltinScene(
      "clutter", {{"stiffness", "1e14"}, {"hunt_crossley_near_rigid_threshold", "0"}});
  scene.parameters.contact.model = ContactModel::kLagged;
  Simulation simulation(std::move(scene));
  EXPECT_GT(simulation.RunFor(1.0).failed_steps, 0);
}

// A 1 kg sphere (r = 0.1 m) at rest on rigid ground under Lagged, δt = 10
// ms: its penetration is Hooke's m g / k while the contact's period 2π/√(k
// w) is resolved, and m g / k_eff once clamped, k_eff = (2π/(β_HC δt))² / w
// with w = ‖W‖_F/3 of the contact. Closed form of W for a solid sphere
// touching at its bottom: (1/m) diag(1 + r²m/I, 1 + r²m/I, 1), I = 2/5 m r².
double RestingPenetration(double stiffness) {
  Scene scene;
  ContactMaterial ground;  // rigid: the pair has the sphere's stiffness
  ContactMaterial sphere;
  sphere.stiffness = stiffness;
  scene.system.AddStaticGeometry(HalfSpace{}, Eigen::Isometry3d::Identity(), ground);
  scene.system.AddFreeBody("ball", Sphere{0.1}, 1.0, Pose(Eigen::Vector3d(0, 0, 0.1)),
                           Eigen::Vector3d::Zero(), Eigen::Vector3d::Zero(), sphere);
  scene.parameters.contact.model = ContactModel::kLagged;
  Simulation simulation(std::move(scene));
  EXPECT_EQ(simulation.RunFor(3.0).failed_steps, 0);
  const std::vector<Contact> contacts = simulation.contacts();
  EXPECT_EQ(contacts.size(), 1u);
  return contacts.empty() ? 0.0 : contacts.front().depth;
}

TEST(StiffRestingSphere, PenetrationIsHookeUpToTheClampThenTheClamp) {
  const double m = 1.0, g = 9.81, dt = 0.01;
  const double tangential = 1.0 + 1.0 / 0.4;  // 1 + r² m / I
  const double w = std::sqrt(2 * tangential * tangential + 1.0) / m / 3.0;
  const double rate =
      2.0 * std::numbers::pi / (kDefaultHuntCrossleyNearRigidThreshold * dt);
  const double k_clamp = rate * rate / w;
  for (double k : {1e3, 1e5, 1e7, 1e10, 1e14}) {
    const double expected = m * g / std::min(k, k_clamp);
    EXPECT_NEAR(RestingPenetration(k), expected, 1e-3 * expected) << "k = " << k;
  }
}

}  // namespace
}  // namespace coulomb
