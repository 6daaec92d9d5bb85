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

// P's vertices in its own frame, where the axes are taken (CandidateAxes),
// kept coordinate by coordinate, their number made even with a copy of the
// last (which changes no extreme), for two vertices per instruction.
struct PolytopeVertices {
  static_assert(kMaxSmallHullVertices % 2 == 0);
  std::array<double, kMaxSmallHullVertices> x, y, z;  // P's vertices
  int num_vertices = 0;                               // even
};

// The least and greatest L·v over P's vertices (L in P's frame).
Eigen::Vector2d VertexExtents(const PolytopeVertices& vertices,
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

// One candidate axis: the separation along it and its unit direction (in
// P's frame) from A into P.
struct AxisSeparation {
  double separation;
  Eigen::Vector3d unit_axis_P;
};

// The candidate axes of box A and polytope P, in P's frame, by index: A's
// face normals a_i (0–2), P's distinct face normals (3 to 3 + F − 1), then
// a_i × e for P's edge directions e (3 + F + 3e + i).
class CandidateAxes {
 public:
  CandidateAxes(const Eigen::Matrix3d& R_PA, const Eigen::Vector3d& center,
                const Eigen::Vector3d& half_extents, const PosedPolytope& polytope)
      : R_PA_(R_PA), center_(center), h_(half_extents), hull_(*polytope.hull) {
    vertices_.num_vertices = polytope.num_vertices + polytope.num_vertices % 2;
    for (int k = 0; k < vertices_.num_vertices; ++k) {
      const Eigen::Vector3d& vertex =
          hull_.vertices[std::min(k, polytope.num_vertices - 1)];
      vertices_.x[k] = vertex.x();
      vertices_.y[k] = vertex.y();
      vertices_.z[k] = vertex.z();
    }
  }

  int num_faces() const { return 3 + static_cast<int>(hull_.distinct_normals.size()); }
  int num_axes() const {
    return num_faces() + 3 * static_cast<int>(hull_.edge_directions.size());
  }

  // Axis `index`: the better of ±L, P beyond A along +L by least − L·c −
  // radius, along −L by L·c − radius − greatest (per unit length of L), and
  // the unit axis from A into P. False for a_i × e with a_i ∥ e (below
  // BoxSeparation::kParallelEdges); `length` is |L|.
  bool Evaluate(int index, AxisSeparation* result, double* length) const {
    Eigen::Vector3d axis_P;
    Eigen::Vector2d extents;
    double radius;
    *length = 1.0;
    if (index < 3) {
      axis_P = R_PA_.col(index);
      extents = VertexExtents(vertices_, axis_P);
      radius = h_[index];
    } else if (index < num_faces()) {
      axis_P = hull_.distinct_normals[index - 3];
      extents = hull_.distinct_normal_extents[index - 3];
      radius = h_.dot((R_PA_.transpose() * axis_P).cwiseAbs());
    } else {
      // a_i × e: its components on the box's axes are 0 on a_i and ∓ e's
      // on the other two, so its radius is h_j |e·a_k| + h_k |e·a_j|.
      const int e = (index - num_faces()) / 3, i = (index - num_faces()) % 3;
      const int j = (i + 1) % 3, k = (i + 2) % 3;
      const Eigen::Vector3d& edge = hull_.edge_directions[e];
      axis_P = R_PA_.col(i).cross(edge);
      *length = axis_P.norm();
      if (*length < BoxSeparation::kParallelEdges) return false;
      extents = VertexExtents(vertices_, axis_P);
      radius = h_[j] * std::abs(R_PA_.col(k).dot(edge)) +
               h_[k] * std::abs(R_PA_.col(j).dot(edge));
    }
    const double on_center = axis_P.dot(center_);
    const double along = extents.x() - on_center - radius;
    const double against = on_center - radius - extents.y();
    result->separation = std::max(along, against) / *length;
    result->unit_axis_P =
        (along >= against ? axis_P : Eigen::Vector3d(-axis_P)) / *length;
    return true;
  }

  // The farthest a vertex of P lies from A's centre.
  double VertexReach() const {
    double reach = 0.0;
    for (const Eigen::Vector3d& vertex : hull_.vertices)
      reach = std::max(reach, (vertex - center_).norm());
    return reach;
  }

 private:
  const Eigen::Matrix3d& R_PA_;
  const Eigen::Vector3d& center_;
  const Eigen::Vector3d& h_;
  const ConvexHull& hull_;
  PolytopeVertices vertices_;
};

// The best and second best separations over a run of candidates, the
// best's index (the first of equals) and axis.
struct RunningBest {
  double best = -std::numeric_limits<double>::infinity();
  double second = -std::numeric_limits<double>::infinity();
  int index = -1;
  Eigen::Vector3d unit_axis_P = Eigen::Vector3d::UnitZ();

  void Add(int candidate, const AxisSeparation& axis) {
    if (axis.separation > best) {
      second = best;
      best = axis.separation;
      index = candidate;
      unit_axis_P = axis.unit_axis_P;
    } else {
      second = std::max(second, axis.separation);
    }
  }
};

// Whether the winner of the last full test, whose separation is now
// `separation`, still wins: no other axis can have gained more than the
// bound on how far any axis's separation moved since (relative pose R_PA,
// c against the memory's).
bool WinnerHolds(const BoxPolytopeAxisMemory& memory, const Eigen::Matrix3d& R_PA,
                 const Eigen::Vector3d& center, double box_radius, double separation,
                 double edge_axis_bias) {
  // A point of A moves by at most δ + θ |h| in P's frame; an axis turns by
  // at most θ (A's face normals), 0 (P's), 2θ/|a_i × e| (an edge axis, a
  // normalized cross product); projected from A's centre, points within
  // `lever` of it move by at most the turn times the lever.
  const double theta = (R_PA - memory.R_PA).norm();
  const double rounding =
      BoxPolytopeAxisMemory::kRounding * (1.0 + center.norm() + memory.lever);
  const double bound = (center - memory.center).norm() + theta * box_radius +
                       theta * memory.turn_per_rotation * memory.lever + rounding;
  const double rival_face = memory.rival_face + bound;
  const double rival_edge = memory.rival_edge + bound;
  if (memory.winner_is_face) {
    return separation > rival_face &&
           rival_edge < std::max(separation, separation + edge_axis_bias);
  }
  return separation > rival_edge &&
         separation > std::max(rival_face, rival_face + edge_axis_bias);
}

}  // namespace

