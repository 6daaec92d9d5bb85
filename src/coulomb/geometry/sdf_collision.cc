#include "coulomb/geometry/sdf_collision.h"

#include <algorithm>

#include "coulomb/geometry/shape_signed_distance.h"
#include "coulomb/geometry/signed_distance_field.h"

namespace coulomb {
namespace {

// How far a field's surface may stick out of its samples' bounding box [m]:
// between samples, a surface bulges by at most about its samples' spacing
// (the threads': 2 mm of arc).
constexpr double kSampleSpacingBound = 5e-3;

}  // namespace

void SdfCollision::AddContacts(const Side& a, const Side& b, double margin,
                               int max_contacts, std::vector<ContactPoint>* contacts) {
  pair_points_.clear();
  if (std::holds_alternative<SdfShape>(a.shape))
    TestSamples(a, b, /*a_is_sampled=*/true, margin);
  if (std::holds_alternative<SdfShape>(b.shape))
    TestSamples(b, a, /*a_is_sampled=*/false, margin);
  for (ContactPoint& point : pair_points_) {
    point.geometry_a = a.geometry;
    point.geometry_b = b.geometry;
  }
  const double size = std::max(std::min(a.bounding_radius, b.bounding_radius), 1e-3);
  clustering_.Reduce(max_contacts, size, &pair_points_);
  contacts->insert(contacts->end(), pair_points_.begin(), pair_points_.end());
}

void SdfCollision::TestSamples(const Side& sampled, const Side& field, bool a_is_sampled,
                               double margin) {
  const Eigen::Isometry3d X_FS = field.X_WG.inverse() * sampled.X_WG;
  const double reach = field.bounding_radius + margin;  // infinite for a half-space
  // n points from A into B: against the field's outward gradient when the
  // field is B's, along it when it is A's.
  const double normal_sign = a_is_sampled ? -1.0 : 1.0;
  const SignedDistanceField& samples = *std::get<SdfShape>(sampled.shape).field;
  // An SDF field's own box (padded by the margin and its samples' spacing)
  // rejects most samples before φ is evaluated.
  Eigen::AlignedBox3d box(Eigen::Vector3d::Constant(-reach),
                          Eigen::Vector3d::Constant(reach));
  if (const auto* sdf = std::get_if<SdfShape>(&field.shape)) {
    const double pad = margin + kSampleSpacingBound;
    box = sdf->field->sample_bounds();
    box.min().array() -= pad;
    box.max().array() += pad;
  }
  Eigen::Vector3d gradient;
  for (const Eigen::Vector3d& x_S : samples.sample_points()) {
    const Eigen::Vector3d x_F = X_FS * x_S;
    if (x_F.squaredNorm() > reach * reach || !box.contains(x_F)) continue;
    const double phi = ShapeSignedDistance(field.shape, x_F, &gradient);
    if (!(phi < margin)) continue;
    ContactPoint& point = pair_points_.emplace_back();
    point.normal_W = normal_sign * (field.X_WG.linear() * gradient);
    point.phi = phi;
    // x − ½ φ g, the midpoint between x and the field's surface.
    point.p_W = field.X_WG * (x_F - 0.5 * phi * gradient);
  }
}

}  // namespace coulomb
