// The separating-axis bound on the distance between two boxes, against the
// distance computed independently (alternating projections onto the boxes).
#include "coulomb/geometry/box_separation.h"

#include <random>

#include <gtest/gtest.h>

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

Eigen::Isometry3d RandomPose(std::mt19937* random, double spread) {
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  Eigen::Isometry3d X = Eigen::Isometry3d::Identity();
  X.linear() =
      Eigen::Quaterniond(unit(*random), unit(*random), unit(*random), unit(*random))
          .normalized()
          .toRotationMatrix();
  X.translation() = spread * Eigen::Vector3d(unit(*random), unit(*random), unit(*random));
  return X;
}

TEST(BoxSeparation, NeverExceedsTheDistanceAndIsTightForFacingBoxes) {
  std::mt19937 random(5);
  std::uniform_real_distribution<double> size(0.05, 0.3);
  int separated = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const Eigen::Vector3d h_A(size(random), size(random), size(random));
    const Eigen::Vector3d h_B(size(random), size(random), size(random));
    const Eigen::Isometry3d X_A = RandomPose(&random, 0.5);
    const Eigen::Isometry3d X_B = RandomPose(&random, 0.5);
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
  std::uniform_real_distribution<double> size(0.05, 0.3);
  int stopped_early = 0, beyond = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    const Eigen::Vector3d h_A(size(random), size(random), size(random));
    const Eigen::Vector3d h_B(size(random), size(random), size(random));
    const Eigen::Isometry3d X_A = RandomPose(&random, 0.5);
    const Eigen::Isometry3d X_B = RandomPose(&random, 0.5);
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

}  // namespace
}  // namespace coulomb
