#include "coulomb/geometry/threaded_fasteners.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <memory>
#include <numbers>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "coulomb/geometry/iso_thread.h"
#include "coulomb/geometry/ring_surface.h"
#include "coulomb/geometry/signed_distance_field.h"

namespace coulomb {
namespace {

constexpr double kPi = std::numbers::pi;
// Display surface resolution: rings per pitch (and kRingFacets per turn,
// 5°, so that the hexagon's corners at 30° + 60° k are vertices).
constexpr int kRingsPerPitch = 12;
// Samples are kept within this distance of the zero level set [m].
constexpr double kSampleTolerance = 1e-7;

void RequirePositive(double value, const std::string& what) {
  if (!(value > 0.0) || !std::isfinite(value)) {
    throw std::invalid_argument(what + " must be positive and finite, got " +
                                std::to_string(value));
  }
}

// φ = max(a, b) with the gradient of the larger.
double Max(double a, const Eigen::Vector3d& grad_a, double b,
           const Eigen::Vector3d& grad_b, Eigen::Vector3d* gradient) {
  if (gradient) *gradient = a >= b ? grad_a : grad_b;
  return std::max(a, b);
}

// φ of the slab |z| ≤ half_height.
double Slab(const Eigen::Vector3d& p, double half_height, Eigen::Vector3d* gradient) {
  *gradient = Eigen::Vector3d(0, 0, p.z() >= 0.0 ? 1.0 : -1.0);
  return std::abs(p.z()) - half_height;
}

// Rings on the thread surface r = R(z − Pθ/2π) − offset over |z| ≤ half_height.
std::vector<std::vector<Eigen::Vector3d>> ThreadRings(const IsoThreadProfile& profile,
                                                      double half_height, double offset) {
  const int count = std::max(
      2,
      static_cast<int>(std::ceil(2.0 * half_height * kRingsPerPitch / profile.pitch())) +
          1);
  std::vector<std::vector<Eigen::Vector3d>> rings;
  for (int k = 0; k < count; ++k) {
    const double z = -half_height + 2.0 * half_height * k / (count - 1);
    rings.push_back(Ring(z, [&](double theta) {
      return profile.Radius(z - profile.pitch() * theta / (2.0 * kPi)) - offset;
    }));
  }
  return rings;
}

std::vector<Eigen::Vector3d> Vertices(const TriangleMesh& mesh) { return mesh.vertices; }

class ThreadedBoltField final : public SignedDistanceField {
 public:
  ThreadedBoltField(const ThreadedBoltSize& size, const TriangleMesh& surface)
      : profile_(0.5 * size.major_diameter, size.pitch),
        half_length_(0.5 * size.length),
        clearance_(size.clearance) {
    SetSurfaceSamples(Vertices(surface), kSampleTolerance);
  }
  double Evaluate(const Eigen::Vector3d& p, Eigen::Vector3d* gradient) const override {
    Eigen::Vector3d grad_thread, grad_end;
    const double thread = profile_.HelicalDistance(p, &grad_thread) + clearance_;
    const double end = Slab(p, half_length_, &grad_end);
    return Max(thread, grad_thread, end, grad_end, gradient);
  }

 private:
  IsoThreadProfile profile_;
  double half_length_;
  double clearance_;
};

class ThreadedNutField final : public SignedDistanceField {
 public:
  ThreadedNutField(const ThreadedNutSize& size, const TriangleMesh& surface)
      : profile_(0.5 * size.major_diameter, size.pitch),
        half_height_(0.5 * size.height),
        apothem_(0.5 * size.width_across_flats) {
    SetSurfaceSamples(Vertices(surface), kSampleTolerance);
  }
  double Evaluate(const Eigen::Vector3d& p, Eigen::Vector3d* gradient) const override {
    Eigen::Vector3d grad_hole, grad_prism, grad_end;
    const double hole = -profile_.HelicalDistance(p, &grad_hole);
    const double prism = Max(HexagonSides(p, &grad_prism), grad_prism,
                             Slab(p, half_height_, &grad_end), grad_end, &grad_prism);
    return Max(prism, grad_prism, hole, -grad_hole, gradient);
  }

