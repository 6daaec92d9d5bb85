#pragma once

#include <array>
#include <limits>

#include <Eigen/Dense>
#include <Eigen/Geometry>

#include "coulomb/geometry/box_separation.h"
#include "coulomb/geometry/polytope_separation.h"
#include "coulomb/geometry/shape.h"

namespace coulomb {

// The contact patch of two primitive shapes in closed form, without GJK/EPA:
// the narrow phase of the pairs a clutter is made of (box, sphere,
// half-space; ellipsoids, capsules and cylinders on the ground; boxes, spheres,
// capsules and ellipsoids on a height field). The patch is the one Coal's
// contact patch describes: a unit
// normal n from A into B, the signed distance `depth` of the shapes along n
// (negative when they overlap) and points on the contact plane, midway
// between the shapes' extreme planes along n. CollisionWorld then measures
// each point's own φ along n (RefineAlongNormal), as for Coal's patches.
//
// Sphere–sphere, sphere–box, sphere–half-space: one point, on the line
// between the closest points (exact; a sphere's center inside a box leaves
// through the box's nearest face). Sphere–convex polytope (a convex mesh of
// at most kMaxSmallHullFaces triangles: a height field's prisms, small
// hulls): one point, likewise (exact; a center inside leaves through the
// nearest face plane; larger hulls are left to GJK, whose support search
// does not visit every face). Ellipsoid–half-space: one point, below
// the ellipsoid's lowest point along the half-space's normal (exact).
// Ellipsoid–small convex polytope: likewise along the normal of the face
// whose plane separates them most (or they overlap least), where that
// face settles the pair: apart, the ellipsoid's extreme point lies over
// the face; overlapping, it lies inside the polytope at least as deep
// below every other face's plane (exact in both).
// Capsule–half-space (a robot's limbs on the ground): the lowest point of
// each end cap whose centre lies within `tolerance` of the lowest along the
// normal (two points for a capsule lying flat, as Coal's patch gives).
// Cylinder–half-space (cans, wheels): the rim of the lower cap, sampled at
// kRimSamples angles, where all of it lies within twice `tolerance` of its
// lowest point (standing); else the lowest rim point of each cap within
// `tolerance` of the lowest (two lying on its side, one tilted), and as far
// points (below) the other cap's beyond it and the lower rim's samples
// beyond `tolerance`. Exact. Capsules on the
// ground likewise give their other cap as a far point, boxes their
// vertices beyond the support set.
// Box–half-space: n the half-space's
// normal, the points the box's support set along −n (below). Box–box, by
// the separating axis theorem (box_separation.h): n is the axis of largest
// separation s, an edge axis only when it beats the best face axis by
// kEdgeAxisBias (a face gives the full manifold, and near-parallel boxes
// tie), and depth = s(n): exact when the closest features are a face and
// anything or two crossing edges, minus the penetration depth when the
// boxes overlap (SAT's minimum translation). The points: the support sets
// of A along n and of B along −n, each the box's vertices within
// `tolerance` [m] of its extreme plane (a vertex, an edge, or a face, whole
// or without its far corner), projected on the contact plane and
// intersected: a face clips the other set (Sutherland–Hodgman, at most 8
// points); two edges give their crossing, the midpoint of their closest
// points. Disjoint boxes whose closest features lie on no separating axis
// (a vertex and an edge, two vertices, two edges whose closest points are
// not interior to both: s is then only a lower bound of the distance) get
// one point, midway between their closest points (box_distance.h), the
// normal along them and their distance as depth. While the boxes touch
// (depth below the tolerance), each box's vertices outside the other box
// and beyond the tolerance are far points, at their exact distances to it,
// each along its own normal (from the other box's point nearest it).
//
// Box–small convex polytope (polytope_separation.h: a height field's prism):
// as two boxes, over the box's face normals, the polytope's distinct face
// normals and the cross products of their edge directions; the polytope's
// support set is its vertices within `tolerance` of its extreme plane, in
// order around their hull on the contact plane. Capsule–small convex
// polytope: while the capsule's core segment clears the polytope, the
// normal joins their closest points (exact: the broad phase's separating
// axis where the foot of the segment's end nearest the polytope along it
// lies in the polytope, else the least segment–triangle distance over the
// faces the segment lies outside of), depth = distance −
// radius, the points the support sets' (a capsule along a face: two) or
// one between the closest points; where the segment meets the polytope,
// the segment's separating axes (the segment a box of half extents
// (0, 0, length/2): exact, the faces of the Minkowski difference being the
// polytope's faces and the parallelograms of the segment and its edges).
//
// Returns false for other pairs, and for the box–box cases the above does
// not cover, where the caller uses a general narrow phase: overlapping boxes
// whose deepest features are two edges not crossing inside both, or whose
// face clip is empty, and a box smaller than the tolerance; likewise for a
// box or an overlapping capsule with a polytope, for a box and a polytope
// apart whose closest features lie on no separating axis, and for an
// ellipsoid whose extreme point no face of a polytope settles.

struct ClosedFormPatch {
  // A face axis wins against an edge axis within this separation [m].
  static constexpr double kEdgeAxisBias = 1e-6;
  // A cylinder standing on a cap gets this many points on its rim, as many
  // as Coal's patches sample curved rims with (CollisionWorld).
  static constexpr int kRimSamples = 8;

