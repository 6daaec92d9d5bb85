#include "coulomb/geometry/polytope_crossing.h"

#include <algorithm>
#include <cmath>

namespace coulomb {

namespace {

// A point of a triangle's plane within this of an edge's line counts as in
// the triangle [m]: across the edge the crossing differs by round-off times
// the dihedral's slope, and the walk does not step back and forth.
constexpr double kEdgeTolerance = 1e-10;
// A walk longer than this ends in the pass over every face.
constexpr int kMaxWalkSteps = 256;

// The edge k of triangle `face` (from its corner k to k + 1) that the point
// x of its plane lies beyond, by more than kEdgeTolerance; −1 if x lies in
// the triangle.
int EdgeBeyond(const ConvexHull& hull, int face, const Eigen::Vector3d& x) {
  const std::array<int, 3>& corner = hull.triangles[face];
  for (int k = 0; k < 3; ++k) {
    const Eigen::Vector3d& from = hull.vertices[corner[k]];
    const Eigen::Vector3d edge = hull.vertices[corner[(k + 1) % 3]] - from;
    // > 0 beyond the edge's line: edge × n_f points out of the triangle.
    const double beyond = edge.cross(hull.face_normals[face]).dot(x - from);
    if (beyond > 0.0 &&
        beyond * beyond > kEdgeTolerance * kEdgeTolerance * edge.squaredNorm())
      return k;
  }
  return -1;
}

}  // namespace

void PatchPolytopeCrossing::Prepare(const ConvexHull& hull, const Eigen::Vector3d& n,
                                    bool leaving, int start_face) {
  hull_ = &hull;
  n_ = n;
  side_ = leaving ? 1.0 : -1.0;
  const int num_faces = static_cast<int>(hull.face_normals.size());
  face_ = start_face >= 0 && start_face < num_faces ? start_face : 0;
  walkable_ = !hull.neighbors.empty() && hull.neighbors.size() == hull.triangles.size();
  if (walkable_ && !ClimbToFacingFace()) face_ = MostFacingFace();
}

double PatchPolytopeCrossing::At(const Eigen::Vector3d& p) {
  const double walked = Walk(p);
  if (!std::isnan(walked)) return walked;
  ++num_passes_;
  return OverAllFaces(p);
}

int PatchPolytopeCrossing::MostFacingFace() const {
  const ConvexHull& hull = *hull_;
  int most = 0;
  for (size_t f = 1; f < hull.face_normals.size(); ++f)
    if (side_ * hull.face_normals[f].dot(n_) > side_ * hull.face_normals[most].dot(n_))
      most = static_cast<int>(f);
  return most;
}

bool PatchPolytopeCrossing::ClimbToFacingFace() {
  const ConvexHull& hull = *hull_;
  for (int step = 0; step < kMaxWalkSteps; ++step) {
    double best = side_ * hull.face_normals[face_].dot(n_);
    if (best > 0.0) return true;
    int next = -1;
    for (const int neighbor : hull.neighbors[face_]) {
      const double slope = side_ * hull.face_normals[neighbor].dot(n_);
      if (slope > best) best = slope, next = neighbor;
    }
    if (next < 0) return false;
    face_ = next;
  }
  return false;
}

double PatchPolytopeCrossing::Walk(const Eigen::Vector3d& p) {
  if (!walkable_) return kLineMisses;
  const ConvexHull& hull = *hull_;
  int face = face_;
  for (int step = 0; step < kMaxWalkSteps; ++step) {
    const Eigen::Vector3d& normal = hull.face_normals[face];
    const double slope = normal.dot(n_);
    if (side_ * slope <= 0.0) return kLineMisses;  // the line misses the polytope
    const double t = (hull.face_offsets[face] - normal.dot(p)) / slope;
    const int across = EdgeBeyond(hull, face, p + t * n_);
    if (across < 0) {
      if (side_ * slope < 0.5) return kLineMisses;
      face_ = face;
      return t;
    }
    face = hull.neighbors[face][across];
  }
  return kLineMisses;
}

double PatchPolytopeCrossing::OverAllFaces(const Eigen::Vector3d& p) {
  const ConvexHull& hull = *hull_;
  double crossing = kLineMisses;
  for (size_t f = 0; f < hull.face_normals.size(); ++f) {
    const Eigen::Vector3d& normal = hull.face_normals[f];
    const double slope = normal.dot(n_);
    if (side_ * slope < 0.5) continue;
    const double t = (hull.face_offsets[f] - normal.dot(p)) / slope;
    if (std::isnan(crossing) || side_ * t < side_ * crossing) {
      crossing = t;
      face_ = static_cast<int>(f);
    }
  }
  return crossing;
}

}  // namespace coulomb
