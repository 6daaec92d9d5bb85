#include "coulomb/geometry/polytope_separation.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace coulomb {

void FillSeparatingDirections(ConvexHull* hull) {
  hull->distinct_normals.clear();
  hull->edge_directions.clear();
  if (hull->triangles.size() > kMaxSmallHullFaces) return;
  constexpr double kParallel = 1.0 - 1e-9;
  const auto add_distinct = [&](const Eigen::Vector3d& direction, bool up_to_sign,
                                std::vector<Eigen::Vector3d>* directions) {
    for (const Eigen::Vector3d& known : *directions) {
      const double cosine = known.dot(direction);
      if (cosine > kParallel || (up_to_sign && cosine < -kParallel)) return;
    }
    directions->push_back(direction);
  };
  for (const Eigen::Vector3d& normal : hull->face_normals)
    add_distinct(normal, false, &hull->distinct_normals);
  for (size_t f = 0; f < hull->triangles.size(); ++f) {
    for (int k = 0; k < 3; ++k) {
      const int across = hull->neighbors.empty() ? -1 : hull->neighbors[f][k];
      if (across >= 0 &&
          hull->face_normals[f].dot(hull->face_normals[across]) > kParallel)
        continue;
      const std::array<int, 3>& corners = hull->triangles[f];
      add_distinct((hull->vertices[corners[(k + 1) % 3]] - hull->vertices[corners[k]])
                       .normalized(),
                   true, &hull->edge_directions);
    }
  }
}

bool PosePolytope(const ConvexHull& hull, const Eigen::Isometry3d& X_WP,
                  PosedPolytope* posed) {
  if (hull.triangles.size() > kMaxSmallHullFaces ||
      hull.vertices.size() > kMaxSmallHullVertices || hull.distinct_normals.empty()) {
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

// The polytope's vertices in the box's frame A (the box centred at A's
// origin, along its axes), where a candidate axis L costs its projections
// alone: the box's radius Σ h_i |L_i| and L·v over the vertices.
struct PolytopeInBoxFrame {
  std::array<Eigen::Vector3d, kMaxSmallHullVertices> vertices_A;
  int num_vertices = 0;
  Eigen::Vector3d half_extents;
};

// The best of ±L (any length > 0, in A's frame) for box A and polytope P:
// the separation, and the unit axis (in A's frame) from A into P.
struct AxisSeparation {
  double separation;
  Eigen::Vector3d unit_axis_A;
};
AxisSeparation SeparationOnBothSides(const PolytopeInBoxFrame& shapes,
                                     const Eigen::Vector3d& axis_A, double length) {
  double least = std::numeric_limits<double>::infinity();
  double greatest = -least;
  for (int k = 0; k < shapes.num_vertices; ++k) {
    const double height = axis_A.dot(shapes.vertices_A[k]);
    least = std::min(least, height);
    greatest = std::max(greatest, height);
  }
  const double radius = shapes.half_extents.dot(axis_A.cwiseAbs());
  const double along = least - radius;        // P beyond A along +L
  const double against = -radius - greatest;  // P beyond A along −L
  if (along >= against) return {along / length, axis_A / length};
  return {against / length, -axis_A / length};
}

}  // namespace

BoxSeparation BoxPolytopeSeparatingAxis(const Eigen::Isometry3d& X_WA,
                                        const Eigen::Vector3d& half_extents_a,
                                        const PosedPolytope& polytope,
                                        double edge_axis_bias, double stop_above) {
  const Eigen::Matrix3d R_AW = X_WA.linear().transpose();
  const Eigen::Matrix3d R_AP = R_AW * polytope.R_WP;
  PolytopeInBoxFrame shapes;
  shapes.num_vertices = polytope.num_vertices;
  shapes.half_extents = half_extents_a;
  for (int k = 0; k < polytope.num_vertices; ++k)
    shapes.vertices_A[k] = R_AW * (polytope.vertices_W[k] - X_WA.translation());
  double best_separation = -std::numeric_limits<double>::infinity();
  Eigen::Vector3d best_axis_A = Eigen::Vector3d::UnitZ();
  const auto consider = [&](const AxisSeparation& candidate) {
    if (candidate.separation <= best_separation) return;
    best_separation = candidate.separation;
    best_axis_A = candidate.unit_axis_A;
  };
  for (int i = 0; i < 3 && best_separation <= stop_above; ++i)  // A's face normals
    consider(SeparationOnBothSides(shapes, Eigen::Vector3d::Unit(i), 1.0));
  const ConvexHull& hull = *polytope.hull;
  for (size_t f = 0; f < hull.distinct_normals.size() && best_separation <= stop_above;
       ++f) {
    consider(SeparationOnBothSides(shapes, R_AP * hull.distinct_normals[f], 1.0));
  }
  const double best_face = best_separation;
  for (size_t e = 0; e < hull.edge_directions.size() && best_separation <= stop_above;
       ++e) {
    const Eigen::Vector3d edge_A = R_AP * hull.edge_directions[e];
    for (int i = 0; i < 3; ++i) {
      const Eigen::Vector3d axis_A = Eigen::Vector3d::Unit(i).cross(edge_A);
      const double length = axis_A.norm();
      if (length < BoxSeparation::kParallelEdges) continue;
      const AxisSeparation candidate = SeparationOnBothSides(shapes, axis_A, length);
      if (candidate.separation > best_face + edge_axis_bias) consider(candidate);
    }
  }
  BoxSeparation best;
  best.separation = best_separation;
  best.axis_W = X_WA.linear() * best_axis_A;
  return best;
}

}  // namespace coulomb
