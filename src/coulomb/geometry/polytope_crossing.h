#pragma once

#include <limits>

#include <Eigen/Dense>

#include "coulomb/geometry/shape.h"

namespace coulomb {

// The parameter t of a line's crossing when the line misses the surface
// (NaN: a double stays in a register, an std::optional<double> is returned
// through memory).
inline constexpr double kLineMisses = std::numeric_limits<double>::quiet_NaN();

// Where the lines p + t n of one contact patch (n shared by its points)
// leave, or enter, a convex polytope {x : n_f·x ≤ d_f} (a convex mesh's
// hull, in its frame G; lengths in m) through its faces within 60° of ±n:
//   t_exit(p)  = min over faces with s_f = n_f·n ≥ ½  of t_f(p),
//   t_enter(p) = max over faces with s_f ≤ −½ of t_f(p),
//   t_f(p) = (d_f − n_f·p) / s_f.
// Faces nearly along the line are left out: patch points sit on the rim of
// the contact face, and a round-off step outside a steep side face would
// move its crossing by (offset / slope).
//
// Each point's crossing is found by a walk over the hull's triangles, not a
// pass over all of them. At a triangle f with side · s_f > 0 (side = 1
// leaving, −1 entering), the line meets f's plane at x = p + t_f n. If x
// lies in the triangle, the line crosses the surface there: t_f is the exit
// (entry) of the whole polytope, and of the faces within 60° when f is one.
// Otherwise x lies beyond an edge of f, so outside the half-space of the
// triangle g across that edge (the two planes meet on the edge's line, and
// f lies inside g's half-space): if side · s_g > 0, t_g is below t_f
// leaving (above it entering), and the walk moves to g; t never grows
// (shrinks), and strictly unless g is coplanar with f. A walk that circles
// among coplanar triangles ends after 256 steps in the pass below. Each
// point's walk starts from the last point's triangle, a few triangles away
// on a patch; a patch's first from a triangle facing the line (climbed to
// from the last patch's triangle, else the most facing of all).
// Where the walk cannot finish (the line misses the polytope, the crossing
// is through a steep face, round-off at an edge, a hull without triangle
// neighbours), the crossing is the minimum (maximum) over every face.
class PatchPolytopeCrossing {
 public:
  // The lines of a patch along n; the first walk starts from `start_face`
  // (a triangle of the hull, e.g. the last patch's crossing on it).
  void Prepare(const ConvexHull& hull, const Eigen::Vector3d& n, bool leaving,
               int start_face);

  // t_exit(p) (leaving) or t_enter(p); NaN when no face is within 60° of
  // ±n. Moves the walk's start to p's triangle.
  double At(const Eigen::Vector3d& p);

  // The triangle of the last crossing (the next walk's start).
  int face() const { return face_; }
  // How many crossings, since this object was made, took the pass over
  // every face.
  long num_passes() const { return num_passes_; }

 private:
  // The crossing through the triangle the walk from face_ ends at (then
  // face_); NaN if it cannot finish (then OverAllFaces).
  double Walk(const Eigen::Vector3d& p);
  // The minimum (maximum) over every face within 60° of ±n.
  double OverAllFaces(const Eigen::Vector3d& p);
  // Climbs from face_ towards faces facing side · n, until side · s > 0;
  // false where it stops short (a face whose neighbours face less).
  bool ClimbToFacingFace();
  // The face with the largest side · s, over every face.
  int MostFacingFace() const;

  const ConvexHull* hull_ = nullptr;
  Eigen::Vector3d n_ = Eigen::Vector3d::UnitZ();
  double side_ = 1.0;
  int face_ = 0;
  bool walkable_ = false;  // the hull has its triangles' neighbours
  long num_passes_ = 0;
};

}  // namespace coulomb
