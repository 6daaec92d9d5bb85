#pragma once

#include <functional>
#include <memory>
#include <vector>

#include <Eigen/Dense>

#include "coulomb/geometry/shape.h"

namespace coulomb {

// Closed display surfaces of shapes about the z axis (threads, revolved
// shells), built from rings: each ring is kRingFacets vertices at the
// angles θ_j = 2π j / kRingFacets.
constexpr int kRingFacets = 72;  // 5°: a hexagon's corners (30° + 60° k) are vertices

// A ring at height z [m] whose radius at angle θ is radius(θ) [m].
std::vector<Eigen::Vector3d> Ring(double z, const std::function<double(double)>& radius);

// A closed surface joining consecutive rings by quads (two triangles each);
// `cyclic` joins the last ring to the first, else each end is closed by a
// fan to its ring's centroid. Triangles are turned outward (positive
// enclosed volume).
std::shared_ptr<TriangleMesh> RingSurface(
    const std::vector<std::vector<Eigen::Vector3d>>& rings, bool cyclic);

}  // namespace coulomb
