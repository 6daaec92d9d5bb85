#pragma once

#include <Eigen/Dense>
#include <limits>
#include <optional>

#include "coulomb/geometry/collision_filter.h"

namespace coulomb {

// A geom's contact attributes, each from the geom or its class
// (ResolveMjcfGeomAndSiteClasses):
// * friction: the sliding friction μ, if the geom sets `friction`; a geom
//   that sets none takes the scene's contact material (μ = 1 by default,
//   MuJoCo's default too);
// * filter: its contype and conaffinity (1 and 1 by default).
struct MjcfGeomContact {
  std::optional<double> friction;
  CollisionFilter filter;
  // A plane's half-sizes along its x and y, where rays meet it (HalfSpace::
  // ray_half_extent): its size's, ∞ along an axis whose size is 0.
  Eigen::Vector2d plane_half_size =
      Eigen::Vector2d::Constant(std::numeric_limits<double>::infinity());
};

}  // namespace coulomb