  Eigen::Vector3d normal_W = Eigen::Vector3d::UnitZ();  // unit, from A into B
  double depth = 0.0;                                   // [m]
  int num_points = 0;
  std::array<Eigen::Vector3d, 8> points_W;  // on the contact plane
  static_assert(kRimSamples <= 8);
  // Points off the patch, each midway between the shapes along its own
  // normal at its own signed distance far_depths [m] (exact): features beyond the
  // tolerance that a body tipping over swings down within a step, a box's
  // other vertices, a tilted capsule's or cylinder's other cap and a tilted
  // cylinder's rim on the ground (a box falling onto its side struck 20 mm
  // deep, a can 10 mm), and either box's vertices against the other box
  // (one that pivots on another's face, edge or vertex). The caller adds
  // those within its margin as speculative contacts.
  // (16: two boxes' 8 vertices each, at most.)
  std::array<Eigen::Vector3d, 16> far_points_W;
  std::array<Eigen::Vector3d, 16> far_normals_W;  // unit, from A into B
  std::array<double, 16> far_depths;
  int num_far_points = 0;
};

// Far points whose gap exceeds the patch's depth by `far_reach` [m] or more
// are left out (the caller's own limit, FarPointReach in the collision
// world: a body at rest computes none).
bool CalcClosedFormPatch(const Shape& shape_a, const Eigen::Isometry3d& X_WA,
                         const Shape& shape_b, const Eigen::Isometry3d& X_WB,
                         double tolerance, ClosedFormPatch* patch,
                         double far_reach = std::numeric_limits<double>::infinity());

// The box–box case with the boxes' separating axis already known
// (BoxSeparatingAxis with kEdgeAxisBias, complete: not stopped early), as
// the broad phase leaves it for the pairs it keeps.
// Far points whose gap exceeds the patch's depth by `far_reach` [m] or more
// are left out (the caller's own limit); none are computed when the boxes
// do not touch or `far_reach` is within the tolerance plus 0.1 mm.
bool CalcBoxBoxPatch(const Box& box_a, const Eigen::Isometry3d& X_WA, const Box& box_b,
                     const Eigen::Isometry3d& X_WB, const BoxSeparation& separation,
                     double tolerance, ClosedFormPatch* patch,
                     double far_reach = std::numeric_limits<double>::infinity());

// A box A and a small convex polytope (polytope_separation.h) with their
// separating axis already known (BoxPolytopeSeparatingAxis with
// kEdgeAxisBias, complete), as the broad phase leaves it: the normal from
// the box into the polytope.
bool CalcBoxPolytopePatch(const Box& box, const Eigen::Isometry3d& X_WA,
                          const PosedPolytope& polytope, const BoxSeparation& separation,
                          double tolerance, ClosedFormPatch* patch);

// A capsule's core segment as a box in its frame (half extents (0, 0,
// length/2)), for the separating axes of polytope_separation.h.
inline Eigen::Vector3d CapsuleCoreHalfExtents(const Capsule& capsule) {
  return Eigen::Vector3d(0.0, 0.0, 0.5 * capsule.length);
}

// A capsule and a small convex polytope with their core segment's
// separating axis already known (BoxPolytopeSeparatingAxis of
// CapsuleCoreHalfExtents with kEdgeAxisBias, complete): the normal from the
// capsule into the polytope.
bool CalcCapsulePolytopePatch(const Capsule& capsule, const Eigen::Isometry3d& X_WC,
                              const PosedPolytope& polytope,
                              const BoxSeparation& separation, double tolerance,
                              ClosedFormPatch* patch);

}  // namespace coulomb
