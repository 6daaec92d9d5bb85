#pragma once

#include <Eigen/Dense>

#include "coulomb/geometry/shape.h"

namespace coulomb {

// The signed distance φ [m] from p_G (in the shape's frame G) to a shape's
// surface, negative inside, and its gradient (the outward normal of the
// nearest surface point), for every shape. Exact for the sphere, the box,
// the capsule, the cylinder and the half-space; a convex mesh gives the
// largest of its face-plane distances (exact inside, a lower bound
// outside near edges); an SDF shape evaluates its field.
double ShapeSignedDistance(const Shape& shape, const Eigen::Vector3d& p_G,
                           Eigen::Vector3d* gradient);

}  // namespace coulomb
