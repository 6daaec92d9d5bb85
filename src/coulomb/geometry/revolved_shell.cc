#include "coulomb/geometry/revolved_shell.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <numbers>
#include <stdexcept>
#include <utility>
#include <vector>

#include "coulomb/geometry/ring_surface.h"
#include "coulomb/geometry/signed_distance_field.h"

namespace coulomb {
namespace {

// The meridian: found along kMeridianRays rays from A, then resampled at
// equal arc lengths about kMeridianSpacing apart (96 to 400 points).
constexpr int kMeridianRays = 4096;
constexpr double kMeridianSpacing = 2e-3;  // [m]
constexpr double kSampleTolerance = 1e-7;  // [m]

// The point of segment [a, b] nearest q.
Eigen::Vector2d NearestOnSegment(const Eigen::Vector2d& q, const Eigen::Vector2d& a,
                                 const Eigen::Vector2d& b) {
  const Eigen::Vector2d ab = b - a;
  const double t = std::clamp((q - a).dot(ab) / ab.squaredNorm(), 0.0, 1.0);
  return a + t * ab;
}

class RevolvedShellField final : public SignedDistanceField {
 public:
  explicit RevolvedShellField(const RevolvedShellSize& size) : size_(size) {}

  // φ and its gradient (∂/∂r, ∂/∂z) in the meridian half-plane.
  double SectionDistance(const Eigen::Vector2d& q, Eigen::Vector2d* gradient) const {
    const Eigen::Vector2d on_base = NearestOnSegment(q, Eigen::Vector2d::Zero(), size_.a);
    const Eigen::Vector2d on_wall = NearestOnSegment(q, size_.a, size_.b);
    const Eigen::Vector2d nearest =
        (q - on_base).squaredNorm() <= (q - on_wall).squaredNorm() ? on_base : on_wall;
    const Eigen::Vector2d away = q - nearest;
    const double distance = away.norm();
    // On the skeleton itself the direction is arbitrary: up, off the base.
    *gradient =
        distance > 0.0 ? Eigen::Vector2d(away / distance) : Eigen::Vector2d::UnitY();
    return distance - size_.thickness;
  }

  double Evaluate(const Eigen::Vector3d& p, Eigen::Vector3d* gradient) const override {
    const double r = p.head<2>().norm();
    Eigen::Vector2d section_gradient;
    const double phi = SectionDistance(Eigen::Vector2d(r, p.z()), &section_gradient);
    if (gradient) {
      const Eigen::Vector2d e_r =
          r > 0.0 ? Eigen::Vector2d(p.head<2>() / r) : Eigen::Vector2d::UnitX();
      *gradient << section_gradient.x() * e_r, section_gradient.y();
    }
    return phi;
  }

  // The section's boundary point along the ray from A at angle α: the solid
  // (φ ≤ 0 and r ≥ 0) is star-shaped about A, a point of both segments.
  Eigen::Vector2d MeridianPoint(double alpha) const {
    const Eigen::Vector2d direction(std::cos(alpha), std::sin(alpha));
    const double reach = size_.a.norm() + size_.b.norm() + 2.0 * size_.thickness;
    double inside = 0.0, outside = reach;
    Eigen::Vector2d unused;
    for (int k = 0; k < 60; ++k) {  // bisection to round-off
      const double t = 0.5 * (inside + outside);
      const Eigen::Vector2d q = size_.a + t * direction;
      (std::max(SectionDistance(q, &unused), -q.x()) <= 0.0 ? inside : outside) = t;
    }
    Eigen::Vector2d q = size_.a + inside * direction;
    q.x() = std::max(q.x(), 0.0);
    return q;
  }

  void SetSamples(const TriangleMesh& surface) {
    SetSurfaceSamples(surface.vertices, kSampleTolerance);
  }

 private:
  RevolvedShellSize size_;
};

void Validate(const RevolvedShellSize& size, const std::string& name) {
  const bool finite =
      size.a.allFinite() && size.b.allFinite() && std::isfinite(size.thickness);
  if (!finite || !(size.thickness > 0.0) || !(size.a.x() > size.thickness) ||
      !(size.b.x() >= 0.0) || (size.b - size.a).norm() <= size.thickness) {
    throw std::invalid_argument(
        name +
        ": a revolved shell needs a finite thickness d > 0, A with r > d, B with r ≥ 0 "
        "and |AB| > d");
  }
}

// The closed meridian (r, z) at equal arc lengths: the boundary seen from A
// along many rays, resampled so that long flat parts (a plate's bottom, seen
// from A at grazing angles) get their share of points.
std::vector<Eigen::Vector2d> Meridian(const RevolvedShellField& field) {
  std::vector<Eigen::Vector2d> dense;
  std::vector<double> length{0.0};
  for (int k = 0; k <= kMeridianRays; ++k) {
    dense.push_back(field.MeridianPoint(2.0 * std::numbers::pi * k / kMeridianRays));
    if (k > 0) length.push_back(length.back() + (dense[k] - dense[k - 1]).norm());
  }
  // Between 96 and 400 points: a large shell gets a coarser meridian
  // rather than millions of samples.
  const int count =
      std::clamp(static_cast<int>(std::ceil(length.back() / kMeridianSpacing)), 96, 400);
  std::vector<Eigen::Vector2d> meridian;
  size_t segment = 0;
  for (int k = 0; k < count; ++k) {
    const double at = length.back() * k / count;
    while (length[segment + 1] < at) ++segment;
    const double span = length[segment + 1] - length[segment];
    const double t = span > 0.0 ? (at - length[segment]) / span : 0.0;
    meridian.push_back(dense[segment] + t * (dense[segment + 1] - dense[segment]));
  }
  return meridian;
}

}  // namespace

SdfShape MakeRevolvedShell(const RevolvedShellSize& size, const std::string& name) {
  Validate(size, name);
  auto field = std::make_shared<RevolvedShellField>(size);
  std::vector<std::vector<Eigen::Vector3d>> rings;
  for (const Eigen::Vector2d& q : Meridian(*field))
    rings.push_back(Ring(q.y(), [&](double) { return q.x(); }));
  std::shared_ptr<TriangleMesh> surface = RingSurface(rings, /*cyclic=*/true);
  field->SetSamples(*surface);
  return MakeSdfShape(name, std::move(field), std::move(surface));
}

}  // namespace coulomb
