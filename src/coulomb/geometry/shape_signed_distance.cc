#include "coulomb/geometry/shape_signed_distance.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "coulomb/geometry/signed_distance_field.h"

namespace coulomb {
namespace {

template <class... Ts>
struct Overloaded : Ts... {
  using Ts::operator()...;
};

// The exact distance to an axis-aligned box of half extents h (any
// dimension): outside, the norm of the positive excess; inside, the largest
// (negative) excess, along its axis.
template <int N>
double BoxDistance(const Eigen::Matrix<double, N, 1>& p,
                   const Eigen::Matrix<double, N, 1>& h,
                   Eigen::Matrix<double, N, 1>* gradient) {
  const Eigen::Matrix<double, N, 1> excess = p.cwiseAbs() - h;
  const Eigen::Matrix<double, N, 1> outside = excess.cwiseMax(0.0);
  const double outside_norm = outside.norm();
  if (outside_norm > 0.0) {
    *gradient = outside.cwiseProduct(p.cwiseSign()) / outside_norm;
    return outside_norm;
  }
  Eigen::Index axis = 0;
  const double inside = excess.maxCoeff(&axis);
  gradient->setZero();
  (*gradient)[axis] = p[axis] >= 0.0 ? 1.0 : -1.0;
  return inside;
}

double SphereDistance(const Eigen::Vector3d& p, double radius,
                      Eigen::Vector3d* gradient) {
  const double norm = p.norm();
  *gradient = norm > 0.0 ? Eigen::Vector3d(p / norm) : Eigen::Vector3d::UnitZ();
  return norm - radius;
}

double CylinderDistance(const Eigen::Vector3d& p, const Cylinder& cylinder,
                        Eigen::Vector3d* gradient) {
  const double r = p.head<2>().norm();
  Eigen::Vector2d section_gradient;
  const double phi = BoxDistance<2>(
      Eigen::Vector2d(r, p.z()), Eigen::Vector2d(cylinder.radius, 0.5 * cylinder.length),
      &section_gradient);
  const Eigen::Vector2d e_r =
      r > 0.0 ? Eigen::Vector2d(p.head<2>() / r) : Eigen::Vector2d::UnitX();
  *gradient << section_gradient.x() * e_r, section_gradient.y();
  return phi;
}

// The exact signed distance to the ellipsoid Σ (x_k/a_k)² ≤ 1 and its
// outward normal at the nearest surface point x. With the nearest point
// x_k = a_k² p_k / (t + a_k²), t is the root of
// F(t) = Σ (a_k p_k / (t + a_k²))² − 1, which decreases on (−min a_k², ∞):
// t > 0 outside, t < 0 inside (the Lagrange condition p − x = t x/a²).
// Bisection brackets it in (−min a_k², a_max ‖p‖], where F ≤ 0. Inside, on
// the plane of the shortest axis, F may stay negative down to −min a_k²:
// the nearest points then leave that plane, x on the surface by its
// shortest-axis coordinate.
double EllipsoidDistance(const Eigen::Vector3d& p, const Ellipsoid& ellipsoid,
                         Eigen::Vector3d* gradient) {
  const Eigen::Vector3d a2 = ellipsoid.semi_axes.cwiseAbs2();
  Eigen::Index shortest = 0;
  const double lowest = -a2.minCoeff(&shortest);
  const auto nearest = [&](double t) {
    return Eigen::Vector3d(a2.array() * p.array() / (a2.array() + t));
  };
  const auto excess = [&](double t) {
    return nearest(t).cwiseQuotient(ellipsoid.semi_axes).squaredNorm() - 1.0;
  };
  double low = lowest, high = std::max(0.0, ellipsoid.semi_axes.maxCoeff() * p.norm());
  for (int iteration = 0; iteration < 200 && low < high; ++iteration) {
    const double middle = 0.5 * (low + high);
    if (middle <= low || middle >= high) break;
    (excess(middle) > 0.0 ? low : high) = middle;
  }
  Eigen::Vector3d x = nearest(high);
  const double off_surface = -excess(high);
  if (off_surface > 1e-12) {  // the degenerate case inside
    x[shortest] = std::copysign(ellipsoid.semi_axes[shortest] * std::sqrt(off_surface),
                                p[shortest]);
  }
  *gradient = x.cwiseQuotient(a2).normalized();
  const double distance = (p - x).norm();
  return high > 0.0 ? distance : -distance;
}

double PolytopeDistance(const ConvexHull& hull, const Eigen::Vector3d& p,
                        Eigen::Vector3d* gradient) {
  double phi = -std::numeric_limits<double>::infinity();
  for (size_t f = 0; f < hull.face_normals.size(); ++f) {
    const double height = hull.face_normals[f].dot(p) - hull.face_offsets[f];
    if (height > phi) {
      phi = height;
      *gradient = hull.face_normals[f];
    }
  }
  return phi;
}

}  // namespace

double ShapeSignedDistance(const Shape& shape, const Eigen::Vector3d& p_G,
                           Eigen::Vector3d* gradient) {
  return std::visit(
      Overloaded{
          [&](const Sphere& s) { return SphereDistance(p_G, s.radius, gradient); },
          [&](const Box& b) { return BoxDistance<3>(p_G, 0.5 * b.size, gradient); },
          [&](const Capsule& c) {
            const double half = 0.5 * c.length;
            const Eigen::Vector3d axis_point(0, 0, std::clamp(p_G.z(), -half, half));
            return SphereDistance(p_G - axis_point, c.radius, gradient);
          },
          [&](const Cylinder& c) { return CylinderDistance(p_G, c, gradient); },
          [&](const Ellipsoid& e) { return EllipsoidDistance(p_G, e, gradient); },
          [&](const HalfSpace&) {
            *gradient = Eigen::Vector3d::UnitZ();
            return p_G.z();
          },
          [&](const ConvexMesh& m) { return PolytopeDistance(*m.hull, p_G, gradient); },
          [&](const SdfShape& s) { return s.field->Evaluate(p_G, gradient); }},
      shape);
}

}  // namespace coulomb
