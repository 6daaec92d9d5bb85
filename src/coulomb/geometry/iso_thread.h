#pragma once

#include <Eigen/Dense>

namespace coulomb {

// The basic profile of an ISO metric screw thread (ISO 68-1), right-handed,
// about the z axis of G. With pitch P and fundamental triangle height
// H = (√3/2) P, the surface shared by the external thread (bolt) and the
// internal one (nut) is r = R(s) in cylindrical coordinates (r, θ, z), at
// the helical phase s = z − P θ/(2π): a P-periodic trapezoid wave,
//   R = r_major                on |s| ≤ P/16          (crest flat, P/8 wide),
//   R = r_minor                on 3P/8 ≤ |s| ≤ P/2    (root flat, P/4 wide),
//   60° flanks between them, with r_major − r_minor = 5H/8.
// The bolt's solid is r ≤ R(s), the nut's material r ≥ R(s). M48 coarse:
// r_major = 24 mm, P = 5 mm, so r_minor = 21.294 mm; the lead angle λ at the
// pitch radius r₂ = r_major − 3H/8 = 22.376 mm is atan(P/(2π r₂)) = 2.04°,
// and a 60° thread self-locks for μ ≥ tan λ cos 30° ≈ 0.031.
class IsoThreadProfile {
 public:
  // Radii and pitch in meters; throws std::invalid_argument unless
  // 0 < 5H/8 < major_radius.
  IsoThreadProfile(double major_radius, double pitch);

  double major_radius() const { return major_radius_; }
  double minor_radius() const { return minor_radius_; }
  double pitch() const { return pitch_; }
  // The profile radius R(s) [m] at helical phase s [m].
  double Radius(double s) const;

  // Signed distance [m] in the axial half-plane (r, s) to the bolt's region
  // r ≤ R(s) (negative inside), and its gradient (∂/∂r, ∂/∂s), a unit
  // vector. By the profile's mirror symmetries about s = 0 and s = ±P/2
  // the nearest boundary point lies in the same half period as (r, s), so
  // three segments (crest, flank, root) are searched.
  double SectionDistance(double r, double s, Eigen::Vector2d* gradient) const;

  // Signed distance [m] of p_G to the infinite threaded rod r ≤ R(s) and
  // its unit gradient. f(p) = SectionDistance(r, z − Pθ/2π) vanishes exactly
  // on the helical surface but measures distance in the axial section; its
  // 3-D gradient is ∇f = f_r e_r + f_s (e_z − P/(2π r) e_θ), and f/|∇f| is
  // the distance to first order off the surface (|∇f| − 1 is O(tan² λ), the
  // lead angle λ).
  double HelicalDistance(const Eigen::Vector3d& p_G, Eigen::Vector3d* gradient) const;

 private:
  // R at u = |s| folded into [0, P/2] (s − P round(s/P), the half period
  // SectionDistance works in).
  double RadiusInHalfPeriod(double u) const;

  double major_radius_;
  double minor_radius_;
  double pitch_;
};

}  // namespace coulomb
