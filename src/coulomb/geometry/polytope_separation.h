#pragma once

#include <array>
#include <limits>

#include <Eigen/Dense>
#include <Eigen/Geometry>

#include "coulomb/geometry/box_separation.h"
#include "coulomb/geometry/shape.h"

namespace coulomb {

// The vertices of a small convex polytope P (a hull of at most
// kMaxSmallHullFaces triangles, e.g. a height field's prism: 8) posed in W.
// A closed triangulated convex surface has V = F/2 + 2 vertices.
inline constexpr size_t kMaxSmallHullFaces = 32;
inline constexpr size_t kMaxSmallHullVertices = kMaxSmallHullFaces / 2 + 2;
struct PosedPolytope {
  const ConvexHull* hull = nullptr;
  Eigen::Matrix3d R_WP = Eigen::Matrix3d::Identity();
  Eigen::Vector3d p_WP = Eigen::Vector3d::Zero();
  std::array<Eigen::Vector3d, kMaxSmallHullVertices> vertices_W;
  int num_vertices = 0;
};
// Fills a small hull's distinct_normals (with their extents) and
// edge_directions (shape.h; left
// empty for a hull of more than kMaxSmallHullFaces triangles). Directions
// within 1e-9 of parallel are one; an edge between coplanar triangles (a
// diagonal of a polygonal face) is no edge.
void FillSeparatingDirections(ConvexHull* hull);

// False (and *posed untouched) for a hull with more than kMaxSmallHullFaces
// triangles or without its separating directions.
bool PosePolytope(const ConvexHull& hull, const Eigen::Isometry3d& X_WP,
                  PosedPolytope* posed);
// The same without posing the vertices (vertices_W left as they were): all
// that BoxPolytopeSeparatingAxis reads.
bool PlacePolytope(const ConvexHull& hull, const Eigen::Isometry3d& X_WP,
                   PosedPolytope* posed);

// The separating axis theorem for a box A (half extents h, pose X_WA) and a
// convex polytope P. On a unit axis L the separation of their projections is
//   s(L) = min_v L·v − (L·c_A + Σ_i h_i |L·a_i|)   (v over P's vertices),
// taken on both orientations ±L of each candidate: A's three face normals,
// P's distinct face normals, and the cross products a_i × e of A's edges
// with P's distinct edge directions e.
// As for two boxes (box_separation.h), every s(L) is a lower bound on the
// distance, the largest is exact when the closest features are a face and
// anything or two crossing edges, and minus the penetration depth when the
// shapes overlap. An edge axis is taken only when it beats the best face
// axis by more than `edge_axis_bias` [m]. The axis points from A into P.
// With `stop_above`, the first axis whose separation exceeds it is returned
// at once (the broad phase's test against the margin). The axes are taken
// in P's frame, where P's vertices and directions are the hull's own and
// the extents of P along its own face normals are known beforehand.
BoxSeparation BoxPolytopeSeparatingAxis(
    const Eigen::Isometry3d& X_WA, const Eigen::Vector3d& half_extents_a,
    const PosedPolytope& polytope, double edge_axis_bias,
    double stop_above = std::numeric_limits<double>::infinity());

}  // namespace coulomb
