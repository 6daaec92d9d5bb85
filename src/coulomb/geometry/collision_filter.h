#pragma once

#include <cstdint>

namespace coulomb {

// Which geometries a geometry collides with, by MuJoCo's rule (an MJCF
// geom's contype and conaffinity bitmasks): two geometries a and b collide
// only if (type_a & affinity_b) ≠ 0 or (type_b & affinity_a) ≠ 0. Every
// geometry has type = affinity = 1 unless its file says otherwise, so
// that by default all collide.
struct CollisionFilter {
  uint32_t type = 1;      // MuJoCo's contype
  uint32_t affinity = 1;  // MuJoCo's conaffinity

  bool Collides(const CollisionFilter& other) const {
    return (type & other.affinity) != 0 || (other.type & affinity) != 0;
  }
  bool is_default() const { return type == 1 && affinity == 1; }
};

}  // namespace coulomb
