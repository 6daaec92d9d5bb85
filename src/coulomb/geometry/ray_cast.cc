#include "coulomb/geometry/ray_cast.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace coulomb {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

// The parameters t of the ray within a convex set: [in, out], empty when
// in > out.
struct Interval {
  double in = -kInfinity;
  double out = kInfinity;

  bool empty() const { return in > out; }
  void Intersect(const Interval& other) {
    in = std::max(in, other.in);
    out = std::min(out, other.out);
  }
  // The first crossing of the boundary at t ≥ 0 (see RayDistance).
  std::optional<double> FirstCrossing() const {
    if (empty()) return std::nullopt;
    if (in >= 0.0) return in;
    if (out >= 0.0 && std::isfinite(out)) return out;
    return std::nullopt;
  }
};

constexpr Interval kNone{kInfinity, -kInfinity};

// Where a + b t + c t² ≤ 0 for c > 0 (a convex quadric along the ray).
Interval WithinQuadric(double a, double b, double c) {
  const double discriminant = b * b - 4.0 * a * c;
  if (discriminant < 0.0) return kNone;
  const double root = std::sqrt(discriminant);
  return {(-b - root) / (2.0 * c), (-b + root) / (2.0 * c)};
}

// Where lower ≤ p + t d ≤ upper, along one axis.
Interval WithinSlab(double p, double d, double lower, double upper) {
  if (std::abs(d) < 1e-300) return p >= lower && p <= upper ? Interval{} : kNone;
  const double t0 = (lower - p) / d, t1 = (upper - p) / d;
  return {std::min(t0, t1), std::max(t0, t1)};
}

// Where |x − c| ≤ r.
Interval WithinBall(const Eigen::Vector3d& p, const Eigen::Vector3d& d,
                    const Eigen::Vector3d& centre, double radius) {
  const Eigen::Vector3d offset = p - centre;
  return WithinQuadric(offset.squaredNorm() - radius * radius, 2.0 * offset.dot(d), 1.0);
}

// Where x² + y² ≤ r² and |z| ≤ half_length.
Interval WithinCylinder(const Eigen::Vector3d& p, const Eigen::Vector3d& d, double radius,
                        double half_length) {
  const double c = d.head<2>().squaredNorm();
  const double a = p.head<2>().squaredNorm() - radius * radius;
  Interval interval = c > 1e-300 ? WithinQuadric(a, 2.0 * p.head<2>().dot(d.head<2>()), c)
                                 : (a <= 0.0 ? Interval{} : kNone);
  interval.Intersect(WithinSlab(p.z(), d.z(), -half_length, half_length));
  return interval;
}

// A capsule is the union of its cylinder and its end balls, convex: the
// union of their intervals is one interval.
Interval WithinCapsule(const Eigen::Vector3d& p, const Eigen::Vector3d& d,
                       const Capsule& capsule) {
  const double half = 0.5 * capsule.length;
  Interval all = kNone;
  for (const Interval& part :
       {WithinCylinder(p, d, capsule.radius, half),
        WithinBall(p, d, Eigen::Vector3d(0, 0, half), capsule.radius),
        WithinBall(p, d, Eigen::Vector3d(0, 0, -half), capsule.radius)}) {
    if (part.empty()) continue;
    all.in = std::min(all.in, part.in);
    all.out = std::max(all.out, part.out);
  }
  return all;
}

// Within every face's half-space n_f·x ≤ d_f.
Interval WithinHull(const Eigen::Vector3d& p, const Eigen::Vector3d& d,
                    const ConvexHull& hull) {
  Interval interval;
  for (size_t f = 0; f < hull.face_normals.size() && !interval.empty(); ++f) {
    const double along = hull.face_normals[f].dot(d);
    const double gap = hull.face_offsets[f] - hull.face_normals[f].dot(p);
    if (std::abs(along) < 1e-300) {
      if (gap < 0.0) return kNone;
    } else if (along > 0.0) {
      interval.out = std::min(interval.out, gap / along);
    } else {
      interval.in = std::max(interval.in, gap / along);
    }
  }
  return interval;
}

// The nearest triangle the ray meets (Möller–Trumbore), t ≥ 0.
std::optional<double> NearestTriangle(const Eigen::Vector3d& p, const Eigen::Vector3d& d,
                                      const TriangleMesh& mesh) {
  std::optional<double> nearest;
  for (const auto& [i, j, k] : mesh.triangles) {
    const Eigen::Vector3d& a = mesh.vertices[i];
    const Eigen::Vector3d e1 = mesh.vertices[j] - a, e2 = mesh.vertices[k] - a;
    const Eigen::Vector3d h = d.cross(e2);
    const double determinant = e1.dot(h);
    if (std::abs(determinant) < 1e-300) continue;  // parallel to the triangle
    const Eigen::Vector3d s = p - a;
    const double u = s.dot(h) / determinant;
    const Eigen::Vector3d q = s.cross(e1);
    const double v = d.dot(q) / determinant;
    const double t = e2.dot(q) / determinant;
    if (u < 0.0 || v < 0.0 || u + v > 1.0 || t < 0.0) continue;
    if (!nearest || t < *nearest) nearest = t;
  }
  return nearest;
}

struct RayVisitor {
  const Eigen::Vector3d& p;
  const Eigen::Vector3d& d;

  std::optional<double> operator()(const Sphere& sphere) const {
    return WithinBall(p, d, Eigen::Vector3d::Zero(), sphere.radius).FirstCrossing();
  }
  std::optional<double> operator()(const Box& box) const {
    Interval interval;
    for (int axis = 0; axis < 3; ++axis) {
      const double half = 0.5 * box.size[axis];
      interval.Intersect(WithinSlab(p[axis], d[axis], -half, half));
    }
    return interval.FirstCrossing();
  }
  std::optional<double> operator()(const Capsule& capsule) const {
    return WithinCapsule(p, d, capsule).FirstCrossing();
  }
  std::optional<double> operator()(const Cylinder& cylinder) const {
    return WithinCylinder(p, d, cylinder.radius, 0.5 * cylinder.length).FirstCrossing();
  }
  std::optional<double> operator()(const Ellipsoid& ellipsoid) const {
    // The unit ball in coordinates divided by the semi-axes; t unchanged.
    const Eigen::Vector3d q = p.cwiseQuotient(ellipsoid.semi_axes);
    const Eigen::Vector3d e = d.cwiseQuotient(ellipsoid.semi_axes);
    return WithinQuadric(q.squaredNorm() - 1.0, 2.0 * q.dot(e), e.squaredNorm())
        .FirstCrossing();
  }
  std::optional<double> operator()(const HalfSpace& half_space) const {
    if (p.z() < 0.0 || !(d.z() < 0.0)) return std::nullopt;
    const double t = -p.z() / d.z();
    const Eigen::Vector2d hit = (p + t * d).head<2>();
    if ((hit.array().abs() > half_space.ray_half_extent.array()).any())
      return std::nullopt;
    return t;
  }
  std::optional<double> operator()(const ConvexMesh& mesh) const {
    return WithinHull(p, d, *mesh.hull).FirstCrossing();
  }
  std::optional<double> operator()(const SdfShape& shape) const {
    if (!shape.surface) return std::nullopt;
    return NearestTriangle(p, d, *shape.surface);
  }
};

}  // namespace

std::optional<double> RayDistance(const Shape& shape, const Eigen::Vector3d& p_G,
                                  const Eigen::Vector3d& d_G) {
  return std::visit(RayVisitor{p_G, d_G}, shape);
}

}  // namespace coulomb
