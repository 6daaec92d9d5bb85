#pragma once

#include <string>
#include <vector>

#include <Eigen/Dense>

#include "coulomb/geometry/shape.h"

namespace coulomb {

// A height field (terrain): elevations on a regular grid of `rows` × `cols`
// points over the rectangle |x| ≤ half_size.x, |y| ≤ half_size.y of its frame
// G, the point of row r and column c at
//   x = (2c/(cols − 1) − 1) half_size.x,  y = (2r/(rows − 1) − 1) half_size.y,
//   z = heights[r cols + c]  [m],
// row 0 along y = −half_size.y. The solid under the surface reaches down to
// z = −base_depth (MuJoCo's hfield: size = (half_size, elevation scale,
// base_depth), its elevations normalized to [0, 1] and scaled).
struct HeightField {
  int rows = 0;
  int cols = 0;
  std::vector<double> heights;
  Eigen::Vector2d half_size = Eigen::Vector2d::Zero();
  double base_depth = 0.0;
};

// One prism of a height field: its polytope in a frame P translated from G
// by `offset` (the middle of its bounding box), so that its bounding sphere
// about P's origin is its own (X_GP = translation by offset).
struct HeightFieldPrism {
  Eigen::Vector3d offset = Eigen::Vector3d::Zero();
  ConvexMesh mesh;
};

// The height field as a union of convex triangular prisms, as MuJoCo
// collides it: each grid cell split along its diagonal from (r, c) to
// (r + 1, c + 1) into two triangles, each extruded down to z = −base_depth.
// Adjacent prisms share their side faces, so contact with the union sees
// the surface and the base. 2 (rows − 1)(cols − 1) prisms. Throws
// std::invalid_argument naming `name` for fewer than 2 rows or columns, a
// size or base depth that is not positive, a count of heights that is not
// rows × cols, or a height that is not finite or lies below the base.
std::vector<HeightFieldPrism> HeightFieldPrisms(const HeightField& field,
                                                const std::string& name);

}  // namespace coulomb
