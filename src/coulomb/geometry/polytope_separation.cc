#include "coulomb/geometry/polytope_separation.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace coulomb {

bool PosePolytope(const ConvexHull& hull, const Eigen::Isometry3d& X_WP,
                  PosedPolytope* posed) {
  if (hull.triangles.size() > kMaxSmallHullFaces ||
      hull.vertices.size() > kMaxSmallHullVertices) {
    return false;
  }
  posed->hull = &hull;
  posed->R_WP = X_WP.linear();
  posed->num_vertices = static_cast<int>(hull.vertices.size());
  for (int k = 0; k < posed->num_vertices; ++k)
    posed->vertices_W[k] = X_WP * hull.vertices[k];
  return true;
}

namespace {

// The best of ±axis (any length > 0) for box A and polytope P: the
// separation and the unit axis from A into P.
struct AxisSeparation {
  double separation;
  Eigen::Vector3d unit_axis;
};
AxisSeparation SeparationOnBothSides(const Eigen::Isometry3d& X_WA,
                                     const Eigen::Vector3d& half_extents_a,
                                     const PosedPolytope& polytope,
                                     const Eigen::Vector3d& axis) {
  double least = std::numeric_limits<double>::infinity();
  double greatest = -least;
  for (int k = 0; k < polytope.num_vertices; ++k) {
    const double height = axis.dot(polytope.vertices_W[k]);
    least = std::min(least, height);
    greatest = std::max(greatest, height);
  }
  const double center = axis.dot(X_WA.translation());
  const double radius = half_extents_a.dot((X_WA.linear().transpose() * axis).cwiseAbs());
  const double length = axis.norm();
  const double along = least - (center + radius);       // P beyond A along +axis
  const double against = (center - radius) - greatest;  // P beyond A along −axis
  if (along >= against) return {along / length, axis / length};
  return {against / length, -axis / length};
}

}  // namespace

BoxSeparation BoxPolytopeSeparatingAxis(const Eigen::Isometry3d& X_WA,
                                        const Eigen::Vector3d& half_extents_a,
                                        const PosedPolytope& polytope,
                                        double edge_axis_bias, double stop_above) {
  BoxSeparation best;
  const auto consider = [&](const AxisSeparation& candidate) {
    if (candidate.separation <= best.separation) return;
    best.separation = candidate.separation;
    best.axis_W = candidate.unit_axis;
  };
  for (int i = 0; i < 3 && best.separation <= stop_above; ++i)  // A's face normals
    consider(SeparationOnBothSides(X_WA, half_extents_a, polytope, X_WA.linear().col(i)));
  const ConvexHull& hull = *polytope.hull;
  for (size_t f = 0; f < hull.face_normals.size() && best.separation <= stop_above; ++f) {
    consider(SeparationOnBothSides(X_WA, half_extents_a, polytope,
                                   polytope.R_WP * hull.face_normals[f]));
  }
  const double best_face = best.separation;
  for (size_t f = 0; f < hull.triangles.size() && best.separation <= stop_above; ++f) {
    const std::array<int, 3>& triangle = hull.triangles[f];
    for (int k = 0; k < 3; ++k) {
      // Each edge is shared by two outward triangles, which run it in
      // opposite directions: the one that runs it upward takes it.
      const int from = triangle[k], to = triangle[(k + 1) % 3];
      if (from > to) continue;
      const Eigen::Vector3d edge = polytope.vertices_W[to] - polytope.vertices_W[from];
      for (int i = 0; i < 3; ++i) {
        const Eigen::Vector3d axis = X_WA.linear().col(i).cross(edge);
        if (axis.norm() < BoxSeparation::kParallelEdges * edge.norm()) continue;
        const AxisSeparation candidate =
            SeparationOnBothSides(X_WA, half_extents_a, polytope, axis);
        if (candidate.separation > best_face + edge_axis_bias) consider(candidate);
      }
    }
  }
  return best;
}

}  // namespace coulomb
