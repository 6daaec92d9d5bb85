// The separating-axis bound on the distance between two boxes, and the
// boxes' closest points, against the distance computed independently
// (alternating projections onto the boxes).
#include "coulomb/geometry/box_separation.h"

#include <algorithm>
#include <cmath>
#include <random>

#include <gtest/gtest.h>

#include "coulomb/geometry/box_distance.h"
#include "test_support.h"

namespace coulomb {
namespace {

// The point of a box (pose X, half extents h) closest to p.
Eigen::Vector3d ClosestPointOfBox(const Eigen::Isometry3d& X, const Eigen::Vector3d& h,
                                  const Eigen::Vector3d& p_W) {
  const Eigen::Vector3d p = X.inverse() * p_W;
  return X * p.cwiseMax(-h).cwiseMin(h);
}

// The distance between two disjoint boxes by alternating projections (each
// step moves to the closest point of one box to the last point of the
// other: the distance between the iterates decreases to the boxes'
// distance); 0 when they overlap.
double DistanceBetweenBoxes(const Eigen::Isometry3d& X_A, const Eigen::Vector3d& h_A,
                            const Eigen::Isometry3d& X_B, const Eigen::Vector3d& h_B) {
  Eigen::Vector3d p_A = X_A.translation(), p_B = X_B.translation();
  for (int k = 0; k < 20000; ++k) {
    p_B = ClosestPointOfBox(X_B, h_B, p_A);
    p_A = ClosestPointOfBox(X_A, h_A, p_B);
  }
  return (p_A - p_B).norm();
}

// Two boxes of half extents 0.05–0.3 m at random poses within 0.5 m.
struct BoxPair {
  Eigen::Vector3d h_A, h_B;
  Eigen::Isometry3d X_A, X_B;
};

BoxPair RandomBoxPair(std::mt19937* random) {
  std::uniform_real_distribution<double> size(0.05, 0.3);
  BoxPair pair;
  pair.h_A = Eigen::Vector3d{size(*random), size(*random), size(*random)};
  pair.h_B = Eigen::Vector3d{size(*random), size(*random), size(*random)};
  pair.X_A = testing::RandomPose(0.5, random);
  pair.X_B = testing::RandomPose(0.5, random);
  return pair;
}

TEST(BoxSeparation, NeverExceedsTheDistanceAndIsTightForFacingBoxes) {
  std::mt19937 random(5);
  int separated = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const auto [h_A, h_B, X_A, X_B] = RandomBoxPair(&random);
    const double bound = BoxSeparationLowerBound(X_A, h_A, X_B, h_B);
    const double distance = DistanceBetweenBoxes(X_A, h_A, X_B, h_B);
    // Alternating projections converge from above: a bound above the
    // distance by more than the iteration's slack would be a wrong bound.
    EXPECT_LE(bound, distance + 1e-9) << "trial " << trial;
    if (distance > 1e-6) ++separated;
  }
  EXPECT_GT(separated, 100);
  // Face to face (B above A, same orientation, shifted sideways): exact.
  const Eigen::Vector3d h(0.1, 0.2, 0.3);
  Eigen::Isometry3d X_B = Eigen::Isometry3d::Identity();
  X_B.translation() << 0.05, -0.1, 0.6 + 0.02;
  EXPECT_NEAR(BoxSeparationLowerBound(Eigen::Isometry3d::Identity(), h, X_B, h), 0.02,
              1e-15);
  // Overlapping by 1 cm along z: minus the penetration depth.
  X_B.translation() << 0.05, -0.1, 0.6 - 0.01;
  EXPECT_NEAR(BoxSeparationLowerBound(Eigen::Isometry3d::Identity(), h, X_B, h), -0.01,
              1e-15);
}

// Stopping at the first axis above a threshold (the broad phase's margin)
// decides "bound > threshold" as the full bound does, and what it returns is
// still no more than the full bound (a lower bound on the distance).
TEST(BoxSeparation, StoppingAboveAThresholdDecidesAsTheFullBound) {
  std::mt19937 random(11);
  int stopped_early = 0, beyond = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    const auto [h_A, h_B, X_A, X_B] = RandomBoxPair(&random);
    const double margin = 0.01 * (trial % 5);
    const double full = BoxSeparationLowerBound(X_A, h_A, X_B, h_B);
    const double stopped = BoxSeparationLowerBound(X_A, h_A, X_B, h_B, margin);
    EXPECT_EQ(stopped > margin, full > margin) << "trial " << trial;
    EXPECT_LE(stopped, full) << "trial " << trial;
    stopped_early += stopped < full;
    beyond += full > margin;
  }
  EXPECT_GT(stopped_early, 50);  // the early return is exercised
  EXPECT_GT(beyond, 200);
}

// s(L) in world coordinates, from the boxes' axes directly.
double SeparationAlong(const Eigen::Vector3d& L, const Eigen::Isometry3d& X_A,
                       const Eigen::Vector3d& h_A, const Eigen::Isometry3d& X_B,
                       const Eigen::Vector3d& h_B) {
  double s = std::abs(L.dot(X_B.translation() - X_A.translation()));
  for (int i = 0; i < 3; ++i) {
    s -= h_A(i) * std::abs(L.dot(X_A.linear().col(i)));
    s -= h_B(i) * std::abs(L.dot(X_B.linear().col(i)));
  }
  return s;
}

