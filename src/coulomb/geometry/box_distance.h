#pragma once

#include <Eigen/Dense>
#include <Eigen/Geometry>

namespace coulomb {

// The closest points of two disjoint boxes (half extents h_A, h_B in their
// frames, poses X_WA, X_WB), where the separating axis theorem
// (box_separation.h) gives only a lower bound on their distance: the
// closest features are a vertex and an edge, two vertices, or two edges
// whose closest points are not interior to both. For disjoint convex
// polyhedra a closest pair is a vertex and its nearest point on the other
// solid, or a point interior to an edge of each; so the distance is the
// least of each vertex's distance to the other box (clamped in that box's
// frame) and of the edge pairs' (SegmentClosestParameters). Two edges
// whose closest points are interior to both are joined by their common
// normal n ∥ a_i × b_j, and each is its box's extreme edge along ±n: one
// pair per pair of directions, nine in all. For overlapping boxes the
// result means nothing.
struct BoxClosestPoints {
  Eigen::Vector3d on_a = Eigen::Vector3d::Zero();  // on A's surface, in W
  Eigen::Vector3d on_b = Eigen::Vector3d::Zero();  // on B's surface, in W
  double distance = 0.0;                           // ‖on_b − on_a‖ [m]
};

// A box B seen in another box A's frame: its centre and its half axes
// h_b,j b_j (columns), so that vertex k is centre + Σ_j ±h_b,j b_j, the sign
// of axis j that of bit j of k. A point's nearest point of A (half extents
// h_a) is the point clamped into [−h_a, h_a]: the vertex–solid candidates of
// a box pair's distance (ClosestPointsOfDisjointBoxes, and the far points
// of closed_form_patch.h).
struct BoxInFrame {
  Eigen::Vector3d center;
  Eigen::Matrix3d half_axes;

  Eigen::Vector3d Vertex(int k) const {
    const Eigen::Vector3d signs((k & 1) ? 1.0 : -1.0, (k & 2) ? 1.0 : -1.0,
                                (k & 4) ? 1.0 : -1.0);
    return center + half_axes * signs;
  }
};

inline Eigen::Vector3d NearestPointOfBox(const Eigen::Vector3d& p,
                                         const Eigen::Vector3d& half_extents) {
  return p.cwiseMax(-half_extents).cwiseMin(half_extents);
}

BoxClosestPoints ClosestPointsOfDisjointBoxes(const Eigen::Isometry3d& X_WA,
                                              const Eigen::Vector3d& half_extents_a,
                                              const Eigen::Isometry3d& X_WB,
                                              const Eigen::Vector3d& half_extents_b);

}  // namespace coulomb