BoxSeparation BoxPolytopeSeparatingAxis(const Eigen::Isometry3d& X_WA,
                                        const Eigen::Vector3d& half_extents_a,
                                        const PosedPolytope& polytope,
                                        double edge_axis_bias, double stop_above,
                                        BoxPolytopeAxisMemory* memory) {
  const Eigen::Matrix3d R_PA = polytope.R_WP.transpose() * X_WA.linear();
  const Eigen::Vector3d center =
      polytope.R_WP.transpose() * (X_WA.translation() - polytope.p_WP);
  const CandidateAxes axes(R_PA, center, half_extents_a, polytope);
  const double box_radius = half_extents_a.norm();
  AxisSeparation axis;
  double length;
  BoxSeparation best;
  if (memory != nullptr && memory->valid && memory->hull == polytope.hull &&
      axes.Evaluate(memory->winner, &axis, &length) &&
      WinnerHolds(*memory, R_PA, center, box_radius, axis.separation, edge_axis_bias)) {
    best.separation = axis.separation;
    best.axis_W = polytope.R_WP * axis.unit_axis_P;
    return best;
  }
  // Every axis, faces first, until the best so far exceeds stop_above.
  RunningBest faces, edges;
  const auto chosen = [&]() -> const RunningBest& {
    return edges.best > std::max(faces.best, faces.best + edge_axis_bias) ? edges : faces;
  };
  double shortest_edge_axis = std::numeric_limits<double>::infinity();
  bool certifiable = true;  // every axis taken, none parallel
  for (int index = 0; index < axes.num_axes(); ++index) {
    if (chosen().best > stop_above) {
      certifiable = false;
      break;
    }
    if (!axes.Evaluate(index, &axis, &length)) {
      certifiable = false;
      continue;
    }
    if (index < axes.num_faces()) {
      faces.Add(index, axis);
    } else {
      edges.Add(index, axis);
      shortest_edge_axis = std::min(shortest_edge_axis, length);
    }
  }
  const RunningBest& winner = chosen();
  best.separation = winner.best;
  best.axis_W = polytope.R_WP * winner.unit_axis_P;
  if (memory != nullptr) {
    const bool winner_is_face = &winner == &faces;
    *memory = {.valid = certifiable && winner.index >= 0,
               .hull = polytope.hull,
               .winner = winner.index,
               .winner_is_face = winner_is_face,
               .R_PA = R_PA,
               .center = center,
               .rival_face = winner_is_face ? faces.second : faces.best,
               .rival_edge = winner_is_face ? edges.best : edges.second,
               .lever = axes.VertexReach() + box_radius,
               .turn_per_rotation = std::max(1.0, 2.0 / shortest_edge_axis)};
  }
  return best;
}

double SymmetricSupport(const Shape& shape, const Eigen::Vector3d& n_G) {
  const double axial = std::abs(n_G.z());
  if (const auto* sphere = std::get_if<Sphere>(&shape)) return sphere->radius;
  if (const auto* box = std::get_if<Box>(&shape))
    return 0.5 * box->size.dot(n_G.cwiseAbs());
  if (const auto* capsule = std::get_if<Capsule>(&shape))
    return capsule->radius + 0.5 * capsule->length * axial;
  if (const auto* cylinder = std::get_if<Cylinder>(&shape)) {
    return cylinder->radius * std::sqrt(std::max(0.0, 1.0 - axial * axial)) +
           0.5 * cylinder->length * axial;
  }
  if (const auto* ellipsoid = std::get_if<Ellipsoid>(&shape))
    return ellipsoid->semi_axes.cwiseProduct(n_G).norm();
  return std::numeric_limits<double>::quiet_NaN();
}

double PolytopeFaceGap(const Shape& shape, const Eigen::Isometry3d& X_WG,
                       const PosedPolytope& polytope, double stop_above) {
  const ConvexHull& hull = *polytope.hull;
  const Eigen::Matrix3d R_GP = X_WG.linear().transpose() * polytope.R_WP;
  const Eigen::Vector3d center =
      polytope.R_WP.transpose() * (X_WG.translation() - polytope.p_WP);
  double gap = -std::numeric_limits<double>::infinity();
  for (size_t f = 0; f < hull.distinct_normals.size() && gap <= stop_above; ++f) {
    const Eigen::Vector3d& normal = hull.distinct_normals[f];
    const double support = SymmetricSupport(shape, R_GP * normal);
    if (std::isnan(support)) return -std::numeric_limits<double>::infinity();
    const double on_center = normal.dot(center);
    const Eigen::Vector2d& extents = hull.distinct_normal_extents[f];
    gap = std::max({gap, on_center - support - extents.y(),  // beyond P along n
                    extents.x() - on_center - support});     // along −n
  }
  return gap;
}

}  // namespace coulomb
