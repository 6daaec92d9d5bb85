#pragma once

#include <Eigen/Dense>

namespace coulomb {

// The distance between the segments p + s d_p and q + u d_q, s, u ∈ [0, 1]
// (a segment may be a point, d = 0): the minimum over (s, u) of the convex
// ‖r + s d_p − u d_q‖², r = p − q, from its stationary point clamped to the
// square and, where a clamp binds, the best parameter of the other segment
// for the clamped one (the closest-point construction of Ericson, Real-Time
// Collision Detection, §5.1.9). The broad phase's swept bounding spheres.
double SegmentDistance(const Eigen::Vector3d& p, const Eigen::Vector3d& d_p,
                       const Eigen::Vector3d& q, const Eigen::Vector3d& d_q);

// The parameters (s, u) of a closest pair of points of the same segments,
// p + s d_p and q + u d_q: two boxes' edges (box_distance.h).
Eigen::Vector2d SegmentClosestParameters(const Eigen::Vector3d& p,
                                         const Eigen::Vector3d& d_p,
                                         const Eigen::Vector3d& q,
                                         const Eigen::Vector3d& d_q);

}  // namespace coulomb
