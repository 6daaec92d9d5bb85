// The broad phase's boxes about cylinders, capsules and ellipsoids: a pair
// of them whose enclosing boxes are apart beyond the margin never reaches the
// narrow phase, and a pair that overlaps always has a contact.

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "coulomb/geometry/collision_world.h"
#include "coulomb/geometry/shape.h"
#include "test_support.h"

namespace coulomb {
namespace {

// A shape along its frame's z axis, with its enclosing box's half extents
// and a test of whether a point of its frame is inside it, written here from
// each solid's definition.
struct ElongatedSolid {
  std::string name;
  Shape shape;
  Eigen::Vector3d half_extents;
  std::function<bool(const Eigen::Vector3d&)> contains;
};

ElongatedSolid MakeCylinder(double radius, double length) {
  return {"cylinder",
          Cylinder{radius, length},
          {radius, radius, 0.5 * length},
          [=](const Eigen::Vector3d& p) {
            return std::abs(p.z()) <= 0.5 * length && p.head<2>().norm() <= radius;
          }};
}

ElongatedSolid MakeCapsule(double radius, double length) {
  return {"capsule",
          Capsule{radius, length},
          {radius, radius, 0.5 * length + radius},
          [=](const Eigen::Vector3d& p) {
            const double z_on_axis = std::clamp(p.z(), -0.5 * length, 0.5 * length);
            return (p - Eigen::Vector3d(0, 0, z_on_axis)).norm() <= radius;
          }};
}

ElongatedSolid MakeEllipsoid(const Eigen::Vector3d& semi_axes) {
  return {"ellipsoid", Ellipsoid{semi_axes}, semi_axes, [=](const Eigen::Vector3d& p) {
            return p.cwiseQuotient(semi_axes).squaredNorm() <= 1.0;
          }};
}

// The largest gap between two boxes centred at their frames' origins along
// the six face normals (each box's own axes): a lower bound on their
// distance, and so on that of the solids inside them.
double FaceAxesGap(const Eigen::Isometry3d& X_WA, const Eigen::Vector3d& half_a,
                   const Eigen::Isometry3d& X_WB, const Eigen::Vector3d& half_b) {
  const Eigen::Vector3d centres = X_WB.translation() - X_WA.translation();
  // The half width of a box of rotation R along a unit axis.
  const auto half_width = [](const Eigen::Matrix3d& R, const Eigen::Vector3d& half,
                             const Eigen::Vector3d& axis) {
    return (R.transpose() * axis).cwiseAbs().dot(half);
  };
  double gap = -std::numeric_limits<double>::infinity();
  for (int k = 0; k < 3; ++k) {
    for (const Eigen::Vector3d& axis :
         {Eigen::Vector3d(X_WA.linear().col(k)), Eigen::Vector3d(X_WB.linear().col(k))}) {
      gap = std::max(gap, std::abs(axis.dot(centres)) -
                              half_width(X_WA.linear(), half_a, axis) -
                              half_width(X_WB.linear(), half_b, axis));
    }
  }
  return gap;
}

void PrintTo(const ElongatedSolid& solid, std::ostream* os) { *os << solid.name; }

class HullBoxPairs
    : public ::testing::TestWithParam<std::pair<ElongatedSolid, ElongatedSolid>> {};

TEST_P(HullBoxPairs, ArePrunedByTheirBoxesWithoutMissingAContact) {
  // Two long solids posed at random about a common point, as a robot's
  // links about a joint: where their bounding spheres meet but their boxes
  // are apart beyond the margin along a face axis, the narrow phase never
  // sees the pair; wherever a point of one is inside the other, the pair has
  // a contact.
  const auto& [solid_a, solid_b] = GetParam();
  CollisionWorld world;
  world.AddGeometry(solid_a.shape, 0, 0, Eigen::Isometry3d::Identity());
  world.AddGeometry(solid_b.shape, 1, 0, Eigen::Isometry3d::Identity());
  const double margin = 1e-3;
  const double reach = world.bounding_radius(0) + world.bounding_radius(1);
  std::mt19937 random(11);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  int overlapping = 0, spheres_meet_boxes_apart = 0;
  std::vector<ContactPoint> contacts;
  for (int sample = 0; sample < 2000; ++sample) {
    const Eigen::Isometry3d X_WB = testing::RandomPose(0.5 * reach, &random);
    world.ComputeContacts({Eigen::Isometry3d::Identity(), X_WB}, margin, &contacts);
    bool overlap = false;
    for (int point = 0; point < 400 && !overlap; ++point) {
      const Eigen::Vector3d p_A = solid_a.half_extents.cwiseProduct(
          Eigen::Vector3d(uniform(random), uniform(random), uniform(random)));
      overlap = solid_a.contains(p_A) && solid_b.contains(X_WB.inverse() * p_A);
    }
    if (overlap) {
      ++overlapping;
      EXPECT_FALSE(contacts.empty()) << "sample " << sample;
    }
    const bool spheres_meet = X_WB.translation().norm() < reach + margin;
    if (spheres_meet && FaceAxesGap(Eigen::Isometry3d::Identity(), solid_a.half_extents,
                                    X_WB, solid_b.half_extents) > margin) {
      ++spheres_meet_boxes_apart;
      EXPECT_EQ(world.num_candidate_pairs(), 0) << "sample " << sample;
      EXPECT_TRUE(contacts.empty()) << "sample " << sample;
    }
  }
  EXPECT_GT(overlapping, 100);
  EXPECT_GT(spheres_meet_boxes_apart, 200);
}

INSTANTIATE_TEST_SUITE_P(
    CylindersCapsulesEllipsoids, HullBoxPairs,
    ::testing::Values(
        std::pair{MakeCylinder(0.03, 0.3), MakeCylinder(0.03, 0.3)},
        std::pair{MakeCapsule(0.03, 0.24), MakeCapsule(0.025, 0.3)},
        std::pair{MakeEllipsoid({0.03, 0.04, 0.15}), MakeCylinder(0.03, 0.3)},
        std::pair{MakeCapsule(0.03, 0.24), MakeEllipsoid({0.15, 0.03, 0.02})}),
    [](const auto& info) {
      return info.param.first.name + "_" + info.param.second.name;
    });

}  // namespace
}  // namespace coulomb
