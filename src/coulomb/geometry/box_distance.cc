#include "coulomb/geometry/box_distance.h"

#include <cmath>
#include <limits>

#include "coulomb/geometry/box_separation.h"
#include "coulomb/geometry/segment_distance.h"

namespace coulomb {

namespace {

// The point of a box of half extents h (in its own frame) with signs
// `signs` (±1 per axis) on its axes.
Eigen::Vector3d Corner(const Eigen::Vector3d& h, const Eigen::Vector3d& signs) {
  return h.cwiseProduct(signs);
}

Eigen::Vector3d Signs(int k) {
  return {(k & 1) ? 1.0 : -1.0, (k & 2) ? 1.0 : -1.0, (k & 4) ? 1.0 : -1.0};
}

double Sign(double x) { return x >= 0.0 ? 1.0 : -1.0; }

// The best pair so far, in A's frame.
struct Best {
  Eigen::Vector3d on_a = Eigen::Vector3d::Zero(), on_b = Eigen::Vector3d::Zero();
  double squared = std::numeric_limits<double>::infinity();

  void Consider(const Eigen::Vector3d& a, const Eigen::Vector3d& b) {
    const double candidate = (b - a).squaredNorm();
    if (candidate >= squared) return;
    squared = candidate;
    on_a = a;
    on_b = b;
  }
};

}  // namespace

BoxClosestPoints ClosestPointsOfDisjointBoxes(const Eigen::Isometry3d& X_WA,
                                              const Eigen::Vector3d& half_extents_a,
                                              const Eigen::Isometry3d& X_WB,
                                              const Eigen::Vector3d& half_extents_b) {
  const Eigen::Vector3d& h_a = half_extents_a;
  const Eigen::Vector3d& h_b = half_extents_b;
  // In A's frame: B's axes are the columns of R, its centre c.
  const Eigen::Matrix3d R = X_WA.linear().transpose() * X_WB.linear();
  const Eigen::Vector3d c =
      X_WA.linear().transpose() * (X_WB.translation() - X_WA.translation());
  const Eigen::Vector3d c_in_b = -(R.transpose() * c);  // A's centre in B's frame
  // B in A's frame, A in B's.
  const BoxInFrame b_in_a{c, R * h_b.asDiagonal()};
  const BoxInFrame a_in_b{c_in_b, R.transpose() * h_a.asDiagonal()};
  Best best;
  // Each vertex and its nearest point of the other box (clamped there).
  for (int k = 0; k < 8; ++k) {
    const Eigen::Vector3d v_b = b_in_a.Vertex(k);
    best.Consider(NearestPointOfBox(v_b, h_a), v_b);
    best.Consider(Corner(h_a, Signs(k)),
                  c + R * NearestPointOfBox(a_in_b.Vertex(k), h_b));
  }
  // Edges: closest points interior to an edge of each are joined by the
  // common normal n ∥ a_i × b_j, pointing from A to B; the edge of A along
  // a_i that is extreme along n and the edge of B along b_j extreme along
  // −n are then the only candidates for that pair of directions.
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      Eigen::Vector3d n = Eigen::Vector3d::Unit(i).cross(R.col(j));
      if (n.norm() < BoxSeparation::kParallelEdges) continue;  // parallel edges
      if (n.dot(c) < 0.0) n = -n;
      const Eigen::Vector3d n_in_b = R.transpose() * n;
      Eigen::Vector3d signs_a(Sign(n(0)), Sign(n(1)), Sign(n(2)));
      Eigen::Vector3d signs_b(-Sign(n_in_b(0)), -Sign(n_in_b(1)), -Sign(n_in_b(2)));
      signs_a(i) = -1.0;  // the edge from its −a_i end
      signs_b(j) = -1.0;
      const Eigen::Vector3d start_a = Corner(h_a, signs_a);
      const Eigen::Vector3d along_a = 2.0 * h_a(i) * Eigen::Vector3d::Unit(i);
      const Eigen::Vector3d start_b = c + R * Corner(h_b, signs_b);
      const Eigen::Vector3d along_b = 2.0 * h_b(j) * R.col(j);
      const Eigen::Vector2d su =
          SegmentClosestParameters(start_a, along_a, start_b, along_b);
      best.Consider(start_a + su[0] * along_a, start_b + su[1] * along_b);
    }
  }
  return {X_WA * best.on_a, X_WA * best.on_b, std::sqrt(best.squared)};
}

}  // namespace coulomb
