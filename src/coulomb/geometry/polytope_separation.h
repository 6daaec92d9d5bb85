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
// at once (the broad phase's test against the margin). P's own face
// normals are measured on the extents its hull keeps; A's face normals and
// the edge axes on P's vertices taken into A's frame once per test, where
// a_i · (v − c) is a coordinate and (a_i × e) · (v − c) two products.
//
// With a `memory` (one per pair, kept from query to query), a test that
// took every axis leaves there its winner, the best separations of the
// axes that could displace it, and the relative pose. The next test then
// takes the winner's axis alone while no other can have overtaken it: from
// the last pose, a point of A has moved by at most δ + θ |h| in P's frame
// (δ, θ the changes of A's centre and of R_PA, Frobenius), and an axis has
// turned by at most θ (A's face normals), 0 (P's) or 2θ / |a_i × e| (an
// edge axis), which moves a projection by at most the turn times the
// distance from A's centre; the winner must beat each rival by more than
// its separation's bound. The result is the full test's, bit for bit.
struct BoxPolytopeAxisMemory {
  // Per metre of the coordinates, for the round-off of the separations.
  static constexpr double kRounding = 1e-12;
  bool valid = false;
  const ConvexHull* hull = nullptr;  // P's, whose axes `winner` counts
  int winner = -1;  // the axis's index: A's faces, P's normals, edge axes
  bool winner_is_face = false;
  Eigen::Matrix3d R_PA = Eigen::Matrix3d::Identity();
  Eigen::Vector3d center = Eigen::Vector3d::Zero();  // A's centre in P
  // The best separations of the other face axes and of the other edge
  // axes (all face axes for an edge winner, all edge axes for a face one).
  double rival_face = 0.0, rival_edge = 0.0;
  double lever =
      0.0;  // the farthest a vertex of P or a point of A lies from A's centre [m]
  double turn_per_rotation = 1.0;  // max(1, 2 / the shortest edge axis's |a_i × e|)
};
BoxSeparation BoxPolytopeSeparatingAxis(
    const Eigen::Isometry3d& X_WA, const Eigen::Vector3d& half_extents_a,
    const PosedPolytope& polytope, double edge_axis_bias,
    double stop_above = std::numeric_limits<double>::infinity(),
    BoxPolytopeAxisMemory* memory = nullptr);

// The support function h(n) = max n·x over a centrally symmetric convex
// shape centred at its frame's origin, along a unit n_G in that frame: a
// sphere r, a box Σ h_i |n_i|, a capsule r + (L/2)|n_z|, a cylinder
// r √(1 − n_z²) + (L/2)|n_z|, an ellipsoid ‖diag(a) n‖. NaN for the other
// shapes (a convex mesh, a half-space, an SDF).
double SymmetricSupport(const Shape& shape, const Eigen::Vector3d& n_G);

// A lower bound on the distance between such a shape (pose X_WG) and a
// small polytope P: the largest separation over ±n for P's distinct face
// normals n (unit, in P's frame), n·c − h(R_GP n) − max_v n·v beyond P
// along n and min_v n·v − n·c − h along −n, c the shape's centre in P's
// frame; stopped at the first beyond `stop_above`. −∞ for a shape without
// a symmetric support.
double PolytopeFaceGap(const Shape& shape, const Eigen::Isometry3d& X_WG,
                       const PosedPolytope& polytope,
                       double stop_above = std::numeric_limits<double>::infinity());

// The point q of a convex hull nearest a point c outside it (both in the
// hull's frame), and where c lies against the face planes: q lies on a
// triangle whose plane has c on its outer side (at a vertex or an edge,
// c − q is a nonnegative combination of the normals of the faces there, so
// at least one of them faces c), so the least distance to those triangles
// is the distance to the hull. With c inside or on the surface,
// squared_distance is ∞ and c's signed distance is the largest height
// n_f·c − d_f, of face highest_face.
struct HullNearestPoint {
  Eigen::Vector3d point = Eigen::Vector3d::Zero();
  double squared_distance = std::numeric_limits<double>::infinity();
  double highest = -std::numeric_limits<double>::infinity();
  int highest_face = 0;
};
HullNearestPoint NearestHullPoint(const ConvexHull& hull, const Eigen::Vector3d& c);

// A lower bound on the same distance along the axis from P's point q
// nearest the shape's centre c to c, n = (c − q)/‖c − q‖ (q on a face whose
// plane has c on its outer side): n·c − h(R_GP n) − max_v n·v. Exact for a
// sphere; for an elongated shape beyond an edge or a vertex of P, where no
// face normal separates well, often close. −∞ with c inside P or for a
// shape without a symmetric support.
double PolytopeCentreAxisGap(const Shape& shape, const Eigen::Isometry3d& X_WG,
                             const PosedPolytope& polytope);

}  // namespace coulomb
