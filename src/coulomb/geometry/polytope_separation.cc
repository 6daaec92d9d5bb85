#include "coulomb/geometry/polytope_separation.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "coulomb/geometry/triangle_distance.h"

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

// P's vertices less A's centre c, in A's frame: x = R_PAᵀ (v − c), stored
// coordinate by coordinate (x_i = a_i · (v − c)), their number made even
// with a copy of the last (which changes no extreme), for two vertices per
// instruction. On A's face axis a_i the vertices project to x_i; on an edge
// axis L = a_i × e (e^A = R_PAᵀ e), L · (v − c) = (e^A × x)_i =
// e^A_j x_k − e^A_k x_j, (i, j, k) cyclic: two products per vertex.
struct BoxFrameVertices {
  static_assert(kMaxSmallHullVertices % 2 == 0);
  std::array<std::array<double, kMaxSmallHullVertices>, 3> x;
  int num_vertices = 0;  // even
};

// a_i · d for A's axis a_i = R_PA.col(i), summed in one fixed order, so
// that a single axis (a remembered winner) is the full test's bit for bit.
double AlongBoxAxis(const Eigen::Matrix3d& R_PA, int i, const Eigen::Vector3d& d) {
  return R_PA(0, i) * d.x() + R_PA(1, i) * d.y() + R_PA(2, i) * d.z();
}

// One candidate axis: the separation along it, and which way it points from
// A into P (+1: along the candidate's L, −1: against it).
struct AxisSeparation {
  double separation;
  double sign;
};

// The candidate axes of box A and polytope P, in P's frame, by index: A's
// face normals a_i (0–2), P's distinct face normals (3 to 3 + F − 1), then
// a_i × e for P's edge directions e (3 + F + 3e + i). A's and the edge axes
// are measured on P's vertices in A's frame (BoxFrameVertices), P's own on
// the extents its hull keeps.
class CandidateAxes {
 public:
  CandidateAxes(const Eigen::Matrix3d& R_PA, const Eigen::Vector3d& center,
                const Eigen::Vector3d& half_extents, const PosedPolytope& polytope)
      : R_PA_(R_PA), center_(center), h_(half_extents), hull_(*polytope.hull) {
    vertices_.num_vertices = polytope.num_vertices + polytope.num_vertices % 2;
    for (int n = 0; n < vertices_.num_vertices; ++n) {
      const Eigen::Vector3d d =
          hull_.vertices[std::min(n, polytope.num_vertices - 1)] - center_;
      for (int i = 0; i < 3; ++i) vertices_.x[i][n] = AlongBoxAxis(R_PA_, i, d);
    }
  }

  int num_faces() const { return 3 + static_cast<int>(hull_.distinct_normals.size()); }
  int num_axes() const {
    return num_faces() + 3 * static_cast<int>(hull_.edge_directions.size());
  }

  // Axis `index`: the better of ±L, P beyond A along +L by least − L·c −
  // radius, along −L by L·c − radius − greatest (per unit length of L; the
  // extents of A's and the edge axes are taken from c already). False for
  // a_i × e with a_i ∥ e (below BoxSeparation::kParallelEdges); `length` is
  // |L|. One axis alone, as the full test's batches (EvaluateBoxFaces,
  // EvaluateEdge) give it, bit for bit.
  bool Evaluate(int index, AxisSeparation* result, double* length) const {
    *length = 1.0;
    if (index < 3) {
      *result = Separation(ExtentsOf<1>({1.0}, {index}, {0.0}, {index})[0], 0.0,
                           h_[index], 1.0);
      return true;
    }
    if (index < num_faces()) {
      const Eigen::Vector3d& normal = hull_.distinct_normals[index - 3];
      *result = Separation(hull_.distinct_normal_extents[index - 3], normal.dot(center_),
                           h_.dot((R_PA_.transpose() * normal).cwiseAbs()), 1.0);
      return true;
    }
    const auto [e, i] = EdgeAxis(index);
    const int j = (i + 1) % 3, k = (i + 2) % 3;
    const Eigen::Vector3d& edge = hull_.edge_directions[e];
    const Eigen::Vector3d e_A(AlongBoxAxis(R_PA_, 0, edge), AlongBoxAxis(R_PA_, 1, edge),
                              AlongBoxAxis(R_PA_, 2, edge));
    *length = EdgeAxisLength(e_A, i);
    if (*length < BoxSeparation::kParallelEdges) return false;
    *result = Separation(ExtentsOf<1>({e_A[j]}, {k}, {e_A[k]}, {j})[0], 0.0,
                         EdgeAxisRadius(e_A, i), *length);
    return true;
  }

  // Axis `index` as Evaluate gives it, for indices taken in increasing
  // order from 0 (the full test): A's three face axes, and each edge
  // direction's three axes, are measured in one pass over the vertices.
  bool EvaluateInOrder(int index, AxisSeparation* result, double* length) {
    if (index >= 3 && index < num_faces()) return Evaluate(index, result, length);
    const int i = index < 3 ? index : EdgeAxis(index).second;
    if (i == 0) {
      if (index < 3) {
        EvaluateBoxFaces();
      } else {
        EvaluateEdge(EdgeAxis(index).first);
      }
    }
    *result = batch_[i];
    *length = batch_lengths_[i];
    return !batch_parallel_[i];
  }

