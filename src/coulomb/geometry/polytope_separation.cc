#include "coulomb/geometry/polytope_separation.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace coulomb {

void FillSeparatingDirections(ConvexHull* hull) {
  hull->distinct_normals.clear();
  hull->edge_directions.clear();
  hull->distinct_normal_extents.clear();
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
  for (const Eigen::Vector3d& normal : hull->distinct_normals) {
    Eigen::Vector2d extent(std::numeric_limits<double>::infinity(),
                           -std::numeric_limits<double>::infinity());
    for (const Eigen::Vector3d& vertex : hull->vertices) {
      extent.x() = std::min(extent.x(), normal.dot(vertex));
      extent.y() = std::max(extent.y(), normal.dot(vertex));
    }
    hull->distinct_normal_extents.push_back(extent);
  }
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

bool PlacePolytope(const ConvexHull& hull, const Eigen::Isometry3d& X_WP,
                   PosedPolytope* posed) {
  if (hull.triangles.size() > kMaxSmallHullFaces ||
      hull.vertices.size() > kMaxSmallHullVertices || hull.distinct_normals.empty()) {
    return false;
  }
  posed->hull = &hull;
  posed->R_WP = X_WP.linear();
  posed->p_WP = X_WP.translation();
  posed->num_vertices = static_cast<int>(hull.vertices.size());
  return true;
}

bool PosePolytope(const ConvexHull& hull, const Eigen::Isometry3d& X_WP,
                  PosedPolytope* posed) {
  if (!PlacePolytope(hull, X_WP, posed)) return false;
  for (int k = 0; k < posed->num_vertices; ++k)
    posed->vertices_W[k] = X_WP * hull.vertices[k];
  return true;
}

namespace {

// Box A seen from the polytope's frame P, where a candidate axis L costs
// its projections alone: the box's centre c and radius Σ h_i |L·a_i| (a_i
// its axes, the columns of R_PA), and L·v over P's own vertices. These are
// kept coordinate by coordinate, their number made even with a copy of the
// last (which changes no extreme), for two vertices per instruction.
struct BoxInPolytopeFrame {
  static_assert(kMaxSmallHullVertices % 2 == 0);
  std::array<double, kMaxSmallHullVertices> x, y, z;  // P's vertices
  int num_vertices = 0;                               // even
};

// The least and greatest L·v over P's vertices (L in P's frame).
Eigen::Vector2d VertexExtents(const BoxInPolytopeFrame& vertices,
                              const Eigen::Vector3d& axis_P) {
  using Two = Eigen::Array2d;
  using Load = Eigen::Map<const Two>;
  Two least = Two::Constant(std::numeric_limits<double>::infinity());
  Two greatest = -least;
  const Two along_x = Two::Constant(axis_P.x()), along_y = Two::Constant(axis_P.y()),
            along_z = Two::Constant(axis_P.z());
  for (int k = 0; k < vertices.num_vertices; k += 2) {
    const Two height = along_x * Load(&vertices.x[k]) + along_y * Load(&vertices.y[k]) +
                       along_z * Load(&vertices.z[k]);
    least = least.min(height);
    greatest = greatest.max(height);
  }
  return {least.minCoeff(), greatest.maxCoeff()};
}

}  // namespace

BoxSeparation BoxPolytopeSeparatingAxis(const Eigen::Isometry3d& X_WA,
                                        const Eigen::Vector3d& half_extents_a,
                                        const PosedPolytope& polytope,
                                        double edge_axis_bias, double stop_above) {
  const ConvexHull& hull = *polytope.hull;
  BoxInPolytopeFrame vertices;
  vertices.num_vertices = polytope.num_vertices + polytope.num_vertices % 2;
  for (int k = 0; k < vertices.num_vertices; ++k) {
    const Eigen::Vector3d& vertex = hull.vertices[std::min(k, polytope.num_vertices - 1)];
    vertices.x[k] = vertex.x();
    vertices.y[k] = vertex.y();
    vertices.z[k] = vertex.z();
  }
  const Eigen::Matrix3d R_PA = polytope.R_WP.transpose() * X_WA.linear();
  const Eigen::Vector3d center =
      polytope.R_WP.transpose() * (X_WA.translation() - polytope.p_WP);
  const Eigen::Vector3d& h = half_extents_a;
  // Axis L (length `length`, P's extents along it, the box's radius): the
  // better of ±L, P beyond A along +L by least − L·c − radius, along −L by
  // L·c − radius − greatest, if it beats `threshold` (in metres, per unit
  // length) and the best so far.
  double best_separation = -std::numeric_limits<double>::infinity();
  Eigen::Vector3d best_axis_P = Eigen::Vector3d::UnitZ();
  const auto consider = [&](const Eigen::Vector3d& axis_P, double length,
                            const Eigen::Vector2d& extents, double radius,
                            double threshold) {
    const double on_center = axis_P.dot(center);
    const double along = extents.x() - on_center - radius;
    const double against = on_center - radius - extents.y();
    const double separation = std::max(along, against) / length;
    if (separation <= std::max(best_separation, threshold)) return;
    best_separation = separation;
    best_axis_P = (along >= against ? axis_P : Eigen::Vector3d(-axis_P)) / length;
  };
  constexpr double kAny = -std::numeric_limits<double>::infinity();
  for (int i = 0; i < 3 && best_separation <= stop_above; ++i) {  // A's face normals
    const Eigen::Vector3d axis_P = R_PA.col(i);
    consider(axis_P, 1.0, VertexExtents(vertices, axis_P), h[i], kAny);
  }
  for (size_t f = 0; f < hull.distinct_normals.size() && best_separation <= stop_above;
       ++f) {
    const Eigen::Vector3d& normal = hull.distinct_normals[f];
    consider(normal, 1.0, hull.distinct_normal_extents[f],
             h.dot((R_PA.transpose() * normal).cwiseAbs()), kAny);
  }
  // a_i × e: its components on the box's axes are 0 on a_i and ∓ e's
  // components on the other two, so its radius is h_j |e·a_k| + h_k |e·a_j|.
  const double threshold = best_separation + edge_axis_bias;
  for (size_t e = 0; e < hull.edge_directions.size() && best_separation <= stop_above;
       ++e) {
    const Eigen::Vector3d& edge = hull.edge_directions[e];
    const Eigen::Vector3d edge_A = (R_PA.transpose() * edge).cwiseAbs();
    for (int i = 0; i < 3; ++i) {
      const int j = (i + 1) % 3, k = (i + 2) % 3;
      const Eigen::Vector3d axis_P = R_PA.col(i).cross(edge);
      const double length = axis_P.norm();
      if (length < BoxSeparation::kParallelEdges) continue;
      consider(axis_P, length, VertexExtents(vertices, axis_P),
               h[j] * edge_A[k] + h[k] * edge_A[j], threshold);
    }
  }
  BoxSeparation best;
  best.separation = best_separation;
  best.axis_W = polytope.R_WP * best_axis_P;
  return best;
}

}  // namespace coulomb
