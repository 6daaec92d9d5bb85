// Simulations with the Hunt & Crossley contact models of the irrotational
// contact paper (Lagged, regularized Lagged, Similar), checked against
// closed forms and the properties of IRR Table I.
#include <cmath>
#include <map>
#include <numbers>

#include <gtest/gtest.h>

#include "coulomb/bench/trajectory_analysis.h"
#include "coulomb/scenes/builtin_scenes.h"
#include "coulomb/scenes/irr_scenes.h"
#include "coulomb/sim/simulation.h"
#include "coulomb/sim/time_stepper.h"
#include "test_support.h"

namespace coulomb {
namespace {

constexpr double kGravity = 9.81;

using testing::At;

TimeStepperParameters Parameters(ContactModel model, double dt) {
  TimeStepperParameters parameters;
  parameters.time_step = dt;
  parameters.contact.model = model;
  return parameters;
}

// A 5 kg cube (10 cm) centred on a 1 kg box (20 × 20 × 10 cm) on the
// ground, all with stiffness k: each interface has 4 symmetric corner
// contacts with the series stiffness k/2, so at rest the bottom corners
// penetrate x = (6 kg) g / (4 · k/2) (f = k x at rest, ẋ = 0).
MultibodySystem BoxStack(double stiffness) {
  ContactMaterial material;
  material.stiffness = stiffness;
  material.friction = 0.5;
  MultibodySystem system;
  system.AddStaticGeometry(HalfSpace{}, Eigen::Isometry3d::Identity(), material);
  system.AddFreeBody("bottom", Box{{0.2, 0.2, 0.1}}, 1.0, At(0, 0, 0.05),
                     Eigen::Vector3d::Zero(), Eigen::Vector3d::Zero(), material);
  system.AddFreeBody("top", Box{{0.1, 0.1, 0.1}}, 5.0, At(0, 0, 0.15),
                     Eigen::Vector3d::Zero(), Eigen::Vector3d::Zero(), material);
  return system;
}

// Stiffer contact is clamped near-rigid (stiff_contact_test.cc).
TEST(HuntCrossleyModels, StiffBoxStackRestsAtTheHookePenetrationUpToTheNearRigidClamp) {
  for (ContactModel model : {ContactModel::kLagged, ContactModel::kRegularizedLagged,
                             ContactModel::kSimilar}) {
    for (double stiffness : {1e6, 1e7, 1e8}) {
      MultibodySystem system = BoxStack(stiffness);
      TimeStepper stepper(Parameters(model, 0.01));
      StepStatistics last;
      for (int n = 0; n < 150; ++n) {
        last = stepper.Step(&system);
        ASSERT_TRUE(last.converged) << ToString(model) << " k = " << stiffness << " step "
                                    << n << ": " << last.failure;
      }
      const double expected = 6.0 * kGravity / (4.0 * 0.5 * stiffness);
      // At rest f = k x exactly; 1 % covers the remaining settling motion.
      EXPECT_NEAR(last.max_penetration, expected, 0.01 * expected)
          << ToString(model) << " k = " << stiffness;
      for (int t = 0; t < 2; ++t) {
        EXPECT_LT(system.tree(t).v.norm(), 1e-4)
            << ToString(model) << " k = " << stiffness;
      }
    }
  }
}

TEST(ContactMaterial, HuntCrossleyDissipationCombinesWeightedByTheOtherStiffness) {
  ContactMaterial soft, stiff, rigid;
  soft.stiffness = 1e4;
  soft.hunt_crossley_dissipation = 2.0;
  stiff.stiffness = 3e4;
  stiff.hunt_crossley_dissipation = 10.0;
  rigid.hunt_crossley_dissipation = 50.0;
  // d = (k_b d_a + k_a d_b)/(k_a + k_b): the softer side dominates.
  EXPECT_DOUBLE_EQ(CombineContactMaterials(soft, stiff).hunt_crossley_dissipation,
                   (3e4 * 2.0 + 1e4 * 10.0) / 4e4);
  EXPECT_DOUBLE_EQ(CombineContactMaterials(stiff, soft).hunt_crossley_dissipation,
                   CombineContactMaterials(soft, stiff).hunt_crossley_dissipation);
  EXPECT_DOUBLE_EQ(CombineContactMaterials(rigid, soft).hunt_crossley_dissipation, 2.0);
  EXPECT_DOUBLE_EQ(CombineContactMaterials(rigid, rigid).hunt_crossley_dissipation, 50.0);
  ContactMaterial negative;
  negative.hunt_crossley_dissipation = -1.0;
  EXPECT_THROW(ValidateContactMaterial(negative), std::invalid_argument);
}

TEST(HuntCrossleyModels, InfiniteStiffnessIsAClearStepFailure) {
  MultibodySystem system = BoxStack(std::numeric_limits<double>::infinity());
  TimeStepper stepper(Parameters(ContactModel::kLagged, 0.01));
  const StepStatistics stats = stepper.Step(&system);
  EXPECT_FALSE(stats.converged);
  EXPECT_NE(stats.failure.find("finite stiffness"), std::string::npos) << stats.failure;
}

Simulation RunScene(Scene scene, ContactModel model, double time_step) {
  scene.parameters.contact.model = model;
  scene.parameters.time_step = time_step;
  Simulation simulation(std::move(scene));
  const SimulationSummary summary = simulation.Run();
  EXPECT_TRUE(summary.failure.empty()) << summary.failure;
  return simulation;
}

PrescribedMotion Belt() {  // as in ConveyorBeltScene
  PrescribedMotion belt;
  belt.amplitude = Eigen::Vector3d(0.2, 0, 0);
  belt.frequency = 1.0;
  belt.phase = -0.5 * std::numbers::pi;
  return belt;
}

// IRR Table I / docs/math.md §3.5: while sliding the box floats c μ ‖v_t‖ above
// its resting height, c = δt + τ_d (SAP, τ_d = 1e-3 s), δt (Similar), 0
// (Lagged), at both step sizes.
TEST(ConveyorBelt, GlidingOffsetsFollowIrrTableOne) {
  for (double dt : {0.01, 0.005}) {
    for (auto [model, expected] :
         {std::pair{ContactModel::kSap, dt + 1e-3}, std::pair{ContactModel::kSimilar, dt},
          std::pair{ContactModel::kLagged, 0.0}}) {
      const Simulation run = RunScene(ConveyorBeltScene({}), model, dt);
      const GlidingMeasurement g =
          MeasureGliding(run.trajectory(), 0, Belt(), 0.7, dt, 0.01);
      ASSERT_GT(g.sliding_samples, 10) << ToString(model);
      ASSERT_GT(g.stick_samples, 10) << ToString(model);
      // The offset law is the models' steady sliding state; 5 % covers the
      // transients at slip onset. Lagged: the box stays at rest height to
      // the 1e-7 m of its changing static deflection.
      EXPECT_NEAR(g.offset_per_slip, expected, 0.05 * dt)
          << ToString(model) << " δt " << dt;
      if (model == ContactModel::kLagged) {
        EXPECT_LT(g.max_normal_speed_sliding, 1e-5);  // Lagged: v_n ≈ 0 throughout
      } else {
        EXPECT_GT(g.max_normal_speed_sliding, 1e-3);  // the gliding normal velocity
      }
    }
  }
}

// Lagged is consistent: its belt trajectory converges at first order to a
// Lagged run at a 10× smaller step (IRR §IX-A).
TEST(ConveyorBelt, LaggedConvergesAtFirstOrder) {
  const Simulation reference =
      RunScene(ConveyorBeltScene({}), ContactModel::kLagged, 2e-4);
  std::vector<double> time_steps = {2e-3, 1e-2, 5e-2}, errors;
  for (double dt : time_steps) {
    const Simulation run = RunScene(ConveyorBeltScene({}), ContactModel::kLagged, dt);
    errors.push_back(PositionErrorRms(run.trajectory(), reference.trajectory(), 0));
  }
  EXPECT_LT(errors[0], errors[1]);
  EXPECT_LT(errors[1], errors[2]);
  // A slope fitted over a 25× range of δt carries the next-order term (tens
  // of percent at the coarsest step); ±0.2 still tells first order from
  // second by five widths.
  EXPECT_NEAR(FittedOrder(time_steps, errors), 1.0, 0.2);
}

// Angular momentum about the contact point is conserved from release to
// rolling when all contact forces act at a point on the ground (gravity's
// moment about it is zero): a solid sphere ends rolling at
// v = v0 / (1 + 2/5) = 10/7 m/s. Lagged does this; SAP and Similar push
// while gliding above the ground, with a longer lever arm, and miss it by an
// amount that for Similar (consistent) shrinks with δt.
double FinalSpeedError(ContactModel model, double dt) {
  const Simulation run = RunScene(FallingSphereScene({}), model, dt);
  const auto& last = run.trajectory().body_samples[0].back();
  EXPECT_NEAR(last(7) - 0.025 * last(11), 0.0, 1e-3) << ToString(model);  // rolling
  return std::abs(last(7) - 10.0 / 7.0) / (10.0 / 7.0);
}

TEST(FallingSphere, EndsRollingAtFiveSeventhsOfItsInitialSpeed) {
  // Stiction lets the contact point creep at ≤ v_s = 1e-4 m/s; 0.5 % covers
  // it and the small bounce at touch-down.
  EXPECT_LT(FinalSpeedError(ContactModel::kLagged, 2e-3), 0.005);
  EXPECT_LT(FinalSpeedError(ContactModel::kSimilar, 4e-4),
            0.5 * FinalSpeedError(ContactModel::kSimilar, 2e-3));
  EXPECT_LT(FinalSpeedError(ContactModel::kSap, 2e-3), 0.02);
}

// SAP and Similar touch down early (action at a distance, IRR §IX-B):
// SAP first, then Similar, then Lagged, which lands at the free-fall time
// √(2 h / g) = 0.101 s to within a step.
TEST(FallingSphere, TouchDownOrderIsSapSimilarLagged) {
  const double dt = 2e-3;
  std::map<ContactModel, double> touch_down;  // a model never touching down is absent
  for (ContactModel model :
       {ContactModel::kSap, ContactModel::kLagged, ContactModel::kSimilar}) {
    const Simulation run = RunScene(FallingSphereScene({}), model, dt);
    const auto& samples = run.trajectory().body_samples[0];
    for (size_t n = 1; n < samples.size(); ++n) {
      if (std::abs(samples[n](9) - samples[n - 1](9) + kGravity * dt) > 1e-6) {
        touch_down[model] = run.trajectory().time[n];
        break;
      }
    }
  }
  ASSERT_EQ(touch_down.size(), 3u) << "a model never touched down";
  EXPECT_LT(touch_down.at(ContactModel::kSap), touch_down.at(ContactModel::kSimilar));
  EXPECT_LT(touch_down.at(ContactModel::kSimilar), touch_down.at(ContactModel::kLagged));
  EXPECT_NEAR(touch_down.at(ContactModel::kLagged), std::sqrt(2 * 0.05 / kGravity), dt);
}

// How a step's contact impulses sit against the friction cone of the same
// step's normal impulses, ‖γ_t‖ ≤ μ γ_n (the clutter's μ = 1 everywhere).
struct ConeCount {
  int touching = 0;           // γ_n > 0
  int on_the_boundary = 0;    // touching, with ‖γ_t‖ ≥ 0.999 μ γ_n: sliding
  int outside = 0;            // ‖γ_t‖ > μ γ_n beyond round-off
  double least_normal = 0.0;  // min γ_n / (1 + ‖γ‖)
};

void CountAgainstTheCone(const std::vector<Contact>& contacts, ConeCount* count) {
  constexpr double kClutterFriction = 1.0;
  for (const Contact& contact : contacts) {
    const double scale = 1.0 + contact.impulse.norm();
    const double normal = contact.impulse.dot(contact.normal);
    const double tangential = (contact.impulse - normal * contact.normal).norm();
    count->least_normal = std::min(count->least_normal, normal / scale);
    if (normal > 0.0) ++count->touching;
    if (tangential - kClutterFriction * normal > 1e-12 * scale) {
      ++count->outside;
    } else if (normal > 0.0 && tangential >= 0.999 * kClutterFriction * normal) {
      ++count->on_the_boundary;
    }
  }
}

// IRR Table I's "strongly coupled" column on every contact of the 40-body
// clutter's landing (1.5 s, impacts and sliding): SAP and Similar bound a
// contact's friction by μ times the normal impulse of the same step; the
// Lagged models by μ times the lagged impulse of the step's starting
// overlap (γ_n0, lagged_contact.h), which a coarse step's impacts make far
// larger than the step's own, so their friction leaves that cone.
TEST(Clutter, OnlyTheStronglyCoupledModelsBoundFrictionByTheStepsNormalImpulse) {
  for (ContactModel model : {ContactModel::kSap, ContactModel::kSimilar,
                             ContactModel::kRegularizedLagged, ContactModel::kLagged}) {
    Scene scene = MakeBuiltinScene("clutter", {{"bodies", "40"}});
    scene.parameters.contact.model = model;
    Simulation simulation(std::move(scene));
    ConeCount count;
    for (int n = 0; n < 150; ++n) {
      const StepStatistics& step = simulation.Step();
      ASSERT_TRUE(step.converged)
          << ToString(model) << " step " << n << ": " << step.failure;
      CountAgainstTheCone(simulation.contacts(), &count);
    }
    EXPECT_GT(count.least_normal, -1e-12) << ToString(model) << ": a pulling contact";
    const bool strongly_coupled =
        model == ContactModel::kSap || model == ContactModel::kSimilar;
    if (strongly_coupled) {
      EXPECT_EQ(count.outside, 0) << ToString(model);
      // The bound is reached, not just respected: sliding contacts sit on it.
      EXPECT_GT(count.on_the_boundary, count.touching / 10) << ToString(model);
    } else {
      EXPECT_GT(count.outside, count.touching / 20) << ToString(model);
    }
  }
}

}  // namespace
}  // namespace coulomb
