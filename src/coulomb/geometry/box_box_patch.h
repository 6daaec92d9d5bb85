#pragma once

#include <array>

#include <Eigen/Dense>
#include <Eigen/Geometry>

namespace coulomb {

// The contact patch of two boxes by the separating axis theorem, in closed
// form (no GJK/EPA): the narrow phase of the most common pair in a clutter.
//
// Boxes A and B have half extents h_A, h_B in their frames and poses X_WA,
// X_WB (centers c, axes a_i and b_j). Over the 15 candidate axes (the 3 + 3
// face normals, the 9 edge cross products a_i × b_j), the separation of the
// boxes' projections on a unit axis L is
//   s(L) = |L·(c_B − c_A)| − Σ_i h_A,i |L·a_i| − Σ_j h_B,j |L·b_j|.
// The normal n (from A into B) is the axis of largest s, an edge axis only
// when it beats the best face axis by kEdgeAxisBias (a face gives the full
// manifold, and near-parallel boxes tie); `depth` = s there, the signed
// distance of the boxes along n: exact when the closest features are a face
// and anything or two crossing edges, minus the penetration depth when the
// boxes overlap (SAT's minimum translation).
//
// The patch is the one Coal's contact patch describes: the support sets of
// A along n and of B along −n, each the box's vertices within `tolerance`
// [m] of its extreme plane (a vertex, an edge, or a face, whole or without
// its far corner), projected on the contact plane (midway between the two
// extreme planes) and intersected:
//   * a face and anything: the other set clipped to the face
//     (Sutherland–Hodgman), at most 8 points;
//   * two edges: their crossing, the midpoint of their closest points.
// Returns false when neither applies, and the caller falls back on a general
// narrow phase: two edges whose closest points are not interior to both
// (or parallel), or an empty clip (separated boxes whose closest features
// are not on the chosen axis, where s is only a lower bound of the
// distance), or a box smaller than the tolerance.
struct BoxBoxPatch {
  // A face axis wins against an edge axis within this separation [m].
  static constexpr double kEdgeAxisBias = 1e-6;

  Eigen::Vector3d normal_W = Eigen::Vector3d::UnitZ();  // unit, from A into B
  double depth = 0.0;                                   // s(n) [m]
  int num_points = 0;
  std::array<Eigen::Vector3d, 8> points_W;  // on the contact plane
};

bool CalcBoxBoxPatch(const Eigen::Isometry3d& X_WA, const Eigen::Vector3d& half_extents_a,
                     const Eigen::Isometry3d& X_WB, const Eigen::Vector3d& half_extents_b,
                     double tolerance, BoxBoxPatch* patch);

}  // namespace coulomb
