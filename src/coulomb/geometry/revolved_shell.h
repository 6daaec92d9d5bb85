#pragma once

#include <string>

#include <Eigen/Dense>

#include "coulomb/geometry/shape.h"

namespace coulomb {

// A dish as the AL paper builds them (AL App. B, eq. 45): the revolution
// about z of the 2-D signed distance, in the half-plane (r, z), r = |p_xy|,
//   φ(r, z) = min(dist((r, z), OA), dist((r, z), AB)) − d,
// O the origin of G (the middle of the base), A and B points with r ≥ 0:
// a base O–A and a wall A–B, both 2d thick with rounded edges. Exact: for a
// solid of revolution the distance in the meridian plane is the distance.
// The paper gives the construction, not its dishes' A, B and d; the
// built-in dish pile chooses them (al_scenes.h).
struct RevolvedShellSize {
  Eigen::Vector2d a = Eigen::Vector2d(0.04, 0.0);    // A = (r, z) [m], r > 0
  Eigen::Vector2d b = Eigen::Vector2d(0.075, 0.04);  // B = (r, z) [m], r ≥ 0
  double thickness = 0.002;                          // d [m] > 0
};

// Its SDF shape, with a display surface of meridian points 2 mm apart (96
// to 400; the boundary seen from A, which the section is star-shaped
// about, resampled by arc length) × 72 facets. Throws std::invalid_argument naming `name`
// on bad dimensions.
SdfShape MakeRevolvedShell(const RevolvedShellSize& size, const std::string& name);

}  // namespace coulomb