// The best axis is one of the 15 candidates, unit, from A towards B, with
// its own separation; no face axis does better, and an edge axis is taken
// only when it beats every face axis by more than the bias.
TEST(BoxSeparation, TheBestAxisIsTheCandidateOfLargestSeparationFacesFirst) {
  std::mt19937 random(17);
  const double bias = 1e-3;  // large, for the rule to show
  int edges = 0, faces_by_bias = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    const auto [h_A, h_B, X_A, X_B] = RandomBoxPair(&random);
    const BoxSeparation best = BoxSeparatingAxis(X_A, h_A, X_B, h_B, bias);
    const Eigen::Vector3d& n = best.axis_W;
    ASSERT_NEAR(n.norm(), 1.0, 1e-12) << "trial " << trial;
    EXPECT_GE(n.dot(X_B.translation() - X_A.translation()), 0.0) << "trial " << trial;
    EXPECT_NEAR(best.separation, SeparationAlong(n, X_A, h_A, X_B, h_B), 1e-12);
    double best_face = -1e300, best_edge = -1e300;
    bool is_face = false;
    for (int i = 0; i < 3; ++i) {
      for (const Eigen::Vector3d axis : {X_A.linear().col(i), X_B.linear().col(i)}) {
        best_face = std::max(best_face, SeparationAlong(axis, X_A, h_A, X_B, h_B));
        is_face = is_face || std::abs(std::abs(axis.dot(n)) - 1.0) < 1e-12;
      }
      for (int j = 0; j < 3; ++j) {
        const Eigen::Vector3d cross = X_A.linear().col(i).cross(X_B.linear().col(j));
        if (cross.norm() < 1e-9) continue;
        best_edge =
            std::max(best_edge, SeparationAlong(cross.normalized(), X_A, h_A, X_B, h_B));
      }
    }
    EXPECT_GE(best.separation, best_face - 1e-12) << "trial " << trial;
    if (is_face) {
      EXPECT_LE(best_edge, best_face + bias + 1e-12) << "trial " << trial;
      faces_by_bias += best_edge > best_face;
    } else {
      EXPECT_GT(best.separation, best_face + bias - 1e-12) << "trial " << trial;
      EXPECT_NEAR(best.separation, best_edge, 1e-12) << "trial " << trial;
      ++edges;
    }
    EXPECT_EQ(BoxSeparationLowerBound(X_A, h_A, X_B, h_B),
              BoxSeparatingAxis(X_A, h_A, X_B, h_B).separation);
  }
  EXPECT_GT(edges, 50);         // both kinds of axes are exercised,
  EXPECT_GT(faces_by_bias, 5);  // and the bias decides some
}

// The closest points of disjoint boxes: each lies on its box's surface, so
// their distance is at least the boxes' (and at least the separating-axis
// bound), and it is at most the distance alternating projections converge
// to from above: no farther pair than theirs. Among the random pairs are
// pairs whose closest points are interior to an edge of each (no vertex),
// which only the edge pairs find.
TEST(BoxDistance, ClosestPointsOfDisjointBoxesAreAtTheirDistance) {
  std::mt19937 random(9);
  int disjoint = 0, edge_to_edge = 0;
  const auto on_surface = [](const Eigen::Isometry3d& X, const Eigen::Vector3d& h,
                             const Eigen::Vector3d& p_W) {
    const Eigen::Vector3d p = X.inverse() * p_W;
    return (p.cwiseAbs() - h).maxCoeff();  // 0 on the surface
  };
  const auto at_vertex = [](const Eigen::Isometry3d& X, const Eigen::Vector3d& h,
                            const Eigen::Vector3d& p_W) {
    const Eigen::Vector3d p = X.inverse() * p_W;
    return ((p.cwiseAbs() - h).array().abs() < 1e-9).all();
  };
  for (int trial = 0; trial < 800; ++trial) {
    const auto [h_A, h_B, X_A, X_B] = RandomBoxPair(&random);
    if (BoxSeparationLowerBound(X_A, h_A, X_B, h_B) <= 0.0) continue;  // may overlap
    ++disjoint;
    const BoxClosestPoints closest = ClosestPointsOfDisjointBoxes(X_A, h_A, X_B, h_B);
    EXPECT_LE(closest.distance, DistanceBetweenBoxes(X_A, h_A, X_B, h_B) + 1e-12)
        << "trial " << trial;
    EXPECT_GE(closest.distance, BoxSeparationLowerBound(X_A, h_A, X_B, h_B) - 1e-12);
    EXPECT_NEAR(closest.distance, (closest.on_b - closest.on_a).norm(), 1e-15);
    EXPECT_NEAR(on_surface(X_A, h_A, closest.on_a), 0.0, 1e-12) << "trial " << trial;
    EXPECT_NEAR(on_surface(X_B, h_B, closest.on_b), 0.0, 1e-12) << "trial " << trial;
    edge_to_edge +=
        !at_vertex(X_A, h_A, closest.on_a) && !at_vertex(X_B, h_B, closest.on_b);
  }
  EXPECT_GT(disjoint, 200);
  EXPECT_GT(edge_to_edge, 20);
}

}  // namespace
}  // namespace coulomb
