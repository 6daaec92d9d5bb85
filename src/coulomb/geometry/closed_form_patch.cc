#include "coulomb/geometry/closed_form_patch.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <utility>

#include "coulomb/geometry/box_distance.h"
#include "coulomb/geometry/segment_distance.h"
#include "coulomb/geometry/triangle_distance.h"
#include "coulomb/math/contact_frame.h"

namespace coulomb {
namespace {

// Patch points closer than this [m] are one (Sutherland–Hodgman repeats a
// vertex that lies on a clipping line).
constexpr double kSamePoint = 1e-9;

struct OrientedBox {
  Eigen::Vector3d center;
  Eigen::Matrix3d axes;  // columns: the box's axes in W
  Eigen::Vector3d half_extents;
};

// The vertex of `box` farthest along the unit `direction`, the edges
// leaving it (one per axis, across the box) and what leaving along each
// costs along `direction`: 2 h_j |cos(axis_j, d)|.
struct ExtremeVertex {
  Eigen::Vector3d vertex;
  std::array<Eigen::Vector3d, 3> edges;
  std::array<double, 3> costs;
};

ExtremeVertex ExtremeVertexOf(const OrientedBox& box, const Eigen::Vector3d& direction) {
  ExtremeVertex extreme{box.center, {}, {}};
  for (int j = 0; j < 3; ++j) {
    const double cosine = box.axes.col(j).dot(direction);
    const Eigen::Vector3d half_edge =
        (cosine >= 0.0 ? 1.0 : -1.0) * box.half_extents(j) * box.axes.col(j);
    extreme.vertex += half_edge;
    extreme.edges[j] = -2.0 * half_edge;
    extreme.costs[j] = 2.0 * box.half_extents(j) * std::abs(cosine);
  }
  return extreme;
}

// The box's vertices whose projection on the direction of `extreme` is
// within `tolerance` of the largest, in order around their convex hull: 1
// (a vertex), 2 (an edge), 3 or 4 (a face, whole or without its far
// corner); 0 when all three axes are that flat (a box smaller than the
// tolerance). A vertex is in the set when the costs of the edges that lead
// to it from the extreme one sum to at most `tolerance`.
int SupportSet(const ExtremeVertex& extreme, double tolerance,
               std::array<Eigen::Vector3d, 4>* vertices) {
  std::array<int, 3> free_axes;
  int num_free = 0;
  for (int j = 0; j < 3; ++j) {
    if (extreme.costs[j] <= tolerance) free_axes[num_free++] = j;
  }
  if (num_free == 3) return 0;
  (*vertices)[0] = extreme.vertex;
  if (num_free == 0) return 1;
  const Eigen::Vector3d& first = extreme.edges[free_axes[0]];
  (*vertices)[1] = extreme.vertex + first;
  if (num_free == 1) return 2;
  const Eigen::Vector3d& second = extreme.edges[free_axes[1]];
  if (extreme.costs[free_axes[0]] + extreme.costs[free_axes[1]] > tolerance) {
    (*vertices)[2] = extreme.vertex + second;  // the far corner is out
    return 3;
  }
  (*vertices)[2] = extreme.vertex + first + second;
  (*vertices)[3] = extreme.vertex + second;
  return 4;
}

int SupportSet(const OrientedBox& box, const Eigen::Vector3d& direction, double tolerance,
               std::array<Eigen::Vector3d, 4>* vertices) {
  return SupportSet(ExtremeVertexOf(box, direction), tolerance, vertices);
}

// A convex polygon, segment or point in the contact plane's coordinates.
struct Polygon2 {
  std::array<Eigen::Vector2d, 16> points;
  int size = 0;
  void Add(const Eigen::Vector2d& p) { points[size++] = p; }
};

double Cross2(const Eigen::Vector2d& u, const Eigen::Vector2d& v) {
  return u.x() * v.y() - u.y() * v.x();
}

// Sutherland–Hodgman: *subject clipped to the convex polygon `clip` (3 to 8
// vertices in order, either orientation). Each clipping line adds at most
// one vertex: 8 + 8 ≤ 16.
void ClipToConvex(const Polygon2& clip, Polygon2* subject) {
  const double orientation =
      Cross2(clip.points[1] - clip.points[0], clip.points[2] - clip.points[1]) >= 0.0
          ? 1.0
          : -1.0;
  Polygon2 output;
  for (int k = 0; k < clip.size && subject->size > 0; ++k) {
    const Eigen::Vector2d& start = clip.points[k];
    const Eigen::Vector2d edge = clip.points[(k + 1) % clip.size] - start;
    // ≥ 0 inside (on the polygon's side of the line).
    const auto side = [&](const Eigen::Vector2d& p) {
      return orientation * Cross2(edge, p - start);
    };
    output.size = 0;
    for (int i = 0; i < subject->size; ++i) {
      const Eigen::Vector2d& current = subject->points[i];
      const Eigen::Vector2d& previous =
          subject->points[(i + subject->size - 1) % subject->size];
      const double side_current = side(current), side_previous = side(previous);
      if ((side_current >= 0.0) != (side_previous >= 0.0)) {
        const double t = side_previous / (side_previous - side_current);
        output.Add(previous + t * (current - previous));
      }
      if (side_current >= 0.0) output.Add(current);
    }
    *subject = output;
  }
}

// The crossing of segments p0p1 and q0q1: the midpoint of their closest
// points, if those are interior to both (not parallel); else false.
bool EdgeCrossing(const Eigen::Vector3d& p0, const Eigen::Vector3d& p1,
                  const Eigen::Vector3d& q0, const Eigen::Vector3d& q1,
                  Eigen::Vector3d* midpoint) {
  const Eigen::Vector3d d_p = p1 - p0, d_q = q1 - q0, r = p0 - q0;
  const double a = d_p.squaredNorm(), b = d_p.dot(d_q), e = d_q.squaredNorm();
  const double c = d_p.dot(r), f = d_q.dot(r);
  const double denominator = a * e - b * b;  // ‖d_p × d_q‖²
  if (denominator <=
      BoxSeparation::kParallelEdges * BoxSeparation::kParallelEdges * a * e)
    return false;
  const double s = (b * f - c * e) / denominator;
  const double u = (a * f - b * c) / denominator;
  if (s < 0.0 || s > 1.0 || u < 0.0 || u > 1.0) return false;
  *midpoint = 0.5 * (p0 + s * d_p + q0 + u * d_q);
  return true;
}

// The patch of two support sets on the contact plane with normal n, midway
// between their extreme planes (through a[0] and b[0], the sets' extreme
// vertices): a face (3 to 8 vertices, A's if both are) clips the other set. False when
// the clip is empty or leaves more points than the patch holds.
bool ClipOnContactPlane(const Eigen::Vector3d& n, const Eigen::Vector3d* a, int size_a,
                        const Eigen::Vector3d* b, int size_b, ClosedFormPatch* patch) {
  const Eigen::Matrix3d frame = ContactFrame(n);
  const Eigen::Vector3d t1 = frame.col(0), t2 = frame.col(1);
  const Eigen::Vector3d origin = a[0] + 0.5 * n.dot(b[0] - a[0]) * n;
  const auto in_plane = [&](const Eigen::Vector3d& p) {
    return Eigen::Vector2d(t1.dot(p - origin), t2.dot(p - origin));
  };
  const bool a_clips = size_a >= 3;
  Polygon2 clip, subject;
  for (int k = 0; k < (a_clips ? size_a : size_b); ++k)
    clip.Add(in_plane(a_clips ? a[k] : b[k]));
  for (int k = 0; k < (a_clips ? size_b : size_a); ++k)
    subject.Add(in_plane(a_clips ? b[k] : a[k]));
  ClipToConvex(clip, &subject);
  patch->num_points = 0;
  for (int i = 0; i < subject.size; ++i) {
    const Eigen::Vector3d p =
        origin + subject.points[i].x() * t1 + subject.points[i].y() * t2;
    bool repeated = false;
    for (int k = 0; k < patch->num_points && !repeated; ++k)
      repeated = (patch->points_W[k] - p).squaredNorm() < kSamePoint * kSamePoint;
    if (repeated) continue;
    if (patch->num_points == static_cast<int>(patch->points_W.size())) return false;
    patch->points_W[patch->num_points++] = p;
  }
  return patch->num_points > 0;
}

// The patch of A's support set along n and B's along −n (each a point, a
// segment or a convex polygon in order, its extreme vertex first): a face
// clips the other set, two edges give their crossing; false in the cases
// the general narrow phase decides.
bool PatchOfSupportSets(const Eigen::Vector3d& n, const Eigen::Vector3d* a, int size_a,
                        const Eigen::Vector3d* b, int size_b, ClosedFormPatch* patch) {
  if (size_a >= 3 || size_b >= 3)
    return ClipOnContactPlane(n, a, size_a, b, size_b, patch);
  if (size_a != 2 || size_b != 2 ||
      !EdgeCrossing(a[0], a[1], b[0], b[1], &patch->points_W[0]))
    return false;
  patch->num_points = 1;
  return true;
}

// A far point: `on_b`, a point of B at signed distance `depth` from A
// along the unit `normal` (from A into B), as the point midway between them.
void AddFarPoint(const Eigen::Vector3d& on_b, const Eigen::Vector3d& normal, double depth,
                 ClosedFormPatch* patch) {
  const int k = patch->num_far_points++;
  patch->far_points_W[k] = on_b - 0.5 * depth * normal;
  patch->far_normals_W[k] = normal;
  patch->far_depths[k] = depth;
}

// The gaps a far point may have: beyond the patch (above `least`, its
// depth plus the tolerance) and within reach of it (below `most`) [m]; or,
// measured from the patch's depth, its rise: above the tolerance and below
// the far-point reach.
struct FarPointRange {
  double least;
  double most;
  bool Contains(double gap) const { return gap > least && gap < most; }
};

// The far points of the vertices of `incident` (B when `incident_is_b`, else
// A) outside `reference` (the other box): each vertex v at its distance φ to
// that box, in `range`, along the unit u = (v − q)/φ from the box's point q
// nearest v (v clamped into the box). The normal from A into B is u when
// the reference box is A, −u when it is B. A vertex inside the other box is
// none: its depth below the nearest face would push along that face's
// normal, sideways to the patch when the face is another than the patch's
// (the Lagged model then gained energy in the clutter).
void AddVertexFarPoints(const OrientedBox& reference, const OrientedBox& incident,
                        bool incident_is_b, const FarPointRange& range,
                        ClosedFormPatch* patch) {
  const BoxInFrame seen{
      reference.axes.transpose() * (incident.center - reference.center),
      reference.axes.transpose() * incident.axes * incident.half_extents.asDiagonal()};
  for (int corner = 0; corner < 8; ++corner) {
    const Eigen::Vector3d vertex = seen.Vertex(corner);  // in the reference's frame
    const Eigen::Vector3d outside =
        vertex - NearestPointOfBox(vertex, reference.half_extents);
    const double distance = outside.norm();
    if (!(distance > 0.0 && range.Contains(distance))) continue;
    const Eigen::Vector3d v_W = reference.center + reference.axes * vertex;
    const Eigen::Vector3d u_W = reference.axes * (outside / distance);
    if (incident_is_b) {
      AddFarPoint(v_W, u_W, distance, patch);
    } else {
      AddFarPoint(v_W - distance * u_W, -u_W, distance, patch);
    }
  }
}

// Both boxes' vertices as far points, beyond `tolerance` and within
// `far_reach` of the patch's depth, while the boxes touch (the depth below
// the tolerance): a box pivoting on another swings its far vertices down
// about the touching feature. Given to every pair within reach, they
// doubled the contacts of the collapsing 320-body clutter and its time per
// step rose 17 %, for 17 mm of deepest penetration instead of 26 mm. None
// either when the band is narrower than kLeastFarBand: a vertex in it can
// come no deeper than that below the patch's deepest point (a resting
// pair turns by microns: 16 distances a pair and a step for nothing).
void AddBoxBoxFarPoints(const OrientedBox& a, const OrientedBox& b, double tolerance,
                        double far_reach, ClosedFormPatch* patch) {
  constexpr double kLeastFarBand = 1e-4;  // [m]
  if (!(far_reach > tolerance + kLeastFarBand) || !(patch->depth < tolerance)) return;
  const FarPointRange range{patch->depth + tolerance, patch->depth + far_reach};
  AddVertexFarPoints(a, b, /*incident_is_b=*/true, range, patch);
  AddVertexFarPoints(b, a, /*incident_is_b=*/false, range, patch);
}

// Boxes A and B: the patch on their best separating axis (see the header).
bool BoxBoxPatch(const OrientedBox& a, const OrientedBox& b,
                 const BoxSeparation& separation, double tolerance,
                 ClosedFormPatch* patch) {
  const Eigen::Vector3d& n = separation.axis_W;
  patch->normal_W = n;
  patch->depth = separation.separation;
  std::array<Eigen::Vector3d, 4> support_a, support_b;
  const int size_a = SupportSet(a, n, tolerance, &support_a);
  const int size_b = SupportSet(b, -n, tolerance, &support_b);
  if (size_a == 0 || size_b == 0) return false;
  return PatchOfSupportSets(n, support_a.data(), size_a, support_b.data(), size_b, patch);
}

double Cross2(const Eigen::Vector2d& origin, const Eigen::Vector2d& u,
              const Eigen::Vector2d& v) {
  return Cross2(u - origin, v - origin);
}

// The vertices of the posed polytope within `tolerance` [m] of its least
// height along n, in order around their convex hull in the plane normal to
// n (repeated and collinear ones dropped: a vertex, an edge or a face), the
// lowest first; 0 when more than 8 lie there (a fine hull's face, left to
// the general narrow phase). The hull in the plane: Andrew's monotone chain.
int PolytopeSupportSet(const PosedPolytope& polytope, const Eigen::Vector3d& n,
                       double tolerance, std::array<Eigen::Vector3d, 8>* support) {
  double least = std::numeric_limits<double>::infinity();
  for (int k = 0; k < polytope.num_vertices; ++k)
    least = std::min(least, n.dot(polytope.vertices_W[k]));
  const Eigen::Matrix3d frame = ContactFrame(n);
  std::array<int, 8> near;  // vertex indices, then sorted by their plane coordinates
  std::array<Eigen::Vector2d, kMaxSmallHullVertices> in_plane;
  int num_near = 0;
  for (int k = 0; k < polytope.num_vertices; ++k) {
    const Eigen::Vector3d& v = polytope.vertices_W[k];
    if (n.dot(v) > least + tolerance) continue;
    in_plane[k] = Eigen::Vector2d(frame.col(0).dot(v), frame.col(1).dot(v));
    bool repeated = false;
    for (int i = 0; i < num_near && !repeated; ++i)
      repeated =
          (in_plane[near[i]] - in_plane[k]).squaredNorm() < kSamePoint * kSamePoint;
    if (repeated) continue;
    if (num_near == static_cast<int>(near.size())) return 0;
    near[num_near++] = k;
  }
  if (num_near == 0) return 0;  // a NaN normal
  const auto before = [&](int i, int j) {
    return in_plane[i].x() < in_plane[j].x() ||
           (in_plane[i].x() == in_plane[j].x() && in_plane[i].y() < in_plane[j].y());
  };
  for (int i = 1; i < num_near; ++i) {  // insertion sort: at most 8
    for (int j = i; j > 0 && before(near[j], near[j - 1]); --j)
      std::swap(near[j], near[j - 1]);
  }
  // Each turn of the chain strictly to the left (a sine above 1e-12).
  std::array<int, 17> chain{};
  int size = 0;
  const auto turns_left = [&](int o, int u, int v) {
    const Eigen::Vector2d &p_o = in_plane[o], &p_u = in_plane[u], &p_v = in_plane[v];
    return Cross2(p_o, p_u, p_v) > 1e-12 * (p_u - p_o).norm() * (p_v - p_o).norm();
  };
  for (int i = 0; i < num_near; ++i) {  // the lower chain, left to right
    while (size >= 2 && !turns_left(chain[size - 2], chain[size - 1], near[i])) --size;
    chain[size++] = near[i];
  }
  for (int i = num_near - 2, floor = size + 1; i >= 0; --i) {  // the upper, back
    while (size >= floor && !turns_left(chain[size - 2], chain[size - 1], near[i]))
      --size;
    chain[size++] = near[i];
  }
  size = std::max(size - 1, 1);  // the leftmost vertex closed the chain
  int lowest = 0;
  for (int i = 1; i < size; ++i) {
    if (n.dot(polytope.vertices_W[chain[i]]) < n.dot(polytope.vertices_W[chain[lowest]]))
      lowest = i;
  }
  for (int i = 0; i < size; ++i)
    (*support)[i] = polytope.vertices_W[chain[(lowest + i) % size]];
  return size;
}

OrientedBox MakeOrientedBox(const Box& box, const Eigen::Isometry3d& X_WG) {
  return {X_WG.translation(), X_WG.linear(), 0.5 * box.size};
}

// A patch of one point, midway between on_a (on A's surface) and the point
// `depth` further along the normal (on B's).
void SinglePoint(const Eigen::Vector3d& on_a, const Eigen::Vector3d& normal, double depth,
                 ClosedFormPatch* patch) {
  patch->normal_W = normal;
  patch->depth = depth;
  patch->num_points = 1;
  patch->points_W[0] = on_a + 0.5 * depth * normal;
}

// The closest points of a segment and a convex polytope that it does not
// meet, and their distance: the least over the triangles whose plane has an
// end of the segment on its outer side (the closest point of P lies on
// such a face) of the segment–triangle distance, which, the two not
// crossing, is between an end and the triangle or the segment and an edge.
struct SegmentPolytopeClosest {
  Eigen::Vector3d on_segment, on_polytope;
  double distance = std::numeric_limits<double>::infinity();
};
SegmentPolytopeClosest ClosestPointsOfSegmentAndPolytope(
    const std::array<Eigen::Vector3d, 2>& ends, const PosedPolytope& polytope) {
  const ConvexHull& hull = *polytope.hull;
  SegmentPolytopeClosest closest;
  const auto consider = [&](const Eigen::Vector3d& on_segment,
                            const Eigen::Vector3d& on_polytope) {
    const double distance = (on_segment - on_polytope).norm();
    if (distance < closest.distance) closest = {on_segment, on_polytope, distance};
  };
  const Eigen::Vector3d along = ends[1] - ends[0];
  for (size_t f = 0; f < hull.triangles.size(); ++f) {
    const std::array<int, 3>& t = hull.triangles[f];
    const std::array<Eigen::Vector3d, 3> corners = {
        polytope.vertices_W[t[0]], polytope.vertices_W[t[1]], polytope.vertices_W[t[2]]};
    const Eigen::Vector3d normal = polytope.R_WP * hull.face_normals[f];
    if (std::max(normal.dot(ends[0] - corners[0]), normal.dot(ends[1] - corners[0])) <=
        0.0)
      continue;
    for (const Eigen::Vector3d& end : ends)
      consider(end, ClosestPointOnTriangle(end, corners[0], corners[1], corners[2]));
    for (int k = 0; k < 3; ++k) {
      const Eigen::Vector3d edge = corners[(k + 1) % 3] - corners[k];
      const Eigen::Vector2d su =
          SegmentClosestParameters(ends[0], along, corners[k], edge);
      consider(ends[0] + su(0) * along, corners[k] + su(1) * edge);
    }
  }
  return closest;
}

// Round-off in a point's height over a face plane of a polytope [m].
constexpr double kPlaneRoundoff = 1e-12;

// Whether p (in the hull's frame) lies below every face plane by at least
// −allowed: n_f·p − d_f ≤ allowed for every face f (allowed = round-off:
// p lies in the hull).
bool WithinFacePlanes(const ConvexHull& hull, const Eigen::Vector3d& p, double allowed) {
  for (size_t f = 0; f < hull.triangles.size(); ++f) {
    if (hull.face_normals[f].dot(p) - hull.face_offsets[f] > allowed) return false;
  }
  return true;
}

// Whether a point (in the world frame) lies in the posed polytope, to
// round-off.
bool InPolytope(const PosedPolytope& polytope, const Eigen::Vector3d& p_W) {
  return WithinFacePlanes(
      *polytope.hull, polytope.R_WP.transpose() * (p_W - polytope.p_WP), kPlaneRoundoff);
}

// The end of a capsule's core segment nearest P along the separating axis n
// (from the capsule into P) whose foot on P's supporting plane, end + s n,
// lies in P: then that end and its foot are closest points, s the
// distance (s bounds it from below along any axis, and the foot attains
// it). Null if no end's foot does (the closest points of an edge and the
// segment's interior, or of a vertex and an end off the axis).
const Eigen::Vector3d* EndOverPolytope(const std::array<Eigen::Vector3d, 2>& ends,
                                       const PosedPolytope& polytope,
                                       const BoxSeparation& separation) {
  const Eigen::Vector3d& n = separation.axis_W;
  const double reach = std::max(n.dot(ends[0]), n.dot(ends[1]));
  for (const Eigen::Vector3d& end : ends) {
    if (n.dot(end) == reach && InPolytope(polytope, end + separation.separation * n))
      return &end;
  }
  return nullptr;
}

// The capsule's support set along n (its end caps' extreme points within
// `tolerance` of the extreme, the extreme first) and P's along −n: their
// patch, as for two boxes.
bool CapsuleSupportPatch(const std::array<Eigen::Vector3d, 2>& ends, double radius,
                         const PosedPolytope& polytope, const Eigen::Vector3d& n,
                         double tolerance, ClosedFormPatch* patch) {
  const double rise = n.dot(ends[0] - ends[1]);  // of end 0 over end 1 along n
  std::array<Eigen::Vector3d, 2> support_a;
  int size_a = 0;
  for (int k = 0; k < 2; ++k) {
    if ((k == 0 ? -rise : rise) <= tolerance) support_a[size_a++] = ends[k] + radius * n;
  }
  if (size_a == 2 && rise < 0.0) std::swap(support_a[0], support_a[1]);  // extreme first
  std::array<Eigen::Vector3d, 8> support_b;
  const int size_b = PolytopeSupportSet(polytope, n, tolerance, &support_b);
  return size_b > 0 &&
         PatchOfSupportSets(n, support_a.data(), size_a, support_b.data(), size_b, patch);
}

void SphereSpherePatch(const Eigen::Vector3d& center_a, double radius_a,
                       const Eigen::Vector3d& center_b, double radius_b,
                       ClosedFormPatch* patch) {
  const Eigen::Vector3d d = center_b - center_a;
  const double distance = d.norm();
  // Concentric spheres: any direction separates them as well.
  const Eigen::Vector3d n =
      distance > 0.0 ? Eigen::Vector3d(d / distance) : Eigen::Vector3d::UnitZ();
  SinglePoint(center_a + radius_a * n, n, distance - radius_a - radius_b, patch);
}

// The normal from the box into the sphere: from the box's closest point to
// the center, or, with the center inside, out of the box's nearest face.
void BoxSpherePatch(const OrientedBox& box, const Eigen::Vector3d& center, double radius,
                    ClosedFormPatch* patch) {
  const Eigen::Vector3d& h = box.half_extents;
  const Eigen::Vector3d center_B = box.axes.transpose() * (center - box.center);
  Eigen::Vector3d closest_B = center_B.cwiseMax(-h).cwiseMin(h);
  Eigen::Vector3d n_B;
  double distance;  // of the center from the box's surface, along n
  if (closest_B != center_B) {
    n_B = center_B - closest_B;
    distance = n_B.norm();
    n_B /= distance;
  } else {
    Eigen::Index axis;
    distance = -(h - center_B.cwiseAbs()).minCoeff(&axis);
    const double sign = center_B(axis) >= 0.0 ? 1.0 : -1.0;
    n_B = sign * Eigen::Vector3d::Unit(axis);
    closest_B(axis) = sign * h(axis);
  }
  SinglePoint(box.center + box.axes * closest_B, box.axes * n_B, distance - radius,
              patch);
}

// The normal from the convex polytope P (a hull of at most
// kMaxSmallHullFaces triangles, in its frame) into the sphere: with the
// center c outside, from P's point nearest c (NearestHullPoint); with c
// inside (or on the surface), out of the face plane nearest c: c's signed
// distance to P is then the largest n_f·c − d_f.
void PolytopeSpherePatch(const ConvexHull& hull, const Eigen::Isometry3d& X_WP,
                         const Eigen::Vector3d& center, double radius,
                         ClosedFormPatch* patch) {
  const Eigen::Vector3d c = X_WP.inverse() * center;
  const HullNearestPoint nearest = NearestHullPoint(hull, c);
  const double distance = std::sqrt(nearest.squared_distance);
  if (nearest.highest > 0.0 && distance > 0.0) {
    SinglePoint(X_WP * nearest.point, X_WP.linear() * ((c - nearest.point) / distance),
                distance - radius, patch);
    return;
  }
  const Eigen::Vector3d& n = hull.face_normals[nearest.highest_face];
  SinglePoint(X_WP * Eigen::Vector3d(c - nearest.highest * n), X_WP.linear() * n,
              nearest.highest - radius, patch);
}

// The normal from the convex polytope P (a hull of at most
// kMaxSmallHullFaces triangles, in its frame) into the ellipsoid E, when
// one of P's faces settles the pair; false otherwise (E's extreme point over
// an edge or a vertex of P: GJK/EPA then). E's separation from the plane of
// face f (n_f·x ≤ d_f inside) is s_f = n_f·c − ‖A u_f‖ − d_f (c E's centre
// and u_f = R_PEᵀ n_f in P's frame, A E's semi-axes), attained at E's
// extreme point x_f = c − R_PE A² u_f / ‖A u_f‖. With f the face of the
// largest s_f:
// * apart (s_f > 0): if x_f's foot on the plane, x_f − s_f n_f, lies within
//   every other face plane (on the face), the distance is s_f, exact: P
//   lies below the plane and the foot is a point of P;
// * overlapping (s_f ≤ 0): if x_f lies at least −s_f inside every face
//   plane, the penetration depth is −s_f, exact: a translation that
//   separates the two carries x_f, a point of E inside P, out of P, which
//   takes −s_f at least (x_f's distance to P's boundary), and −s_f n_f does.
bool PolytopeEllipsoidPatch(const ConvexHull& hull, const Eigen::Isometry3d& X_WP,
                            const Ellipsoid& ellipsoid, const Eigen::Isometry3d& X_WE,
                            ClosedFormPatch* patch) {
  const Eigen::Isometry3d X_PE = X_WP.inverse() * X_WE;
  const Eigen::Vector3d c = X_PE.translation();
  double largest = -std::numeric_limits<double>::infinity();
  int face = 0;
  Eigen::Vector3d Au_face = Eigen::Vector3d::Zero();
  for (size_t f = 0; f < hull.triangles.size(); ++f) {
    const Eigen::Vector3d& n = hull.face_normals[f];
    const Eigen::Vector3d Au =
        ellipsoid.semi_axes.cwiseProduct(X_PE.linear().transpose() * n);
    const double separation = n.dot(c) - Au.norm() - hull.face_offsets[f];
    if (separation > largest) {
      largest = separation;
      face = static_cast<int>(f);
      Au_face = Au;
    }
  }
  const Eigen::Vector3d& n = hull.face_normals[face];
  const Eigen::Vector3d extreme =
      c - X_PE.linear() * ellipsoid.semi_axes.cwiseProduct(Au_face) / Au_face.norm();
  const Eigen::Vector3d foot = extreme - largest * n;
  // Apart: the foot within every face plane; overlapping: the extreme point
  // −s_f within them (round-off allowed: a tie of two faces is either's).
  if (!WithinFacePlanes(hull, largest > 0.0 ? foot : extreme,
                        std::min(largest, 0.0) + kPlaneRoundoff))
    return false;
  SinglePoint(X_WP * foot, X_WP.linear() * n, largest, patch);
  return true;
}

// The normal from the half-space (z ≤ 0 of H) into the sphere: z_H.
void HalfSpaceSpherePatch(const Eigen::Isometry3d& X_WH, const Eigen::Vector3d& center,
                          double radius, ClosedFormPatch* patch) {
  const Eigen::Vector3d n = X_WH.linear().col(2);
  const double height = n.dot(center - X_WH.translation());
  SinglePoint(center - height * n, n, height - radius, patch);
}

// The normal from the half-space into the ellipsoid E: z_H. E's point
// furthest along −n is R_WE x with x = −A² u / ‖A u‖ (u = R_WEᵀ n, A the
// semi-axes), at ‖A u‖ below its centre along n.
void HalfSpaceEllipsoidPatch(const Eigen::Isometry3d& X_WH, const Ellipsoid& ellipsoid,
                             const Eigen::Isometry3d& X_WE, ClosedFormPatch* patch) {
  const Eigen::Vector3d n = X_WH.linear().col(2);
  const Eigen::Vector3d Au =
      ellipsoid.semi_axes.cwiseProduct(X_WE.linear().transpose() * n);
  const double extent = Au.norm();
  const Eigen::Vector3d lowest =
      X_WE * Eigen::Vector3d(-ellipsoid.semi_axes.cwiseProduct(Au) / extent);
  const double height = n.dot(lowest - X_WH.translation());
  SinglePoint(lowest - height * n, n, height, patch);
}

// The normal from the half-space into the box: z_H; the points, the box's
// support set along −n, moved along n onto the contact plane; its other
// vertices (those whose edges from the lowest cost more than `tolerance`
// in height, and less than `far_reach`), the far points.
bool HalfSpaceBoxPatch(const Eigen::Isometry3d& X_WH, const OrientedBox& box,
                       double tolerance, double far_reach, ClosedFormPatch* patch) {
  const Eigen::Vector3d n = X_WH.linear().col(2);
  const ExtremeVertex lowest = ExtremeVertexOf(box, -n);
  std::array<Eigen::Vector3d, 4> support;
  const int size = SupportSet(lowest, tolerance, &support);
  if (size == 0) return false;
  patch->normal_W = n;
  patch->depth = n.dot(support[0] - X_WH.translation());
  const double plane_height = n.dot(X_WH.translation()) + 0.5 * patch->depth;
  patch->num_points = size;
  for (int k = 0; k < size; ++k)
    patch->points_W[k] = support[k] + (plane_height - n.dot(support[k])) * n;
  // Each other vertex by the edges taken from the lowest (one bit per axis),
  // its cost the vertex's rise above the lowest.
  const FarPointRange rises{tolerance, far_reach};
  for (int axes = 1; axes < 8; ++axes) {
    double cost = 0.0;
    for (int j = 0; j < 3; ++j) cost += (axes >> j & 1) * lowest.costs[j];
    if (!rises.Contains(cost)) continue;
    Eigen::Vector3d vertex = lowest.vertex;
    for (int j = 0; j < 3; ++j) {
      if (axes >> j & 1) vertex += lowest.edges[j];
    }
    AddFarPoint(vertex, n, n.dot(vertex - X_WH.translation()), patch);
  }
  return true;
}

// The lowest point, along the unit n, of a circle of `radius` about the
// unit `axis` (a cylinder's or capsule's rim), from its centre: −r (n −
// (n·a) a)/s, in `offset`, r s below the centre, in `drop` (s = ‖n − (n·a)
// a‖, the sine of the axis's angle to n). For s = 0 the whole rim is
// lowest: the offset is then zero, the centre.
struct RimLowest {
  Eigen::Vector3d offset;
  double drop;
};

RimLowest RimLowestPoint(const Eigen::Vector3d& n, const Eigen::Vector3d& axis,
                         double radius) {
  const Eigen::Vector3d across = n - n.dot(axis) * axis;
  const double sine = across.norm();
  if (sine == 0.0) return {Eigen::Vector3d::Zero(), 0.0};
  return {-(radius / sine) * across, radius * sine};
}

// The normal from the half-space into the capsule C: z_H. The points: the
// capsule's support set along −n, the lowest point of each end's cap whose
// centre lies within `tolerance` of the lowest centre along n (both ends: a
// capsule lying flat touches along its length, as a box's face does),
// moved along n onto the contact plane. The higher end beyond `tolerance`
// gives the far point: not its cap's lowest point, which lies inside the
// capsule's cylinder when the capsule is tilted, but the lowest point of
// the cylinder's rim there, c − r (n − (n·a) a)/s at r s below the centre
// (s the sine of the axis's angle to n; the cap's lowest point when lying),
// while less than `far_reach` above the deepest point.
void HalfSpaceCapsulePatch(const Eigen::Isometry3d& X_WH, const Capsule& capsule,
                           const Eigen::Isometry3d& X_WC, double tolerance,
                           double far_reach, ClosedFormPatch* patch) {
  const Eigen::Vector3d n = X_WH.linear().col(2);
  const Eigen::Vector3d half_axis = 0.5 * capsule.length * X_WC.linear().col(2);
  const std::array<Eigen::Vector3d, 2> ends = {X_WC.translation() + half_axis,
                                               X_WC.translation() - half_axis};
  const std::array<double, 2> heights = {n.dot(ends[0] - X_WH.translation()),
                                         n.dot(ends[1] - X_WH.translation())};
  const double lowest = std::min(heights[0], heights[1]);
  patch->normal_W = n;
  patch->depth = lowest - capsule.radius;
  patch->num_points = 0;
  // A cap's lowest point is radius below its centre; the contact plane lies
  // depth/2 above the half-space's surface.
  for (int k = 0; k < 2; ++k) {
    if (heights[k] - lowest > tolerance) continue;
    patch->points_W[patch->num_points++] =
        ends[k] - (heights[k] - 0.5 * patch->depth) * n;
  }
  // The far point lies r (1 − s) ≥ 0 more above the deepest point than its
  // end does: an end beyond `far_reach` has none within it.
  const int higher = heights[0] > heights[1] ? 0 : 1;
  if (!FarPointRange{tolerance, far_reach}.Contains(heights[higher] - lowest)) return;
  const RimLowest rim = RimLowestPoint(n, X_WC.linear().col(2), capsule.radius);
  const double far_depth = heights[higher] - rim.drop;
  if (rim.drop > 0.0 && far_depth < patch->depth + far_reach)
    AddFarPoint(ends[higher] + rim.offset, n, far_depth, patch);
}

// The normal from the half-space into the cylinder C: z_H. The points: the
// cylinder's support set along −n, moved along n onto the contact plane.
// With a the axis and s = ‖n − (n·a) a‖ the sine of its angle to n, a cap's
// rim spans 2 r s along n. While r s ≤ `tolerance` the cylinder stands on
// its lower cap and the set is the rim, sampled at kRimSamples angles fixed
// in C's frame: its points then lie within twice the tolerance of the
// lowest, the band a patch's points may span (RefineAlongNormal), so that a
// can tipping onto its cap meets the ground with its whole rim (at a span
// of one tolerance the far rim struck 0.7 mm deep; Coal samples the rim up
// to r s (1 + s) ≤ tolerance). Otherwise the set is each cap's lowest rim
// point, c_k − r (n − (n·a) a)/s, within `tolerance` of the lowest (two for
// a cylinder lying on its side, as a capsule's caps); the upper cap's
// beyond that and, while the cylinder would fall back onto its lower cap,
// that rim's samples beyond `tolerance` (the far side of the rim, which it
// brings down) are far points, those less than `far_reach` above the
// lowest. depth is the lowest rim point's height.
void HalfSpaceCylinderPatch(const Eigen::Isometry3d& X_WH, const Cylinder& cylinder,
                            const Eigen::Isometry3d& X_WC, double tolerance,
                            double far_reach, ClosedFormPatch* patch) {
  const Eigen::Vector3d n = X_WH.linear().col(2);
  const Eigen::Vector3d axis = X_WC.linear().col(2);
  const RimLowest rim = RimLowestPoint(n, axis, cylinder.radius);
  const Eigen::Vector3d half_axis = 0.5 * cylinder.length * axis;
  const std::array<Eigen::Vector3d, 2> caps = {X_WC.translation() + half_axis,
                                               X_WC.translation() - half_axis};
  const std::array<double, 2> heights = {n.dot(caps[0] - X_WH.translation()),
                                         n.dot(caps[1] - X_WH.translation())};
  const int lower = heights[0] <= heights[1] ? 0 : 1;
  patch->normal_W = n;
  patch->depth = heights[lower] - rim.drop;
  const double plane_height = n.dot(X_WH.translation()) + 0.5 * patch->depth;
  const auto on_plane = [&](const Eigen::Vector3d& p) -> Eigen::Vector3d {
    return p + (plane_height - n.dot(p)) * n;
  };
  patch->num_points = 0;
  const auto rim_sample = [&](int k) -> Eigen::Vector3d {
    const double angle = 2.0 * M_PI * k / ClosedFormPatch::kRimSamples;
    return caps[lower] + cylinder.radius * (std::cos(angle) * X_WC.linear().col(0) +
                                            std::sin(angle) * X_WC.linear().col(1));
  };
  if (rim.drop <= tolerance) {
    for (int k = 0; k < ClosedFormPatch::kRimSamples; ++k)
      patch->points_W[patch->num_points++] = on_plane(rim_sample(k));
    return;
  }
  // Its centre of mass over the lower cap (tilted by less than atan(2r/L),
  // L s < 2 r |n·a|), the cylinder falls back onto the cap, whose rim comes
  // down; otherwise it falls onto its side or rolls on it.
  const bool over_its_cap =
      cylinder.length * rim.drop <
      2.0 * cylinder.radius * cylinder.radius * std::abs(n.dot(axis));
  const FarPointRange rises{tolerance, far_reach};  // above the lowest rim point
  for (int k = 0; k < ClosedFormPatch::kRimSamples && over_its_cap; ++k) {
    const Eigen::Vector3d sample = rim_sample(k);
    const double height = n.dot(sample - X_WH.translation());
    if (rises.Contains(height - patch->depth)) AddFarPoint(sample, n, height, patch);
  }
  patch->points_W[patch->num_points++] = on_plane(caps[lower] + rim.offset);
  const int upper = 1 - lower;
  const double rise = heights[upper] - heights[lower];
  if (rise <= tolerance) {
    patch->points_W[patch->num_points++] = on_plane(caps[upper] + rim.offset);
  } else if (rises.Contains(rise)) {
    AddFarPoint(caps[upper] + rim.offset, n, heights[upper] - rim.drop, patch);
  }
}

// The pairs of two different kinds, the normal from `first` into `second`.
bool OneWayPatch(const Shape& first, const Eigen::Isometry3d& X_WF, const Shape& second,
                 const Eigen::Isometry3d& X_WS, double tolerance, double far_reach,
                 ClosedFormPatch* patch) {
  const auto* sphere = std::get_if<Sphere>(&second);
  const auto* ellipsoid = std::get_if<Ellipsoid>(&second);
  if (const auto* box = std::get_if<Box>(&first); box && sphere) {
    BoxSpherePatch(MakeOrientedBox(*box, X_WF), X_WS.translation(), sphere->radius,
                   patch);
    return true;
  }
  if (const auto* mesh = std::get_if<ConvexMesh>(&first);
      mesh && sphere && mesh->hull->triangles.size() <= kMaxSmallHullFaces) {
    PolytopeSpherePatch(*mesh->hull, X_WF, X_WS.translation(), sphere->radius, patch);
    return true;
  }
  if (const auto* mesh = std::get_if<ConvexMesh>(&first);
      mesh && ellipsoid && mesh->hull->triangles.size() <= kMaxSmallHullFaces) {
    return PolytopeEllipsoidPatch(*mesh->hull, X_WF, *ellipsoid, X_WS, patch);
  }
  if (const auto* polytope = std::get_if<ConvexMesh>(&second);
      polytope && std::holds_alternative<Box>(first)) {
    PosedPolytope posed;
    if (!PosePolytope(*polytope->hull, X_WS, &posed)) return false;
    const Box& box = std::get<Box>(first);
    return CalcBoxPolytopePatch(box, X_WF, posed,
                                BoxPolytopeSeparatingAxis(X_WF, 0.5 * box.size, posed,
                                                          ClosedFormPatch::kEdgeAxisBias),
                                tolerance, patch);
  }
  if (const auto* polytope = std::get_if<ConvexMesh>(&second);
      polytope && std::holds_alternative<Capsule>(first)) {
    PosedPolytope posed;
    if (!PosePolytope(*polytope->hull, X_WS, &posed)) return false;
    const Capsule& capsule = std::get<Capsule>(first);
    return CalcCapsulePolytopePatch(
        capsule, X_WF, posed,
        BoxPolytopeSeparatingAxis(X_WF, CapsuleCoreHalfExtents(capsule), posed,
                                  ClosedFormPatch::kEdgeAxisBias),
        tolerance, patch);
  }
  if (!std::holds_alternative<HalfSpace>(first)) return false;
  if (sphere) {
    HalfSpaceSpherePatch(X_WF, X_WS.translation(), sphere->radius, patch);
    return true;
  }
  if (ellipsoid) {
    HalfSpaceEllipsoidPatch(X_WF, *ellipsoid, X_WS, patch);
    return true;
  }
  if (const auto* capsule = std::get_if<Capsule>(&second)) {
    HalfSpaceCapsulePatch(X_WF, *capsule, X_WS, tolerance, far_reach, patch);
    return true;
  }
  if (const auto* cylinder = std::get_if<Cylinder>(&second)) {
    HalfSpaceCylinderPatch(X_WF, *cylinder, X_WS, tolerance, far_reach, patch);
    return true;
  }
  const auto* box = std::get_if<Box>(&second);
  return box && HalfSpaceBoxPatch(X_WF, MakeOrientedBox(*box, X_WS), tolerance, far_reach,
                                  patch);
}

}  // namespace

bool CalcBoxBoxPatch(const Box& box_a, const Eigen::Isometry3d& X_WA, const Box& box_b,
                     const Eigen::Isometry3d& X_WB, const BoxSeparation& separation,
                     double tolerance, ClosedFormPatch* patch, double far_reach) {
  patch->num_far_points = 0;
  const OrientedBox a = MakeOrientedBox(box_a, X_WA), b = MakeOrientedBox(box_b, X_WB);
  if (!BoxBoxPatch(a, b, separation, tolerance, patch)) {
    if (!(separation.separation > 0.0)) return false;  // overlapping: Coal's EPA
    // Disjoint, the closest features off every separating axis: one point.
    const BoxClosestPoints closest =
        ClosestPointsOfDisjointBoxes(X_WA, 0.5 * box_a.size, X_WB, 0.5 * box_b.size);
    if (!(closest.distance > 0.0)) return false;  // touching to round-off: no normal
    SinglePoint(closest.on_a, (closest.on_b - closest.on_a) / closest.distance,
                closest.distance, patch);
  }
  AddBoxBoxFarPoints(a, b, tolerance, far_reach, patch);
  return true;
}

// Box A and a small convex polytope P: the patch on their best separating
// axis, from the support sets as for two boxes.
bool CalcBoxPolytopePatch(const Box& box, const Eigen::Isometry3d& X_WA,
                          const PosedPolytope& polytope, const BoxSeparation& separation,
                          double tolerance, ClosedFormPatch* patch) {
  patch->num_far_points = 0;
  const OrientedBox oriented = MakeOrientedBox(box, X_WA);
  const Eigen::Vector3d& n = separation.axis_W;
  patch->normal_W = n;
  patch->depth = separation.separation;
  std::array<Eigen::Vector3d, 4> support_a;
  std::array<Eigen::Vector3d, 8> support_b;
  const int size_a = SupportSet(oriented, n, tolerance, &support_a);
  const int size_b = PolytopeSupportSet(polytope, n, tolerance, &support_b);
  if (size_a == 0 || size_b == 0) return false;
  return PatchOfSupportSets(n, support_a.data(), size_a, support_b.data(), size_b, patch);
}

// Capsule C and a small convex polytope P, the normal from C into P. Where
// C's core segment clears P (its separating axes find a positive
// separation), the normal joins the closest points, depth = their distance
// − radius, and the patch is the support sets' (a capsule lying along a
// face: two points), else one point between the closest points. Where the
// segment meets P, the best separating axis (exact: the faces of
// P ⊕ (−segment) are P's faces and the parallelograms of the segment and
// P's edges) and its support sets; false where they give no patch.
bool CalcCapsulePolytopePatch(const Capsule& capsule, const Eigen::Isometry3d& X_WC,
                              const PosedPolytope& polytope,
                              const BoxSeparation& separation, double tolerance,
                              ClosedFormPatch* patch) {
  patch->num_far_points = 0;
  const Eigen::Vector3d half_axis = 0.5 * capsule.length * X_WC.linear().col(2);
  const std::array<Eigen::Vector3d, 2> ends = {X_WC.translation() + half_axis,
                                               X_WC.translation() - half_axis};
  if (!(separation.separation > 0.0)) {
    patch->normal_W = separation.axis_W;
    patch->depth = separation.separation - capsule.radius;
    return CapsuleSupportPatch(ends, capsule.radius, polytope, separation.axis_W,
                               tolerance, patch);
  }
  Eigen::Vector3d n = separation.axis_W, on_segment;
  double distance = separation.separation;
  if (const Eigen::Vector3d* end = EndOverPolytope(ends, polytope, separation)) {
    on_segment = *end;  // the separating axis is the closest points' line
  } else {
    const SegmentPolytopeClosest closest =
        ClosestPointsOfSegmentAndPolytope(ends, polytope);
    if (!(closest.distance > 0.0)) return false;  // touching to round-off: no normal
    n = (closest.on_polytope - closest.on_segment) / closest.distance;
    on_segment = closest.on_segment;
    distance = closest.distance;
  }
  patch->normal_W = n;
  patch->depth = distance - capsule.radius;
  if (!CapsuleSupportPatch(ends, capsule.radius, polytope, n, tolerance, patch))
    SinglePoint(on_segment + capsule.radius * n, n, patch->depth, patch);
  return true;
}

bool CalcClosedFormPatch(const Shape& shape_a, const Eigen::Isometry3d& X_WA,
                         const Shape& shape_b, const Eigen::Isometry3d& X_WB,
                         double tolerance, ClosedFormPatch* patch, double far_reach) {
  patch->num_far_points = 0;
  const auto* box_a = std::get_if<Box>(&shape_a);
  const auto* box_b = std::get_if<Box>(&shape_b);
  if (box_a && box_b) {
    return CalcBoxBoxPatch(
        *box_a, X_WA, *box_b, X_WB,
        BoxSeparatingAxis(X_WA, 0.5 * box_a->size, X_WB, 0.5 * box_b->size,
                          ClosedFormPatch::kEdgeAxisBias),
        tolerance, patch, far_reach);
  }
  const auto* sphere_a = std::get_if<Sphere>(&shape_a);
  const auto* sphere_b = std::get_if<Sphere>(&shape_b);
  if (sphere_a && sphere_b) {
    SphereSpherePatch(X_WA.translation(), sphere_a->radius, X_WB.translation(),
                      sphere_b->radius, patch);
    return true;
  }
  if (OneWayPatch(shape_a, X_WA, shape_b, X_WB, tolerance, far_reach, patch)) return true;
  if (!OneWayPatch(shape_b, X_WB, shape_a, X_WA, tolerance, far_reach, patch))
    return false;
  patch->normal_W = -patch->normal_W;  // from A into B
  return true;
}

}  // namespace coulomb
