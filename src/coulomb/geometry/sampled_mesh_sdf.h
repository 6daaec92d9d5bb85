#pragma once

#include <string>

#include <Eigen/Dense>

#include "coulomb/geometry/shape.h"

namespace coulomb {

// The signed distance field of any closed (watertight) triangle mesh,
// sampled once on a regular grid and interpolated trilinearly.
//
// The grid's spacing is h = (largest extent of the mesh's bounding box) /
// resolution, and it reaches 2h beyond the box on every side. At each node,
// |φ| is the distance to the nearest triangle and the sign comes from the
// generalized winding number w = Σ Ω_t / 4π over the triangles' solid
// angles (w = 1 inside, 0 outside: robust to the mesh's slivers). Between
// nodes φ is trilinear and ∇φ its exact derivative; outside the grid, φ at
// the nearest grid point plus the distance to it. The interpolation error
// is O(h²) on smooth surfaces and O(h) at sharp edges. Surface samples: the
// mesh's vertices and points on its triangles at most h apart, projected
// onto the interpolated zero level set.
// Throws std::invalid_argument naming `name` if the mesh is not closed
// (some edge not shared by exactly two triangles) or encloses no volume,
// or if resolution is outside [4, 256] or the grid would cost more than
// 3e8 node–triangle visits (about a second: lower the resolution or
// simplify the mesh).
SdfShape MakeSampledMeshSdf(const TriangleMesh& mesh, const std::string& name,
                            int resolution);

// The same for a mesh file (convex_mesh.h loads it), scaled per axis.
// Computed once per (file, scale, resolution) and process: later calls
// share the field. Throws std::runtime_error for a missing or unreadable
// file.
SdfShape LoadSampledMeshSdf(const std::string& file, const Eigen::Vector3d& scale,
                            int resolution);

}  // namespace coulomb
