// The ISO thread's signed distance against independent computations: the
// profile's published dimensions, brute-force distances to a densely
// sampled profile and helical surface, and the closed-form volume.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numbers>
#include <random>

#include "coulomb/geometry/iso_thread.h"
#include "coulomb/geometry/shape.h"
#include "coulomb/geometry/signed_distance_field.h"
#include "coulomb/geometry/threaded_fasteners.h"

namespace coulomb {
namespace {

constexpr double kPi = std::numbers::pi;
const IsoThreadProfile kM48(0.024, 0.005);

TEST(IsoThreadProfile, HasIsoBasicDimensions) {
  // ISO 724: M48×5 has d₁ = d − 1.082532 P = 42.587 mm, d₂ = d − 0.649519 P.
  EXPECT_NEAR(2.0 * kM48.minor_radius(), 0.048 - 1.082532 * 0.005, 1e-8);
  // The pitch radius is where the flank is: R(s) = r₂ at s = ±P/4 (the
  // thread and the gap are equally wide there).
  EXPECT_NEAR(2.0 * kM48.Radius(0.25 * 0.005), 0.048 - 0.649519 * 0.005, 1e-8);
  // Crest flat P/8 wide at d, root flat P/4 wide at d₁, period P.
  EXPECT_DOUBLE_EQ(kM48.Radius(0.0624 * 0.005), 0.024);
  EXPECT_DOUBLE_EQ(kM48.Radius(0.376 * 0.005), kM48.minor_radius());
  EXPECT_DOUBLE_EQ(kM48.Radius(0.3 * 0.005 + 3 * 0.005), kM48.Radius(0.3 * 0.005));
  EXPECT_THROW(IsoThreadProfile(0.002, 0.005), std::invalid_argument);
}

// Brute force: the distance from (r, s) to the curve r = R(s) sampled every
// 0.2 µm over three periods.
double SampledProfileDistance(double r, double s) {
  const double pitch = kM48.pitch(), step = 2e-7;
  const double center = pitch * std::round(s / pitch);
  double best = std::numeric_limits<double>::infinity();
  for (double t = center - 1.5 * pitch; t <= center + 1.5 * pitch; t += step) {
    best = std::min(best, std::hypot(r - kM48.Radius(t), s - t));
  }
  return r < kM48.Radius(s) ? -best : best;
}

TEST(IsoThreadProfile, SectionDistanceMatchesBruteForceAndItsGradientFiniteDifferences) {
  std::mt19937 random(7);
  std::uniform_real_distribution<double> radius(0.020, 0.026), phase(-0.02, 0.02);
  for (int k = 0; k < 40; ++k) {
    const double r = radius(random), s = phase(random);
    Eigen::Vector2d gradient;
    const double phi = kM48.SectionDistance(r, s, &gradient);
    // The sampled curve's chords are within (0.2 µm)² / curvature of it: 1e-7.
    EXPECT_NEAR(phi, SampledProfileDistance(r, s), 1e-7) << "r " << r << " s " << s;
    const double h = 1e-8;
    Eigen::Vector2d unused;
    const Eigen::Vector2d difference((kM48.SectionDistance(r + h, s, &unused) -
                                      kM48.SectionDistance(r - h, s, &unused)) /
                                         (2 * h),
                                     (kM48.SectionDistance(r, s + h, &unused) -
                                      kM48.SectionDistance(r, s - h, &unused)) /
                                         (2 * h));
    EXPECT_NEAR((gradient - difference).norm(), 0.0, 1e-5);
    EXPECT_NEAR(gradient.norm(), 1.0, 1e-12);
  }
}

// A point of the helical surface r = R(s), z = s + Pθ/2π.
Eigen::Vector3d HelixPoint(double theta, double s) {
  const double r = kM48.Radius(s);
  return {r * std::cos(theta), r * std::sin(theta), s + kM48.pitch() * theta / (2 * kPi)};
}

// Brute force: the nearest of the surface's points sampled every 4 µm in
// s and 4 µm of arc in θ, in a window about p's own angle.
double SampledHelixDistance(const Eigen::Vector3d& p) {
  const double theta0 = std::atan2(p.y(), p.x());
  const double s0 = p.z() - kM48.pitch() * theta0 / (2 * kPi);
  const double d_theta = 4e-6 / 0.021;
  double best = std::numeric_limits<double>::infinity();
  for (double theta = theta0 - 0.06; theta <= theta0 + 0.06; theta += d_theta) {
    for (double s = s0 - 1e-3; s <= s0 + 1e-3; s += 4e-6) {
      best = std::min(best, (HelixPoint(theta, s) - p).squaredNorm());
    }
  }
  return std::sqrt(best);
}

TEST(IsoThreadProfile, HelicalDistanceMatchesTheSurfacesBruteForceDistance) {
  std::mt19937 random(3);
  std::uniform_real_distribution<double> angle(-kPi, kPi), phase(0.0, 0.005),
      offset(-4e-4, 4e-4);
  for (int k = 0; k < 12; ++k) {
    // A point up to 0.4 mm off the surface along its true normal, the cross
    // product of the parametrization's tangents (not the field's gradient).
    const double theta = angle(random), s = phase(random);
    const double h = 1e-7;
    const Eigen::Vector3d along_theta =
        HelixPoint(theta + h, s) - HelixPoint(theta - h, s);
    const Eigen::Vector3d along_s = HelixPoint(theta, s + h) - HelixPoint(theta, s - h);
    Eigen::Vector3d normal = along_theta.cross(along_s).normalized();
    if (normal.dot(HelixPoint(theta, s).normalized()) < 0) normal = -normal;  // outward
    const double t = offset(random);
    const Eigen::Vector3d p = HelixPoint(theta, s) + t * normal;
    Eigen::Vector3d gradient;
    const double phi = kM48.HelicalDistance(p, &gradient);
    // Sampling error ≤ 4 µm · √2 / 2; near the flank–crest corners the
    // nearest point may be a corner, so only |φ| ≤ |t| is sure there.
    EXPECT_NEAR(std::abs(phi), SampledHelixDistance(p), 4e-6)
        << "θ " << theta << " s " << s;
    // f/|∇f| is the distance to first order: within t²-terms of |t|.
    EXPECT_LE(std::abs(phi), std::abs(t) * (1 + 1e-3) + 1e-9);
    EXPECT_EQ(phi < 0, t < 0);
    if (std::abs(t) > 1e-5 && std::abs(phi - t) < 1e-6) {
      EXPECT_NEAR(gradient.dot(normal), 1.0, 1e-6);  // on a face: the face's normal
    }
  }
}

// ⟨R²⟩ over a period of the trapezoid wave: crest 1/8 of the period at
// r_major, root 1/4 at r_minor, flanks 5/8 linear between.
double MeanSquareRadius(double major, double minor) {
  return major * major / 8 + minor * minor / 4 +
         5.0 / 8.0 * (major * major + major * minor + minor * minor) / 3.0;
}

TEST(ThreadedFasteners, VolumesMatchTheClosedForm) {
  const SdfShape bolt = MakeThreadedBolt({0.048, 0.005, 0.08, 0.0});
  const double rod = 0.08 * kPi * MeanSquareRadius(0.024, kM48.minor_radius());
  // The display surface is a 72-gon per ring: area factor sin(2π/72)/(2π/72).
  const double polygon = std::sin(2 * kPi / 72) / (2 * kPi / 72);
  EXPECT_NEAR(Volume(bolt) / (rod * polygon), 1.0, 2e-3);
  const SdfShape nut = MakeThreadedNut({});
  const double hexagon = 2.0 * std::sqrt(3.0) * 0.0375 * 0.0375 * 0.038;
  const double hole = 0.038 * kPi * MeanSquareRadius(0.024, kM48.minor_radius());
  EXPECT_NEAR(Volume(nut) / (hexagon - hole * polygon), 1.0, 2e-3);
  // The nut's inertia about its axis exceeds a ring's of the same mass
  // between the hole's mean radius and the hexagon's inscribed circle.
  const Eigen::Matrix3d inertia = UnitDensityInertia(nut);
  EXPECT_GT(inertia(2, 2), 0.5 * Volume(nut) * (0.0375 * 0.0375 + 0.022 * 0.022));
}

TEST(ThreadedFasteners, SamplesLieOnTheSurfaceWithOutwardNormals) {
  for (const SdfShape& shape : {MakeThreadedBolt({}), MakeThreadedNut({})}) {
    const SignedDistanceField& field = *shape.field;
    ASSERT_GT(field.sample_points().size(), 5000u) << shape.description;
    Eigen::Vector3d gradient;
    int checked = 0, inside_behind = 0;
    for (size_t i = 0; i < field.sample_points().size(); i += 37) {
      const Eigen::Vector3d& p = field.sample_points()[i];
      const Eigen::Vector3d& n = field.sample_normals()[i];
      EXPECT_NEAR(field.Evaluate(p, &gradient), 0.0, 1e-7);
      // Outward: 20 µm out along n is outside; 20 µm in is inside, except
      // on the rims, where n is one face's and the step runs along another.
      EXPECT_GT(field.Evaluate(p + 2e-5 * n, &gradient), 0.0) << shape.description;
      ++checked;
      inside_behind += field.Evaluate(p - 2e-5 * n, &gradient) < 0.0;
    }
    EXPECT_GT(inside_behind, 0.95 * checked) << shape.description;
  }
}

TEST(ThreadedFasteners, RejectBadDimensionsWithTheirNames) {
  // The error of make(), which must name `what`.
  const auto expect_error_naming = [](auto make, const std::string& what) {
    try {
      make();
      ADD_FAILURE() << "no error for " << what;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  expect_error_naming([] { MakeThreadedBolt({0.048, 0.005, -1.0, 0.0}); }, "length");
  expect_error_naming([] { MakeThreadedBolt({0.048, 0.005, 0.08, 0.01}); }, "clearance");
  expect_error_naming(
      [] {
        MakeThreadedNut({0.048, 0.005, 0.038, 0.04});
      },
      "width across flats");
  expect_error_naming([] { MakeThreadedNut({0.048, 0.0, 0.038, 0.075}); }, "pitch");
  expect_error_naming([] { MakeThreadedBolt({0.048, 0.005, 2.0, 0.0}); }, "turns");
}

}  // namespace
}  // namespace coulomb
