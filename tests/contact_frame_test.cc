#include "coulomb/math/contact_frame.h"

#include <cmath>
#include <random>
#include <vector>

#include <gtest/gtest.h>

namespace coulomb {
namespace {

// Unit normals along and near the axes (where a construction from a helper
// axis or from 1/(1 + n_z) could lose accuracy), on the equator and at random.
std::vector<Eigen::Vector3d> Normals() {
  std::vector<Eigen::Vector3d> normals;
  for (int axis = 0; axis < 3; ++axis) {
    for (double sign : {1.0, -1.0}) {
      for (double tilt : {0.0, 1e-12, 1e-6, 1e-2}) {
        Eigen::Vector3d n = Eigen::Vector3d::Zero();
        n(axis) = sign;
        n((axis + 1) % 3) = tilt;
        normals.push_back(n.normalized());
      }
    }
  }
  normals.push_back(Eigen::Vector3d(1.0, 1.0, 0.0).normalized());
  normals.push_back(Eigen::Vector3d(-1.0, 2.0, -0.0).normalized());
  std::mt19937 random(7);
  std::normal_distribution<double> gaussian;
  for (int k = 0; k < 1000; ++k) {
    normals.push_back(
        Eigen::Vector3d(gaussian(random), gaussian(random), gaussian(random))
            .normalized());
  }
  return normals;
}

TEST(ContactFrame, IsARightHandedOrthonormalFrameWhoseZAxisIsTheNormal) {
  for (const Eigen::Vector3d& n : Normals()) {
    const Eigen::Matrix3d frame = ContactFrame(n);
    ASSERT_TRUE(frame.allFinite()) << n.transpose();
    EXPECT_EQ(frame.col(2), n);
    EXPECT_LT((frame.transpose() * frame - Eigen::Matrix3d::Identity()).norm(), 1e-15)
        << n.transpose();
    EXPECT_NEAR(frame.determinant(), 1.0, 1e-15) << n.transpose();
    EXPECT_LT((frame.col(0).cross(frame.col(1)) - n).norm(), 1e-15) << n.transpose();
  }
}

TEST(ContactFrame, ChangesContinuouslyAwayFromTheEquator) {
  // The frame may jump only where n_z changes sign; away from it a small
  // change of n changes the tangents by about as much.
  const Eigen::Vector3d n = Eigen::Vector3d(0.3, -0.5, 0.8).normalized();
  const Eigen::Vector3d nearby = (n + Eigen::Vector3d(1e-7, 2e-7, -1e-7)).normalized();
  EXPECT_LT((ContactFrame(n) - ContactFrame(nearby)).norm(), 1e-6);
}

}  // namespace
}  // namespace coulomb