  // The unit axis from A into P (in P's frame) of candidate `index`, whose
  // Evaluate gave `sign` and `length`.
  Eigen::Vector3d UnitAxis(int index, double sign, double length) const {
    Eigen::Vector3d axis_P;
    if (index < 3) {
      axis_P = R_PA_.col(index);
    } else if (index < num_faces()) {
      axis_P = hull_.distinct_normals[index - 3];
    } else {
      const auto [e, i] = EdgeAxis(index);
      axis_P = R_PA_.col(i).cross(hull_.edge_directions[e]);
    }
    return sign * axis_P / length;
  }

  // The farthest a vertex of P lies from A's centre.
  double VertexReach() const {
    double reach = 0.0;
    for (const Eigen::Vector3d& vertex : hull_.vertices)
      reach = std::max(reach, (vertex - center_).norm());
    return reach;
  }

 private:
  // An edge axis's edge direction e and A's axis i.
  std::pair<int, int> EdgeAxis(int index) const {
    return {(index - num_faces()) / 3, (index - num_faces()) % 3};
  }

  // A's three face axes (indices 0–2) into the batch, as Evaluate gives them.
  void EvaluateBoxFaces() {
    const std::array<Eigen::Vector2d, 3> extents =
        ExtentsOf<3>({1.0, 1.0, 1.0}, {0, 1, 2}, {0.0, 0.0, 0.0}, {0, 1, 2});
    for (int i = 0; i < 3; ++i) {
      batch_[i] = Separation(extents[i], 0.0, h_[i], 1.0);
      batch_lengths_[i] = 1.0;
      batch_parallel_[i] = false;
    }
  }

  // The three axes a_i × e of P's edge direction e (indices 3 + F + 3e + i)
  // into the batch, as Evaluate gives them; parallel where Evaluate would
  // return false.
  void EvaluateEdge(int e) {
    const Eigen::Vector3d& edge = hull_.edge_directions[e];
    const Eigen::Vector3d e_A(AlongBoxAxis(R_PA_, 0, edge), AlongBoxAxis(R_PA_, 1, edge),
                              AlongBoxAxis(R_PA_, 2, edge));
    // Component i is e_j x_k − e_k x_j, (i, j, k) cyclic.
    const std::array<Eigen::Vector2d, 3> extents = ExtentsOf<3>(
        {e_A[1], e_A[2], e_A[0]}, {2, 0, 1}, {e_A[2], e_A[0], e_A[1]}, {1, 2, 0});
    for (int i = 0; i < 3; ++i) {
      batch_lengths_[i] = EdgeAxisLength(e_A, i);
      batch_parallel_[i] = batch_lengths_[i] < BoxSeparation::kParallelEdges;
      batch_[i] = Separation(extents[i], 0.0, EdgeAxisRadius(e_A, i), batch_lengths_[i]);
    }
  }

  // |a_i × e| = √(e_j² + e_k²) and the box's radius along a_i × e,
  // h_j |e_k| + h_k |e_j| (its components on A's axes are 0 on a_i and ∓ e's
  // on the other two), e^A = R_PAᵀ e.
  static double EdgeAxisLength(const Eigen::Vector3d& e_A, int i) {
    const int j = (i + 1) % 3, k = (i + 2) % 3;
    return std::sqrt(e_A[j] * e_A[j] + e_A[k] * e_A[k]);
  }
  double EdgeAxisRadius(const Eigen::Vector3d& e_A, int i) const {
    const int j = (i + 1) % 3, k = (i + 2) % 3;
    return h_[j] * std::abs(e_A[k]) + h_[k] * std::abs(e_A[j]);
  }

  // The better side of an axis from P's extents along L, L·c and A's radius.
  static AxisSeparation Separation(const Eigen::Vector2d& extents, double on_center,
                                   double radius, double length) {
    const double along = extents.x() - on_center - radius;
    const double against = on_center - radius - extents.y();
    return {std::max(along, against) / length, along >= against ? 1.0 : -1.0};
  }