 private:
  // max over the three pairs of side faces (normals at 0°, 60°, 120°).
  double HexagonSides(const Eigen::Vector3d& p, Eigen::Vector3d* gradient) const {
    double best = -std::numeric_limits<double>::infinity();
    for (int k = 0; k < 3; ++k) {
      const Eigen::Vector3d normal(std::cos(k * kPi / 3.0), std::sin(k * kPi / 3.0), 0.0);
      const double height = normal.dot(p);
      if (std::abs(height) - apothem_ > best) {
        best = std::abs(height) - apothem_;
        *gradient = height >= 0.0 ? normal : Eigen::Vector3d(-normal);
      }
    }
    return best;
  }

  IsoThreadProfile profile_;
  double half_height_;
  double apothem_;
};

std::string Millimeters(double meters) {
  char text[32];
  std::snprintf(text, sizeof(text), "%g", 1e3 * meters);
  return text;
}

// The display surface has 12 rings per pitch of kRingFacets vertices: a
// thread of more turns than this is refused, not built (memory and time).
constexpr double kMaxTurns = 300.0;

void RequireFewTurns(double length, double pitch, const std::string& what) {
  if (length / pitch > kMaxTurns) {
    throw std::invalid_argument(what + " spans " + std::to_string(length / pitch) +
                                " turns of its thread; at most " +
                                std::to_string(static_cast<int>(kMaxTurns)));
  }
}

}  // namespace

SdfShape MakeThreadedBolt(const ThreadedBoltSize& size) {
  RequirePositive(size.length, "threaded bolt length");
  const IsoThreadProfile profile(0.5 * size.major_diameter, size.pitch);
  RequireFewTurns(size.length, size.pitch, "threaded bolt length");
  const double depth = profile.major_radius() - profile.minor_radius();
  if (!(size.clearance >= 0.0) || !(size.clearance < 0.25 * depth)) {
    throw std::invalid_argument("threaded bolt clearance must be in [0, " +
                                std::to_string(0.25 * depth) + ") m, got " +
                                std::to_string(size.clearance));
  }
  std::shared_ptr<TriangleMesh> surface = RingSurface(
      ThreadRings(profile, 0.5 * size.length, size.clearance), /*cyclic=*/false);
  auto field = std::make_shared<ThreadedBoltField>(size, *surface);
  return MakeSdfShape("threaded bolt M" + Millimeters(size.major_diameter) + "x" +
                          Millimeters(size.pitch) + ", " + Millimeters(size.length) +
                          " mm long",
                      std::move(field), std::move(surface));
}

SdfShape MakeThreadedNut(const ThreadedNutSize& size) {
  RequirePositive(size.height, "threaded nut height");
  const IsoThreadProfile profile(0.5 * size.major_diameter, size.pitch);
  RequireFewTurns(size.height, size.pitch, "threaded nut height");
  if (!(0.5 * size.width_across_flats > profile.major_radius()) ||
      !std::isfinite(size.width_across_flats)) {
    throw std::invalid_argument(
        "threaded nut width across flats must exceed the thread's major diameter " +
        std::to_string(size.major_diameter) + " m, got " +
        std::to_string(size.width_across_flats));
  }
  const double apothem = 0.5 * size.width_across_flats, half_height = 0.5 * size.height;
  std::vector<std::vector<Eigen::Vector3d>> rings =
      ThreadRings(profile, half_height, 0.0);
  const auto hexagon = [&](double theta) {
    const double sector = kPi / 3.0;
    return apothem / std::cos(theta - sector * std::round(theta / sector));
  };
  rings.push_back(Ring(half_height, hexagon));
  rings.push_back(Ring(-half_height, hexagon));
  std::shared_ptr<TriangleMesh> surface = RingSurface(rings, /*cyclic=*/true);
  auto field = std::make_shared<ThreadedNutField>(size, *surface);
  return MakeSdfShape("threaded nut M" + Millimeters(size.major_diameter) + "x" +
                          Millimeters(size.pitch) + ", " + Millimeters(size.height) +
                          " mm high",
                      std::move(field), std::move(surface));
}

}  // namespace coulomb
