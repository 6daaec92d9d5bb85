// The nut on the bolt (AL §VII-A1 scene): screw kinematics, self-locking and
// the frictionless screw's acceleration emerge from SDF contact alone (the
// nut is a free body; nothing but contact ties it to the bolt's axis).
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <string>

#include "coulomb/geometry/threaded_fasteners.h"
#include "coulomb/scenes/builtin_scenes.h"
#include "coulomb/sim/simulation.h"

namespace coulomb {
namespace {

constexpr double kPi = std::numbers::pi;
constexpr double kPitch = 0.005;  // M48
// tan λ cos 30° at the pitch radius r₂ = 22.376 mm: the friction above which
// the thread holds the nut (iso_thread.h).
const double kSelfLockingFriction = kPitch / (2 * kPi * 0.022376) * std::cos(kPi / 6);

// The nut's height and its turn about z, unwrapped from step to step.
struct NutMotion {
  double z = 0.0;
  double angle = 0.0;
  double vertical_velocity = 0.0;
};

class BoltNut {
 public:
  BoltNut(const std::string& option, const std::string& value)
      : simulation_(MakeBuiltinScene("bolt_nut", {{option, value}})) {}

  // Steps for `duration` [s], every step converged; returns the motion.
  NutMotion Advance(double duration) {
    const int steps = static_cast<int>(std::lround(duration / simulation_.time_step()));
    for (int k = 0; k < steps; ++k) {
      const StepStatistics& statistics = simulation_.Step();
      EXPECT_TRUE(statistics.converged) << "t = " << simulation_.time();
      const BodyState nut = simulation_.body_state("nut");
      const Eigen::Matrix3d& R = nut.pose.linear();
      const double yaw = std::atan2(R(1, 0), R(0, 0));
      motion_.angle += std::remainder(yaw - last_yaw_, 2 * kPi);
      last_yaw_ = yaw;
      motion_.z = nut.pose.translation().z();
      motion_.vertical_velocity = nut.linear_velocity.z();
    }
    return motion_;
  }

 private:
  Simulation simulation_;
  NutMotion motion_;
  double last_yaw_ = 0.0;
};

TEST(BoltNut, NutHoldsAboveTheSelfLockingFrictionAndScrewsDownBelowIt) {
  BoltNut holding("friction", std::to_string(2.0 * kSelfLockingFriction));
  const NutMotion settled = holding.Advance(0.05);  // onto the flanks
  const NutMotion later = holding.Advance(0.3);
  // Regularized friction creeps at ~σ μ δt g: micrometres, not a thread.
  EXPECT_NEAR(later.z, settled.z, 2e-6);
  EXPECT_NEAR(later.angle, settled.angle, 1e-3);

  BoltNut sliding("friction", std::to_string(0.5 * kSelfLockingFriction));
  const NutMotion start = sliding.Advance(0.05);
  const NutMotion end = sliding.Advance(0.3);
  EXPECT_LT(end.z - start.z, -1e-4);  // turned down by more than 0.1 mm
  // Screw kinematics: it advances one pitch per turn (right-handed: −z for
  // a turn about −z), to the nut's radial play over its travel.
  EXPECT_NEAR((end.z - start.z) / (end.angle - start.angle), kPitch / (2 * kPi),
              0.01 * kPitch / (2 * kPi));
}

TEST(BoltNut, FrictionlessNutScrewsDownWithTheScrewsReducedAcceleration) {
  // With μ = 0 the flanks do no work: m ż = −m g + ..., and ż = (P/2π) θ̇
  // gives a = g m / (m + I_zz (2π/P)²) (I_zz about the nut's axis).
  BoltNut frictionless("friction", "0");
  const NutMotion early = frictionless.Advance(0.1);
  const NutMotion late = frictionless.Advance(0.3);
  const Shape nut = MakeThreadedNut({});
  const double inertia_per_mass = UnitDensityInertia(nut)(2, 2) / Volume(nut);
  const double expected = 9.81 / (1.0 + inertia_per_mass * std::pow(2 * kPi / kPitch, 2));
  const double measured = -(late.vertical_velocity - early.vertical_velocity) / 0.3;
  EXPECT_NEAR(measured / expected, 1.0, 0.03);
}

TEST(BoltNut, TorqueScrewsTheNutUpOnePitchPerTurn) {
  BoltNut turned("torque", "0.3");
  // Measured once the nut has crossed its axial play (0.23 mm) onto the
  // bolt's upper flanks and turns steadily.
  const NutMotion start = turned.Advance(0.15);
  const NutMotion end = turned.Advance(0.35);
  ASSERT_GT(end.angle - start.angle, 2 * kPi);  // at least one full turn
  EXPECT_NEAR((end.z - start.z) / (end.angle - start.angle), kPitch / (2 * kPi),
              0.01 * kPitch / (2 * kPi));
}

}  // namespace
}  // namespace coulomb
