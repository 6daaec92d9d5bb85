#include "coulomb/geometry/iso_thread.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <stdexcept>
#include <string>

namespace coulomb {
namespace {

constexpr double kPi = std::numbers::pi;

// Squared distance from q to the segment [a, b] and the closest point.
double SegmentDistanceSquared(const Eigen::Vector2d& q, const Eigen::Vector2d& a,
                              const Eigen::Vector2d& b, Eigen::Vector2d* closest) {
  const Eigen::Vector2d ab = b - a;
  const double t = std::clamp((q - a).dot(ab) / ab.squaredNorm(), 0.0, 1.0);
  *closest = a + t * ab;
  return (q - *closest).squaredNorm();
}

}  // namespace

IsoThreadProfile::IsoThreadProfile(double major_radius, double pitch)
    : major_radius_(major_radius),
      minor_radius_(major_radius - 5.0 / 8.0 * std::sqrt(3.0) / 2.0 * pitch),
      pitch_(pitch) {
  if (!(pitch > 0.0) || !std::isfinite(pitch) || !std::isfinite(major_radius) ||
      !(minor_radius_ > 0.0)) {
    throw std::invalid_argument(
        "thread: need pitch > 0 and a major radius above 5H/8 = " +
        std::to_string(major_radius - minor_radius_) + " m, got radius " +
        std::to_string(major_radius) + " m, pitch " + std::to_string(pitch) + " m");
  }
}

double IsoThreadProfile::Radius(double s) const {
  return RadiusInHalfPeriod(std::abs(s - pitch_ * std::round(s / pitch_)));
}

double IsoThreadProfile::RadiusInHalfPeriod(double u) const {
  const double crest_end = pitch_ / 16.0, root_start = 3.0 * pitch_ / 8.0;
  if (u <= crest_end) return major_radius_;
  if (u >= root_start) return minor_radius_;
  return major_radius_ -
         (u - crest_end) / (root_start - crest_end) * (major_radius_ - minor_radius_);
}

double IsoThreadProfile::SectionDistance(double r, double s,
                                         Eigen::Vector2d* gradient) const {
  const double folded = s - pitch_ * std::round(s / pitch_);
  const double s_sign = folded < 0.0 ? -1.0 : 1.0;
  // Half a period in (u, r) = (|s|, r): crest A–B, flank B–C, root C–D.
  const Eigen::Vector2d q(std::abs(folded), r);
  const Eigen::Vector2d corners[4] = {{0.0, major_radius_},
                                      {pitch_ / 16.0, major_radius_},
                                      {3.0 * pitch_ / 8.0, minor_radius_},
                                      {pitch_ / 2.0, minor_radius_}};
  // The nearest segment by squared distance: one square root, of the least.
  double distance_squared = std::numeric_limits<double>::infinity();
  Eigen::Vector2d closest, candidate;
  int nearest_segment = 0;
  for (int k = 0; k < 3; ++k) {
    const double d2 = SegmentDistanceSquared(q, corners[k], corners[k + 1], &candidate);
    if (d2 < distance_squared) {
      distance_squared = d2;
      closest = candidate;
      nearest_segment = k;
    }
  }
  const double distance = std::sqrt(distance_squared);
  const double sign = r < RadiusInHalfPeriod(q.x()) ? -1.0 : 1.0;
  Eigen::Vector2d direction_ur;  // outward unit normal in (u, r)
  if (distance > 1e-12 * pitch_) {
    direction_ur = sign * (q - closest) / distance;
  } else {
    const Eigen::Vector2d along = corners[nearest_segment + 1] - corners[nearest_segment];
    direction_ur = Eigen::Vector2d(-along.y(), along.x()).normalized();
  }
  *gradient = Eigen::Vector2d(direction_ur.y(), s_sign * direction_ur.x());
  return sign * distance;
}

double IsoThreadProfile::HelicalDistance(const Eigen::Vector3d& p_G,
                                         Eigen::Vector3d* gradient) const {
  const double r = p_G.head<2>().norm();
  const double theta = std::atan2(p_G.y(), p_G.x());
  Eigen::Vector2d section_gradient;
  const double f =
      SectionDistance(r, p_G.z() - pitch_ * theta / (2.0 * kPi), &section_gradient);
  if (r < 1e-9 * major_radius_) {  // on the axis, deep inside: e_r is undefined
    if (gradient) *gradient = Eigen::Vector3d::UnitZ() * section_gradient.y();
    return f;
  }
  const Eigen::Vector3d e_r(p_G.x() / r, p_G.y() / r, 0.0);
  const Eigen::Vector3d e_theta(-e_r.y(), e_r.x(), 0.0);
  const Eigen::Vector3d grad_f =
      section_gradient.x() * e_r +
      section_gradient.y() *
          (Eigen::Vector3d::UnitZ() - pitch_ / (2.0 * kPi * r) * e_theta);
  const double norm = grad_f.norm();
  if (gradient) *gradient = grad_f / norm;
  return f / norm;
}

}  // namespace coulomb
