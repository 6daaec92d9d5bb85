#include "coulomb/geometry/segment_distance.h"

#include <algorithm>

namespace coulomb {

Eigen::Vector2d SegmentClosestParameters(const Eigen::Vector3d& p,
                                         const Eigen::Vector3d& d_p,
                                         const Eigen::Vector3d& q,
                                         const Eigen::Vector3d& d_q) {
  const Eigen::Vector3d r = p - q;
  // ‖r + s d_p − u d_q‖² = a s² − 2 b s u + e u² + 2 c s − 2 f u + ‖r‖².
  const double a = d_p.squaredNorm(), e = d_q.squaredNorm();
  const double b = d_p.dot(d_q), c = d_p.dot(r), f = d_q.dot(r);
  const auto unit = [](double x) { return std::clamp(x, 0.0, 1.0); };
  // The best s for a given u, and the best u for a given s.
  const auto best_s = [&](double u) { return a > 0.0 ? unit((b * u - c) / a) : 0.0; };
  if (e == 0.0) return {best_s(0.0), 0.0};  // q is a point
  const auto best_u = [&](double s) { return (b * s + f) / e; };
  // Stationary s (parallel segments: any s, take 0), then u for it; a u
  // outside [0, 1] is clamped and s chosen anew for the clamped u.
  const double determinant = a * e - b * b;
  double s = determinant > 0.0 ? unit((b * f - c * e) / determinant) : 0.0;
  double u = best_u(s);
  if (u < 0.0 || u > 1.0) {
    u = unit(u);
    s = best_s(u);
  }
  return {s, u};
}

double SegmentDistance(const Eigen::Vector3d& p, const Eigen::Vector3d& d_p,
                       const Eigen::Vector3d& q, const Eigen::Vector3d& d_q) {
  const Eigen::Vector2d su = SegmentClosestParameters(p, d_p, q, d_q);
  return (p - q + su[0] * d_p - su[1] * d_q).norm();
}

}  // namespace coulomb
