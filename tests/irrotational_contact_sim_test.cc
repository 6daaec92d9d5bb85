// Simulations with the Hunt & Crossley contact models of the irrotational
// contact paper (Lagged, regularized Lagged, Similar), checked against
// closed forms and the properties of IRR Table I.
#include <cmath>

#include <gtest/gtest.h>

#include "coulomb/sim/time_stepper.h"

namespace coulomb {
namespace {

constexpr double kGravity = 9.81;

Eigen::Isometry3d At(double x, double y, double z) {
  Eigen::Isometry3d pose = Eigen::Isometry3d::Identity();
  pose.translation() = Eigen::Vector3d(x, y, z);
  return pose;
}

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

TEST(HuntCrossleyModels, StiffBoxStackRestsAtTheHookePenetrationUpToSteelTimesAThousand) {
  for (ContactModel model : {ContactModel::kLagged, ContactModel::kRegularizedLagged,
                             ContactModel::kSimilar}) {
    for (double stiffness : {1e6, 1e8, 1e10}) {
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

}  // namespace
}  // namespace coulomb
