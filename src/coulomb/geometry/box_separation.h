#pragma once

#include <Eigen/Dense>
#include <Eigen/Geometry>
#include <limits>

namespace coulomb {

// A lower bound on the distance between two boxes (half extents h_A, h_B in
// their frames, poses X_WA, X_WB) by the separating axis theorem: the
// largest separation of the two boxes' projections over the 15 candidate
// axes (3 face normals of each, 9 edge–edge cross products),
//   s(L) = |L·(c_B − c_A)| − Σ_i h_A,i |L·a_i| − Σ_j h_B,j |L·b_j|,  ‖L‖ = 1.
// s ≤ distance for every axis (the projections of the boxes are at least
// that far apart), with equality at the best axis when the closest features
// are a face and anything, or two edges; when the boxes overlap, the largest
// s is minus the penetration depth (SAT's minimum translation). The broad
// phase drops a box–box pair whose bound exceeds its margin before any
// narrow phase: such a pair has no contact. Cross products shorter than
// 1e-9 (parallel edges) are skipped: a face axis covers them.
//
// With `stop_above`, the first axis (face normals first, the cheap ones)
// whose separation exceeds it is returned at once: still a lower bound, and
// above stop_above exactly when the largest one is (the broad phase's test
// against the margin, which most separated pairs pass on a face axis).
double BoxSeparationLowerBound(
    const Eigen::Isometry3d& X_WA, const Eigen::Vector3d& half_extents_a,
    const Eigen::Isometry3d& X_WB, const Eigen::Vector3d& half_extents_b,
    double stop_above = std::numeric_limits<double>::infinity());

}  // namespace coulomb
