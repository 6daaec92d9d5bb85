#include "coulomb/geometry/sdf_collision.h"

#include <algorithm>

#include "coulomb/geometry/shape_signed_distance.h"
#include "coulomb/geometry/signed_distance_field.h"

namespace coulomb {

void SdfCollision::AddContacts(int geometry_a, const Shape& shape_a,
                               const Eigen::Isometry3d& X_WA, int geometry_b,
                               const Shape& shape_b, const Eigen::Isometry3d& X_WB,
                               double margin, int max_contacts,
                               std::vector<ContactPoint>* contacts) {
  pair_points_.clear();
  if (const auto* sdf_a = std::get_if<SdfShape>(&shape_a))
    TestSamples(*sdf_a, X_WA, shape_b, X_WB, /*a_is_sampled=*/true, margin);
  if (const auto* sdf_b = std::get_if<SdfShape>(&shape_b))
    TestSamples(*sdf_b, X_WB, shape_a, X_WA, /*a_is_sampled=*/false, margin);
  for (ContactPoint& point : pair_points_) {
    point.geometry_a = geometry_a;
    point.geometry_b = geometry_b;
  }
  const double size =
      std::max(std::min(BoundingRadius(shape_a), BoundingRadius(shape_b)), 1e-3);
  clustering_.Reduce(max_contacts, size, &pair_points_);
  contacts->insert(contacts->end(), pair_points_.begin(), pair_points_.end());
}

void SdfCollision::TestSamples(const SdfShape& sampled, const Eigen::Isometry3d& X_WS,
                               const Shape& field, const Eigen::Isometry3d& X_WF,
                               bool a_is_sampled, double margin) {
  const Eigen::Isometry3d X_FS = X_WF.inverse() * X_WS;
  const double reach = BoundingRadius(field) + margin;  // infinite for a half-space
  // n points from A into B: against the field's outward gradient when the
  // field is B's, along it when it is A's.
  const double normal_sign = a_is_sampled ? -1.0 : 1.0;
  Eigen::Vector3d gradient;
  for (const Eigen::Vector3d& x_S : sampled.field->sample_points()) {
    const Eigen::Vector3d x_F = X_FS * x_S;
    if (x_F.squaredNorm() > reach * reach) continue;
    const double phi = ShapeSignedDistance(field, x_F, &gradient);
    if (!(phi < margin)) continue;
    ContactPoint& point = pair_points_.emplace_back();
    point.normal_W = normal_sign * (X_WF.linear() * gradient);
    point.phi = phi;
    // x − ½ φ g, the midpoint between x and the field's surface.
    point.p_W = X_WF * (x_F - 0.5 * phi * gradient);
  }
}

}  // namespace coulomb
