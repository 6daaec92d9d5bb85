// The AL paper's dish shape (App. B): a revolved, thickened polyline. Its
// field against closed forms and the distance's own properties, its volume
// against Pappus' theorem integrated on a fine grid.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <random>

#include "coulomb/geometry/revolved_shell.h"
#include "coulomb/geometry/signed_distance_field.h"

namespace coulomb {
namespace {

constexpr double kPi = std::numbers::pi;
const RevolvedShellSize kBowl{{0.04, 0.0}, {0.075, 0.04}, 0.002};

TEST(RevolvedShell, DistanceMatchesTheClosedFormNearBaseAndRim) {
  const SdfShape bowl = MakeRevolvedShell(kBowl, "bowl");
  Eigen::Vector3d gradient;
  // Above the base, inside the bowl: the height over the base's skeleton.
  EXPECT_NEAR(bowl.field->Evaluate({0.01, -0.015, 0.01}, &gradient), 0.01 - 0.002, 1e-15);
  EXPECT_NEAR((gradient - Eigen::Vector3d::UnitZ()).norm(), 0.0, 1e-12);
  // Beyond the rim, along AB: the distance to B.
  const Eigen::Vector2d along = (kBowl.b - kBowl.a).normalized();
  const Eigen::Vector2d q = kBowl.b + 0.005 * along;
  EXPECT_NEAR(bowl.field->Evaluate({0.0, q.x(), q.y()}, &gradient), 0.005 - 0.002, 1e-15);
  // Under the middle of the base (on the axis): d below the skeleton is the surface.
  EXPECT_NEAR(bowl.field->Evaluate({0.0, 0.0, -0.002}, &gradient), 0.0, 1e-15);
  EXPECT_THROW(MakeRevolvedShell({{0.001, 0.0}, {0.05, 0.02}, 0.002}, "thin"),
               std::invalid_argument);
}

TEST(RevolvedShell, FieldIsADistanceItsGradientProjectsOntoTheSurface) {
  const SdfShape bowl = MakeRevolvedShell(kBowl, "bowl");
  std::mt19937 random(2);
  std::uniform_real_distribution<double> coordinate(-0.09, 0.09), height(-0.02, 0.06);
  Eigen::Vector3d gradient, unused;
  for (int k = 0; k < 200; ++k) {
    // Braces: drawn x, y, z in order (a call's arguments are not).
    const Eigen::Vector3d p{coordinate(random), coordinate(random), height(random)};
    const double phi = bowl.field->Evaluate(p, &gradient);
    const double h = 1e-7;
    Eigen::Vector3d difference;
    for (int d = 0; d < 3; ++d) {
      const Eigen::Vector3d step = h * Eigen::Vector3d::Unit(d);
      difference[d] = (bowl.field->Evaluate(p + step, &unused) -
                       bowl.field->Evaluate(p - step, &unused)) /
                      (2 * h);
    }
    EXPECT_NEAR((difference - gradient).norm(), 0.0, 1e-5) << p.transpose();
    EXPECT_NEAR(bowl.field->Evaluate(p - phi * gradient, &unused), 0.0, 1e-12);
  }
}

TEST(RevolvedShell, VolumeMatchesPappusOnAFineGrid) {
  // V = 2π ∫∫ r dA over the section {φ(r, z) ≤ 0, r ≥ 0}, cells of 20 µm.
  const SdfShape bowl = MakeRevolvedShell(kBowl, "bowl");
  const double cell = 2e-5;
  double volume = 0.0;
  Eigen::Vector3d unused;
  for (double r = 0.5 * cell; r < 0.08; r += cell) {
    for (double z = -0.003 + 0.5 * cell; z < 0.043; z += cell) {
      if (bowl.field->Evaluate({r, 0.0, z}, &unused) <= 0.0)
        volume += 2 * kPi * r * cell * cell;
    }
  }
  // The display surface: 72-gon rings (area factor sin(5°)/5° in radians)
  // on a meridian polyline 2 mm apart (its chords cut the rounded rims).
  const double polygon = std::sin(2 * kPi / 72) / (2 * kPi / 72);
  EXPECT_NEAR(Volume(bowl) / (volume * polygon), 1.0, 5e-3);
}

}  // namespace
}  // namespace coulomb