  // The least and greatest of u_c x_(j_c) − w_c x_(k_c) over P's vertices
  // for each of N combinations c of their coordinates, in one pass (w_c =
  // 0, j_c = k_c: of x_j alone). Each combination is computed alike for any
  // N, so that one axis alone is its batch's bit for bit.
  template <size_t N>
  std::array<Eigen::Vector2d, N> ExtentsOf(const std::array<double, N>& u,
                                           const std::array<int, N>& j,
                                           const std::array<double, N>& w,
                                           const std::array<int, N>& k) const {
    using Two = Eigen::Array2d;
    using Load = Eigen::Map<const Two>;
    std::array<Two, N> least, greatest;
    least.fill(Two::Constant(std::numeric_limits<double>::infinity()));
    greatest.fill(Two::Constant(-std::numeric_limits<double>::infinity()));
    for (int n = 0; n < vertices_.num_vertices; n += 2) {
      for (size_t c = 0; c < N; ++c) {
        const Two height =
            u[c] * Load(&vertices_.x[j[c]][n]) - w[c] * Load(&vertices_.x[k[c]][n]);
        least[c] = least[c].min(height);
        greatest[c] = greatest[c].max(height);
      }
    }
    std::array<Eigen::Vector2d, N> extents;
    for (size_t c = 0; c < N; ++c)
      extents[c] = {least[c].minCoeff(), greatest[c].maxCoeff()};
    return extents;
  }

  const Eigen::Matrix3d& R_PA_;
  const Eigen::Vector3d& center_;
  const Eigen::Vector3d& h_;
  const ConvexHull& hull_;
  BoxFrameVertices vertices_;
  // EvaluateInOrder's last three axes (A's faces, or one edge direction's).
  std::array<AxisSeparation, 3> batch_{};
  std::array<double, 3> batch_lengths_{};
  std::array<bool, 3> batch_parallel_{};
};

// The best and second best separations over a run of candidates, the
// best's index (the first of equals), the side it points to and its length
// (for CandidateAxes::UnitAxis).
struct RunningBest {
  double best = -std::numeric_limits<double>::infinity();
  double second = -std::numeric_limits<double>::infinity();
  int index = -1;
  double sign = 1.0;
  double length = 1.0;

  void Add(int candidate, const AxisSeparation& axis, double axis_length) {
    if (axis.separation > best) {
      second = best;
      best = axis.separation;
      index = candidate;
      sign = axis.sign;
      length = axis_length;
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
  CandidateAxes axes(R_PA, center, half_extents_a, polytope);
  const double box_radius = half_extents_a.norm();
  AxisSeparation axis;
  double length;
  BoxSeparation best;
  if (memory != nullptr && memory->valid && memory->hull == polytope.hull &&
      axes.Evaluate(memory->winner, &axis, &length) &&
      WinnerHolds(*memory, R_PA, center, box_radius, axis.separation, edge_axis_bias)) {
    best.separation = axis.separation;
    best.axis_W = polytope.R_WP * axes.UnitAxis(memory->winner, axis.sign, length);
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
    if (!axes.EvaluateInOrder(index, &axis, &length)) {
      certifiable = false;
      continue;
    }
    if (index < axes.num_faces()) {
      faces.Add(index, axis, length);
    } else {
      edges.Add(index, axis, length);
      shortest_edge_axis = std::min(shortest_edge_axis, length);
    }
  }
  const RunningBest& winner = chosen();
  best.separation = winner.best;
  best.axis_W =
      polytope.R_WP * (winner.index >= 0
                           ? axes.UnitAxis(winner.index, winner.sign, winner.length)
                           : Eigen::Vector3d::UnitZ());
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

HullNearestPoint NearestHullPoint(const ConvexHull& hull, const Eigen::Vector3d& c) {
  HullNearestPoint nearest;
  nearest.point = c;
  for (size_t f = 0; f < hull.triangles.size(); ++f) {
    const double height = hull.face_normals[f].dot(c) - hull.face_offsets[f];
    if (height > nearest.highest) {
      nearest.highest = height;
      nearest.highest_face = static_cast<int>(f);
    }
    if (height <= 0.0) continue;
    const std::array<int, 3>& t = hull.triangles[f];
    const Eigen::Vector3d q = ClosestPointOnTriangle(
        c, hull.vertices[t[0]], hull.vertices[t[1]], hull.vertices[t[2]]);
    const double squared = (c - q).squaredNorm();
    if (squared < nearest.squared_distance) {
      nearest.squared_distance = squared;
      nearest.point = q;
    }
  }
  return nearest;
}

double PolytopeCentreAxisGap(const Shape& shape, const Eigen::Isometry3d& X_WG,
                             const PosedPolytope& polytope) {
  constexpr double kNone = -std::numeric_limits<double>::infinity();
  const ConvexHull& hull = *polytope.hull;
  const Eigen::Vector3d center =
      polytope.R_WP.transpose() * (X_WG.translation() - polytope.p_WP);
  const HullNearestPoint nearest = NearestHullPoint(hull, center);
  const double squared = nearest.squared_distance;
  if (!(squared > 0.0) || std::isinf(squared)) return kNone;
  const Eigen::Vector3d n = (center - nearest.point) / std::sqrt(squared);
  const Eigen::Matrix3d R_GP = X_WG.linear().transpose() * polytope.R_WP;
  const double support = SymmetricSupport(shape, R_GP * n);
  if (std::isnan(support)) return kNone;
  double beyond = -std::numeric_limits<double>::infinity();
  for (const Eigen::Vector3d& vertex : hull.vertices)
    beyond = std::max(beyond, n.dot(vertex));
  return n.dot(center) - support - beyond;
}

}  // namespace coulomb
