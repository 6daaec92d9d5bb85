#include "coulomb/geometry/shape.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <stdexcept>

#include "coulomb/geometry/signed_distance_field.h"

namespace coulomb {
namespace {

constexpr double kPi = std::numbers::pi;

template <class... Ts>
struct Overloaded : Ts... {
  using Ts::operator()...;
};

void RequirePositive(double value, const std::string& what) {
  if (!(value > 0.0) || !std::isfinite(value)) {
    throw std::invalid_argument(what + " must be positive and finite, got " +
                                std::to_string(value));
  }
}

// Solid cylinder of radius r and length l about its centroid, unit density.
Eigen::Vector3d CylinderInertia(double r, double l) {
  const double mass = kPi * r * r * l;
  const double transverse = mass * (3.0 * r * r + l * l) / 12.0;
  return {transverse, transverse, 0.5 * mass * r * r};
}

// Volume, first and second moments ∫x, ∫x xᵀ of a uniform unit-density
// solid bounded by a closed triangle mesh: each outward triangle (a, b, c)
// with the origin spans a signed tetrahedron of volume det[a b c]/6,
// centroid (a + b + c)/4 and ∫x xᵀ = det/120 (a aᵀ + b bᵀ + c cᵀ + s sᵀ),
// s = a + b + c.
struct PolytopeMoments {
  double volume = 0.0;
  Eigen::Vector3d first = Eigen::Vector3d::Zero();
  Eigen::Matrix3d second = Eigen::Matrix3d::Zero();
};

PolytopeMoments Moments(const TriangleMesh& hull) {
  PolytopeMoments moments;
  double six_volume = 0.0;  // summed as MeshVolume sums it: the same volume
  for (const auto& [i, j, k] : hull.triangles) {
    const Eigen::Vector3d &a = hull.vertices[i], &b = hull.vertices[j],
                          &c = hull.vertices[k];
    const double det = a.dot(b.cross(c));
    const Eigen::Vector3d sum = a + b + c;
    six_volume += det;
    moments.first += det / 24.0 * sum;
    moments.second += det / 120.0 *
                      (a * a.transpose() + b * b.transpose() + c * c.transpose() +
                       sum * sum.transpose());
  }
  moments.volume = six_volume / 6.0;
  return moments;
}

// The volume alone (Σ det[a b c] / 6), for the checks and Volume(): a
// fraction of Moments' work, and the volume Moments finds.
double MeshVolume(const TriangleMesh& mesh) {
  double six_volume = 0.0;
  for (const auto& [i, j, k] : mesh.triangles)
    six_volume += mesh.vertices[i].dot(mesh.vertices[j].cross(mesh.vertices[k]));
  return six_volume / 6.0;
}

// Volume, centroid and inertia about the centroid of the solid a closed
// mesh bounds (unit density): ∫(r − c)(r − c)ᵀ = ∫x xᵀ − V c cᵀ and
// I = tr(·) 1 − (·).
UnitDensityMass MeshMass(const TriangleMesh& mesh) {
  const PolytopeMoments moments = Moments(mesh);
  const Eigen::Vector3d centroid = moments.first / moments.volume;
  const Eigen::Matrix3d second =
      moments.second - moments.volume * centroid * centroid.transpose();
  return {moments.volume, centroid,
          second.trace() * Eigen::Matrix3d::Identity() - second};
}

void ValidateConvexMesh(const ConvexMesh& mesh) {
  if (!mesh.hull || mesh.hull->vertices.size() < 4 || mesh.hull->triangles.size() < 4) {
    throw std::invalid_argument("mesh '" + mesh.file + "': not a solid convex hull");
  }
  RequirePositive(MeshVolume(*mesh.hull), "mesh '" + mesh.file + "' volume");
}

void ValidateSdfShape(const SdfShape& shape) {
  if (!shape.field) {
    throw std::invalid_argument(
        shape.description + ": no distance field (a recorded shape is for display only)");
  }
  if (!shape.surface || shape.surface->triangles.size() < 4) {
    throw std::invalid_argument(shape.description + ": no closed display surface");
  }
  RequirePositive(MeshVolume(*shape.surface), shape.description + " volume");
}

}  // namespace

std::string ShapeName(const Shape& shape) {
  return std::visit(
      Overloaded{[](const Sphere&) { return "sphere"; }, [](const Box&) { return "box"; },
                 [](const Capsule&) { return "capsule"; },
                 [](const Cylinder&) { return "cylinder"; },
                 [](const HalfSpace&) { return "halfspace"; },
                 [](const ConvexMesh&) { return "mesh"; },
                 [](const SdfShape&) { return "sdf"; },
                 [](const Ellipsoid&) { return "ellipsoid"; }},
      shape);
}

Eigen::Vector3d ShapeSize(const Shape& shape) {
  Eigen::Vector3d size = Eigen::Vector3d::Zero();
  if (const auto* sphere = std::get_if<Sphere>(&shape)) size.x() = sphere->radius;
  if (const auto* box = std::get_if<Box>(&shape)) size = box->size;
  if (const auto* capsule = std::get_if<Capsule>(&shape))
    size.head<2>() << capsule->radius, capsule->length;
  if (const auto* cylinder = std::get_if<Cylinder>(&shape))
    size.head<2>() << cylinder->radius, cylinder->length;
  if (const auto* ellipsoid = std::get_if<Ellipsoid>(&shape)) size = ellipsoid->semi_axes;
  return size;
}

const TriangleMesh* SurfaceMesh(const Shape& shape) {
  if (const auto* mesh = std::get_if<ConvexMesh>(&shape)) return mesh->hull.get();
  if (const auto* sdf = std::get_if<SdfShape>(&shape)) return sdf->surface.get();
  return nullptr;
}

void ValidateShape(const Shape& shape) {
  std::visit(
      Overloaded{[](const Sphere& s) { RequirePositive(s.radius, "sphere radius"); },
                 [](const Box& b) {
                   for (int k = 0; k < 3; ++k) RequirePositive(b.size[k], "box size");
                 },
                 [](const Capsule& c) {
                   RequirePositive(c.radius, "capsule radius");
                   RequirePositive(c.length, "capsule length");
                 },
                 [](const Cylinder& c) {
                   RequirePositive(c.radius, "cylinder radius");
                   RequirePositive(c.length, "cylinder length");
                 },
                 [](const HalfSpace&) {},
                 [](const ConvexMesh& m) { ValidateConvexMesh(m); },
                 [](const SdfShape& s) { ValidateSdfShape(s); },
                 [](const Ellipsoid& e) {
                   for (int k = 0; k < 3; ++k)
                     RequirePositive(e.semi_axes[k], "ellipsoid semi-axis");
                 }},
      shape);
}

double BoundingRadius(const Shape& shape) {
  return std::visit(
      Overloaded{[](const Sphere& s) { return s.radius; },
                 [](const Box& b) { return 0.5 * b.size.norm(); },
                 [](const Capsule& c) { return c.radius + 0.5 * c.length; },
                 [](const Cylinder& c) { return std::hypot(c.radius, 0.5 * c.length); },
                 [](const Ellipsoid& e) { return e.semi_axes.maxCoeff(); },
                 [](const HalfSpace&) { return std::numeric_limits<double>::infinity(); },
                 [&shape](const auto&) {
                   double radius = 0.0;
                   for (const Eigen::Vector3d& v : SurfaceMesh(shape)->vertices)
                     radius = std::max(radius, v.norm());
                   return radius;
                 }},
      shape);
}

double Volume(const Shape& shape) {
  return std::visit(
      Overloaded{[](const Sphere& s) { return 4.0 / 3.0 * kPi * std::pow(s.radius, 3); },
                 [](const Box& b) { return b.size.prod(); },
                 [](const Capsule& c) {
                   return kPi * c.radius * c.radius * (c.length + 4.0 / 3.0 * c.radius);
                 },
                 [](const Cylinder& c) { return kPi * c.radius * c.radius * c.length; },
                 [](const Ellipsoid& e) { return 4.0 / 3.0 * kPi * e.semi_axes.prod(); },
                 [](const HalfSpace&) { return std::numeric_limits<double>::infinity(); },
                 [&shape](const auto&) { return MeshVolume(*SurfaceMesh(shape)); }},
      shape);
}

Eigen::Vector3d Centroid(const Shape& shape) {
  const TriangleMesh* mesh = SurfaceMesh(shape);
  if (!mesh) return Eigen::Vector3d::Zero();
  return MeshMass(*mesh).centroid;
}

Eigen::Matrix3d UnitDensityInertia(const Shape& shape) {
  if (const TriangleMesh* mesh = SurfaceMesh(shape)) return MeshMass(*mesh).inertia;
  const Eigen::Vector3d principal = std::visit(
      Overloaded{
          [](const Sphere& s) -> Eigen::Vector3d {
            return Eigen::Vector3d::Constant(0.4 * Volume(s) * s.radius * s.radius);
          },
          [](const Box& b) -> Eigen::Vector3d {
            const Eigen::Vector3d s2 = b.size.cwiseAbs2();
            return b.size.prod() / 12.0 *
                   Eigen::Vector3d(s2.y() + s2.z(), s2.x() + s2.z(), s2.x() + s2.y());
          },
          [](const Capsule& c) -> Eigen::Vector3d {
            // Cylinder plus two hemispheres (parallel-axis theorem for their
            // centroids at ±(l/2 + 3r/8)).
            const double r = c.radius, l = c.length;
            const double hemisphere_mass = 2.0 / 3.0 * kPi * r * r * r;
            const double offset = 0.5 * l + 3.0 / 8.0 * r;
            const double transverse =
                2.0 * (hemisphere_mass * (83.0 / 320.0 * r * r + offset * offset));
            const Eigen::Vector3d cylinder = CylinderInertia(r, l);
            return cylinder + Eigen::Vector3d(transverse, transverse,
                                              2.0 * 0.4 * hemisphere_mass * r * r);
          },
          [](const Cylinder& c) -> Eigen::Vector3d {
            return CylinderInertia(c.radius, c.length);
          },
          [](const Ellipsoid& e) -> Eigen::Vector3d {  // V/5 (b² + c²), …
            const Eigen::Vector3d s2 = e.semi_axes.cwiseAbs2();
            return Volume(e) / 5.0 *
                   Eigen::Vector3d(s2.y() + s2.z(), s2.x() + s2.z(), s2.x() + s2.y());
          },
          [](const HalfSpace&) -> Eigen::Vector3d {
            throw std::invalid_argument("a half-space has no finite inertia");
          },
          [](const auto&) -> Eigen::Vector3d { return {}; }},  // meshes: handled above
      shape);
  return principal.asDiagonal();
}

UnitDensityMass UnitDensityMassProperties(const Shape& shape) {
  if (const TriangleMesh* mesh = SurfaceMesh(shape)) return MeshMass(*mesh);
  return {Volume(shape), Eigen::Vector3d::Zero(), UnitDensityInertia(shape)};
}

}  // namespace coulomb
