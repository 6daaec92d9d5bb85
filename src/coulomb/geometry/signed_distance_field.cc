#include "coulomb/geometry/signed_distance_field.h"

#include <cmath>
#include <stdexcept>
#include <utility>

namespace coulomb {

void SignedDistanceField::SetSurfaceSamples(
    const std::vector<Eigen::Vector3d>& candidates, double tolerance) {
  sample_points_.clear();
  sample_normals_.clear();
  sample_bounds_.setEmpty();
  Eigen::Vector3d gradient;
  for (Eigen::Vector3d p : candidates) {
    for (int step = 0; step < 2; ++step) {
      const double phi = Evaluate(p, &gradient);
      p -= phi * gradient / std::max(gradient.squaredNorm(), 1e-12);
    }
    if (std::abs(Evaluate(p, &gradient)) > tolerance || !(gradient.norm() > 0.0))
      continue;
    sample_points_.push_back(p);
    sample_bounds_.extend(p);
    sample_normals_.push_back(gradient.normalized());
  }
}

SdfShape MakeSdfShape(std::string description,
                      std::shared_ptr<const SignedDistanceField> field,
                      std::shared_ptr<const TriangleMesh> surface) {
  SdfShape shape{std::move(description), std::move(field), std::move(surface)};
  ValidateShape(shape);
  return shape;
}

}  // namespace coulomb
