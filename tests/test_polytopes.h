#pragma once

#include <vector>

#include <Eigen/Dense>

#include "coulomb/geometry/shape.h"

namespace coulomb::testing {

// The 8 corners (±h_x, ±h_y, ±h_z) of a box centred at the origin.
std::vector<Eigen::Vector3d> BoxCorners(const Eigen::Vector3d& half_extents);

// The hull of a 12-gon prism (radius 0.1 m, 0.1 m tall): 40 triangles,
// more than the closed forms take (kMaxSmallHullFaces).
ConvexMesh TwelveGonPrism();

}  // namespace coulomb::testing
