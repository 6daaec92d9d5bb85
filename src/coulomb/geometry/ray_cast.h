#pragma once

#include <optional>

#include <Eigen/Dense>

#include "coulomb/geometry/shape.h"

namespace coulomb {

// Where a ray first crosses a shape's surface: the ray x(t) = p + t d, t ≥ 0,
// from p along the unit vector d, both in the shape's frame G. A convex shape
// holds the ray over one interval [t_in, t_out] (the intersection of its
// slabs, its quadric and its faces' half-spaces); the ray meets its surface
// first at t_in when p is outside (t_in ≥ 0), at t_out when p is inside. A
// half-space is seen from above only (as MuJoCo's planes: p above it, d
// going down). An SDF shape's surface is its display mesh, met at its
// nearest triangle. Distances in G's units [m]; nullopt for no crossing.
std::optional<double> RayDistance(const Shape& shape, const Eigen::Vector3d& p_G,
                                  const Eigen::Vector3d& d_G);

}  // namespace coulomb
