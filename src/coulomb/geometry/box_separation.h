#pragma once

#include <Eigen/Dense>
#include <Eigen/Geometry>
#include <limits>

namespace coulomb {

// The separating axis theorem for two boxes (half extents h_A, h_B in their
// frames, poses X_WA, X_WB). Over the 15 candidate axes (3 face normals of
// each, 9 edge–edge cross products) the separation of the boxes'
// projections on a unit axis L is
//   s(L) = |L·(c_B − c_A)| − Σ_i h_A,i |L·a_i| − Σ_j h_B,j |L·b_j|.
// Every s(L) is a lower bound on the distance between the boxes (their
// projections are at least that far apart), with equality at the best axis
// when the closest features are a face and anything, or two edges; when the
// boxes overlap, the largest s is minus the penetration depth (SAT's minimum
// translation). Cross products shorter than kParallelEdges (parallel edges)
// are skipped: a face axis covers them.
//
// Two uses: the broad phase drops a box–box pair whose bound exceeds its
// margin before any narrow phase, and the closed-form patch
// (closed_form_patch.h) takes the best axis as the contact normal.
struct BoxSeparation {
  static constexpr double kParallelEdges = 1e-9;

  Eigen::Vector3d axis_W = Eigen::Vector3d::UnitZ();  // unit, from c_A towards c_B
  double separation = -std::numeric_limits<double>::infinity();  // s(axis_W) [m]
};

// The axis of largest separation; an edge axis is taken only when it beats
// the best face axis by more than `edge_axis_bias` [m] (a face gives a
// contact patch, and near-parallel boxes tie).
//
// With `stop_above`, the first axis (face normals first, the cheap ones)
// whose separation exceeds it is returned at once: still a lower bound, and
// above stop_above exactly when the largest one is (the broad phase's test
// against the margin, which most separated pairs pass on a face axis).
BoxSeparation BoxSeparatingAxis(
    const Eigen::Isometry3d& X_WA, const Eigen::Vector3d& half_extents_a,
    const Eigen::Isometry3d& X_WB, const Eigen::Vector3d& half_extents_b,
    double edge_axis_bias = 0.0,
    double stop_above = std::numeric_limits<double>::infinity());

// The largest separation alone: a lower bound on the boxes' distance.
inline double BoxSeparationLowerBound(
    const Eigen::Isometry3d& X_WA, const Eigen::Vector3d& half_extents_a,
    const Eigen::Isometry3d& X_WB, const Eigen::Vector3d& half_extents_b,
    double stop_above = std::numeric_limits<double>::infinity()) {
  return BoxSeparatingAxis(X_WA, half_extents_a, X_WB, half_extents_b, 0.0, stop_above)
      .separation;
}

}  // namespace coulomb
