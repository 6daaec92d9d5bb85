#include <algorithm>
#include <cmath>
#include <functional>
#include <numbers>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "coulomb/geometry/collision_world.h"
#include "coulomb/geometry/height_field.h"
#include "coulomb/geometry/shape.h"

namespace coulomb {
namespace {

Eigen::Isometry3d Translation(double x, double y, double z) {
  Eigen::Isometry3d pose = Eigen::Isometry3d::Identity();
  pose.translation() = Eigen::Vector3d(x, y, z);
  return pose;
}

TEST(CollisionWorld, SphereOnGroundHasOnePointAtTheSignedDistance) {
  CollisionWorld world;
  world.AddGeometry(HalfSpace{}, -1, 0, Eigen::Isometry3d::Identity());
  world.AddGeometry(Sphere{0.1}, 0, 0, Eigen::Isometry3d::Identity());
  std::vector<ContactPoint> contacts;
  world.ComputeContacts({Eigen::Isometry3d::Identity(), Translation(0.3, -0.2, 0.08)},
                        0.0, &contacts);
  ASSERT_EQ(contacts.size(), 1u);
  EXPECT_NEAR(contacts[0].phi, -0.02, 1e-12);
  EXPECT_TRUE(
      contacts[0].normal_W.isApprox(Eigen::Vector3d::UnitZ(), 1e-12));  // ground → sphere
  EXPECT_TRUE(
      contacts[0].p_W.isApprox(Eigen::Vector3d(0.3, -0.2, -0.01), 1e-12));  // midpoint
  EXPECT_EQ(contacts[0].geometry_a, 0);
  EXPECT_EQ(contacts[0].geometry_b, 1);
}

TEST(CollisionWorld, ReportsSeparatedPairsWithinTheMarginOnly) {
  CollisionWorld world;
  world.AddGeometry(HalfSpace{}, -1, 0, Eigen::Isometry3d::Identity());
  world.AddGeometry(Sphere{0.1}, 0, 0, Eigen::Isometry3d::Identity());
  std::vector<ContactPoint> contacts;
  world.ComputeContacts({Eigen::Isometry3d::Identity(), Translation(0, 0, 0.105)}, 0.01,
                        &contacts);
  ASSERT_EQ(contacts.size(), 1u);
  EXPECT_NEAR(contacts[0].phi, 0.005, 1e-12);
  world.ComputeContacts({Eigen::Isometry3d::Identity(), Translation(0, 0, 0.2)}, 0.01,
                        &contacts);
  EXPECT_TRUE(contacts.empty());
}

// Speculative contacts follow each geometry's motion (GeometryMotion): two
// spheres falling side by side at 10 m/s never meet, whatever either does
// within the look-ahead, and report nothing; a sphere falling towards a
// resting one below it reports a contact at its gap, and so does a resting
// one struck from the side. Without motion neither pair is within margin.
TEST(CollisionWorld, SpeculativeContactsOnlyWhereSweptBoundingSpheresMeet) {
  CollisionWorld world;
  world.AddGeometry(Sphere{0.05}, 0, 0, Eigen::Isometry3d::Identity());
  world.AddGeometry(Sphere{0.05}, 1, 0, Eigen::Isometry3d::Identity());
  const double reach_time = 0.02;  // δt = 20 ms
  const GeometryMotion resting;
  const GeometryMotion falling{Eigen::Vector3d(0.0, 0.0, -10.0 * reach_time), 0.0};
  std::vector<ContactPoint> contacts;
  // Side by side, 0.15 m between centres (0.05 m gap), both falling.
  const std::vector<Eigen::Isometry3d> side_by_side = {Translation(0, 0, 1),
                                                       Translation(0.15, 0, 1)};
  world.ComputeContacts(side_by_side, 1e-3, &contacts, {falling, falling});
  EXPECT_TRUE(contacts.empty());
  // Struck from the side: the left one moves right at 5 m/s (0.1 m in δt).
  world.ComputeContacts(side_by_side, 1e-3, &contacts,
                        {{Eigen::Vector3d(0.1, 0, 0), 0.0}, resting});
  ASSERT_EQ(contacts.size(), 1u);
  EXPECT_NEAR(contacts[0].phi, 0.05, 1e-9);
  // One above the other, the upper falling onto the lower at rest.
  const std::vector<Eigen::Isometry3d> stacked = {Translation(0, 0, 1),
                                                  Translation(0, 0, 1.15)};
  world.ComputeContacts(stacked, 1e-3, &contacts, {resting, falling});
  ASSERT_EQ(contacts.size(), 1u);
  EXPECT_NEAR(contacts[0].phi, 0.05, 1e-9);
  // Falling together: the lower may stop within the look-ahead, so the pair
  // stays speculative.
  world.ComputeContacts(stacked, 1e-3, &contacts, {falling, falling});
  EXPECT_EQ(contacts.size(), 1u);
  // Spin alone (turn) reaches across the gap too.
  world.ComputeContacts(side_by_side, 1e-3, &contacts,
                        {{Eigen::Vector3d::Zero(), 0.06}, resting});
  EXPECT_EQ(contacts.size(), 1u);
  world.ComputeContacts(side_by_side, 1e-3, &contacts);
  EXPECT_TRUE(contacts.empty());
}

TEST(CollisionWorld, BoxOnGroundRestsOnItsFourCorners) {
  CollisionWorld world;
  world.AddGeometry(HalfSpace{}, -1, 0, Eigen::Isometry3d::Identity());
  world.AddGeometry(Box{{0.2, 0.4, 0.2}}, 0, 0, Eigen::Isometry3d::Identity());
  std::vector<ContactPoint> contacts;
  world.ComputeContacts({Eigen::Isometry3d::Identity(), Translation(1.0, 0, 0.099)}, 0.0,
                        &contacts);
  ASSERT_EQ(contacts.size(), 4u);
  Eigen::Vector3d centroid = Eigen::Vector3d::Zero();
  for (const ContactPoint& c : contacts) {
    // Box pairs go through GJK/EPA, accurate to its tolerance (~1e-10 here).
    EXPECT_NEAR(c.phi, -0.001, 1e-9);
    EXPECT_NEAR(std::abs(c.p_W.x() - 1.0), 0.1, 1e-9);
    EXPECT_NEAR(std::abs(c.p_W.y()), 0.2, 1e-9);
    centroid += c.p_W / 4.0;
  }
  EXPECT_NEAR(centroid.x(), 1.0, 1e-9);
}

// A box resting flat on a flat height field, over the corner of four cells
// (eight prisms, each giving its patch): the points where two prisms' patches
// share an edge count once, and the patches together still hold the box's
// four bottom corners, each once.
TEST(CollisionWorld, ABoxOnAHeightFieldTouchesEachPointOnce) {
  HeightField field{
      .rows = 4, .cols = 4, .heights = {}, .half_size = {0.3, 0.3}, .base_depth = 0.1};
  field.heights.assign(16, 0.0);
  CollisionWorld world;
  std::vector<Eigen::Isometry3d> X_WG;
  for (const HeightFieldPrism& prism : HeightFieldPrisms(field, "flat")) {
    X_WG.emplace_back(Eigen::Translation3d(prism.offset));
    world.AddGeometry(prism.mesh, -1, 0, X_WG.back());
  }
  world.AddGeometry(Box{{0.1, 0.1, 0.04}}, 0, 0, Eigen::Isometry3d::Identity());
  // Centred over the grid point (0.1, 0.1), 0.5 mm into the surface.
  X_WG.emplace_back(Eigen::Translation3d(0.1, 0.1, 0.0195));
  std::vector<ContactPoint> contacts;
  world.ComputeContacts(X_WG, 0.01, &contacts);
  std::set<int> prisms_touched;
  for (size_t i = 0; i < contacts.size(); ++i) {
    prisms_touched.insert(contacts[i].geometry_a);
    EXPECT_NEAR(contacts[i].phi, -0.0005, 1e-12);
    for (size_t j = 0; j < i; ++j)
      EXPECT_GT((contacts[i].p_W - contacts[j].p_W).norm(), 1e-9) << i << ", " << j;
  }
  EXPECT_GE(prisms_touched.size(), 4u);
  for (const double x : {0.05, 0.15}) {
    for (const double y : {0.05, 0.15}) {
      int at_corner = 0;
      for (const ContactPoint& contact : contacts)
        at_corner += (contact.p_W.head<2>() - Eigen::Vector2d(x, y)).norm() < 1e-9;
      EXPECT_EQ(at_corner, 1) << x << ", " << y;
    }
  }
}

TEST(CollisionWorld, StackedBoxesTouchOverTheirOverlap) {
  CollisionWorld world;
  world.AddGeometry(Box{{0.2, 0.2, 0.2}}, 0, 0, Eigen::Isometry3d::Identity());
  world.AddGeometry(Box{{0.2, 0.2, 0.2}}, 1, 0, Eigen::Isometry3d::Identity());
  std::vector<ContactPoint> contacts;
  world.ComputeContacts({Eigen::Isometry3d::Identity(), Translation(0.05, 0.02, 0.199)},
                        0.0, &contacts);
  ASSERT_EQ(contacts.size(), 4u);  // the overlap rectangle [−0.05, 0.1] × [−0.08, 0.1]
  for (const ContactPoint& c : contacts) {
    EXPECT_NEAR(c.phi, -0.001, 1e-9);  // GJK/EPA tolerance, as above
    EXPECT_NEAR(c.normal_W.z(), 1.0, 1e-9);
    EXPECT_GE(c.p_W.x(), -0.05 - 1e-9);
    EXPECT_LE(c.p_W.y(), 0.1 + 1e-9);
  }
}

// Two 10 cm boxes of a settled pile that touch by their sides, at the poses
// of a clutter run (t = 137.21 s) where the depth refined along the normal
// once came out 0.14 m (the normal line left through a far face): no point
// may be deeper than the pair's overlap, a fraction of a millimetre here.
TEST(CollisionWorld, SideBySideBoxesAreNeverReportedDeeperThanTheyOverlap) {
  CollisionWorld world;
  const auto pose = [](double x, double y, double z, double w, double qx, double qy,
                       double qz) {
    Eigen::Isometry3d X = Eigen::Isometry3d::Identity();
    X.translation() << x, y, z;
    X.linear() = Eigen::Quaterniond(w, qx, qy, qz).normalized().toRotationMatrix();
    return X;
  };
  const std::vector<Eigen::Isometry3d> X_WG = {
      pose(-0.17859630734045709, -0.24322102015058417, 0.049950920447952823,
           0.98815996973855325, -8.2854606337905262e-05, 1.1140388635195615e-04,
           0.15342703454929263),
      pose(-0.14389352013901646, -0.33729793480040726, 0.04996752718707309,
           0.4182975678889437, 0.5701115195277102, -0.41829756788894357,
           0.57011151952771)};
  world.AddGeometry(Box{Eigen::Vector3d::Constant(0.1)}, 0, 0,
                    Eigen::Isometry3d::Identity());
  world.AddGeometry(Box{Eigen::Vector3d::Constant(0.1)}, 1, 0,
                    Eigen::Isometry3d::Identity());
  std::vector<ContactPoint> contacts;
  world.ComputeContacts(X_WG, 0.01, &contacts);
  ASSERT_FALSE(contacts.empty());
  for (const ContactPoint& contact : contacts) EXPECT_GT(contact.phi, -2e-3);
}

// MuJoCo's contype/conaffinity rule: a and b collide iff (type_a &
// affinity_b) or (type_b & affinity_a).
TEST(CollisionWorld, FiltersPairsByMujocosBitmaskRule) {
  const struct {
    CollisionFilter a, b;
    bool collide;
  } cases[] = {
      {{1, 1}, {1, 1}, true},   // the default
      {{2, 2}, {1, 1}, false},  // another group
      {{0, 1}, {0, 1}, false},  // neither's type in the other's affinity
      {{0, 1}, {1, 1}, true},   // the second's type in the first's affinity
      {{1, 0}, {0, 1}, true},   // the first's type in the second's affinity
      {{6, 0}, {0, 4}, true},   // one bit in common
  };
  for (const auto& c : cases) {
    EXPECT_EQ(c.a.Collides(c.b), c.collide);
    EXPECT_EQ(c.b.Collides(c.a), c.collide);  // symmetric
    CollisionWorld world;                     // two overlapping spheres of two trees
    world.AddGeometry(Sphere{0.1}, 0, 0, Eigen::Isometry3d::Identity());
    world.AddGeometry(Sphere{0.1}, 1, 0, Eigen::Isometry3d::Identity());
    world.SetCollisionFilter(0, c.a);
    world.SetCollisionFilter(1, c.b);
    std::vector<ContactPoint> contacts;
    world.ComputeContacts(
        std::vector<Eigen::Isometry3d>(2, Eigen::Isometry3d::Identity()), 0.0, &contacts);
    EXPECT_EQ(!contacts.empty(), c.collide)
        << c.a.type << "/" << c.a.affinity << " with " << c.b.type << "/" << c.b.affinity;
  }
}

TEST(CollisionWorld, SkipsSameBodyStaticAndExcludedPairs) {
  CollisionWorld world;
  world.AddGeometry(HalfSpace{}, -1, 0, Eigen::Isometry3d::Identity());
  world.AddGeometry(Box{{1, 1, 1}}, -1, 1, Eigen::Isometry3d::Identity());  // static too
  world.AddGeometry(Sphere{0.1}, 0, 0, Eigen::Isometry3d::Identity());
  world.AddGeometry(Sphere{0.1}, 0, 0, Eigen::Isometry3d::Identity());  // same body
  world.ExcludePair(2, 0);
  std::vector<ContactPoint> contacts;
  const std::vector<Eigen::Isometry3d> poses(4, Eigen::Isometry3d::Identity());
  world.ComputeContacts(poses, 0.0, &contacts);
  for (const ContactPoint& c : contacts) {
    EXPECT_FALSE(c.geometry_a == 0 && c.geometry_b == 1);
    EXPECT_FALSE(c.geometry_a == 2 && c.geometry_b == 3);
    EXPECT_FALSE(c.geometry_a == 0 && c.geometry_b == 2);
  }
  EXPECT_FALSE(contacts.empty());  // 0–3, 1–2 and 1–3 do overlap
}

// A long, tall, tilted wall (a static box) whose bounding sphere reaches
// every sphere below: each sphere placed off one of its corners, off an
// edge and off a face, along the outward direction there, at a gap just
// inside and just outside the margin. Those inside report their gap, the
// others nothing: the broad phase's bound of a box against the other
// geometry's bounding sphere drops no pair within the margin.
TEST(CollisionWorld, TiltedWallKeepsEverySphereWithinTheMargin) {
  const Eigen::Vector3d half(0.5, 0.025, 0.4);
  Eigen::Isometry3d X_WB = Eigen::Isometry3d::Identity();
  X_WB.linear() = Eigen::AngleAxisd(0.7, Eigen::Vector3d(1, 2, 3).normalized()).matrix();
  X_WB.translation() = Eigen::Vector3d(0.1, -0.2, 0.3);
  const double radius = 0.05, margin = 0.01;
  // Outward directions in the box's frame: a corner's, an edge's, a face's.
  for (const Eigen::Vector3d& outward :
       {Eigen::Vector3d(1, -1, 1), Eigen::Vector3d(-1, 1, 0),
        Eigen::Vector3d(0, 0, -1)}) {
    // The nearest point of the box: the corner, the edge's midpoint, the face's centre.
    const Eigen::Vector3d nearest_B = half.cwiseProduct(outward);
    const Eigen::Vector3d direction_W = X_WB.linear() * outward.normalized();
    for (const double gap : {0.9 * margin, 1.1 * margin}) {
      CollisionWorld world;
      world.AddGeometry(Box{2 * half}, -1, 0, Eigen::Isometry3d::Identity());
      world.AddGeometry(Sphere{radius}, 0, 0, Eigen::Isometry3d::Identity());
      Eigen::Isometry3d X_WS = Eigen::Isometry3d::Identity();
      X_WS.translation() = X_WB * nearest_B + (radius + gap) * direction_W;
      std::vector<ContactPoint> contacts;
      world.ComputeContacts({X_WB, X_WS}, margin, &contacts);
      if (gap < margin) {
        ASSERT_EQ(contacts.size(), 1u) << outward.transpose();
        EXPECT_NEAR(contacts[0].phi, gap, 1e-9) << outward.transpose();
      } else {
        EXPECT_TRUE(contacts.empty()) << outward.transpose();
      }
    }
  }
}

// The broad phase keeps its last sweep while every geometry stays within
// the sweep's slack (collision_world.cc, SweptPairsHold): a world queried
// frame after frame must report exactly what a new world, which sweeps at
// once, reports for the same poses and motions. Each body drifts along its
// own direction and turns about its own axis; phases of 20 frames move
// them by one term of the check at a time beyond the slack (2 mm): a
// translation, a turn (planks, long thin boxes, move their ends far more
// than their centres), a growing reach, and all at once, with rests between.
TEST(CollisionWorld, KeptSweepReportsWhatAFreshSweepReports) {
  const int side = 8, num_bodies = side * side;
  const auto build = [&] {
    CollisionWorld world;
    world.AddGeometry(HalfSpace{}, -1, 0, Eigen::Isometry3d::Identity());
    const Eigen::Isometry3d X_BG = Eigen::Isometry3d::Identity();
    for (int i = 0; i < num_bodies; ++i) {
      if (i % 3 == 0) world.AddGeometry(Box{{0.25, 0.03, 0.03}}, i, 0, X_BG);
      if (i % 3 == 1) world.AddGeometry(Box{{0.1, 0.1, 0.1}}, i, 0, X_BG);
      if (i % 3 == 2) world.AddGeometry(Sphere{0.05}, i, 0, X_BG);
    }
    return world;
  };
  int frames_with_new_pairs = 0;
  size_t most_pairs = 0;
  for (unsigned seed = 11; seed <= 20; ++seed) {
    std::mt19937 random(seed);
    std::uniform_real_distribution<double> unit(-1.0, 1.0);
    const auto random_vector = [&] {
      return Eigen::Vector3d{unit(random), unit(random),
                             unit(random)};  // braces: in order
    };
    // On a grid of 0.15 m, a little off it: gaps of a few centimetres, which
    // the drifts open and close.
    std::vector<Eigen::Isometry3d> X_WG(num_bodies + 1, Eigen::Isometry3d::Identity());
    std::vector<Eigen::Vector3d> drift(num_bodies + 1), axis(num_bodies + 1);
    for (int g = 1; g <= num_bodies; ++g) {
      X_WG[g].translation() =
          Eigen::Vector3d(0.15 * ((g - 1) % side), 0.15 * ((g - 1) / side), 0.3) +
          0.01 * random_vector();
      X_WG[g].linear() = Eigen::AngleAxisd(3.0 * unit(random), Eigen::Vector3d::UnitZ())
                             .toRotationMatrix();
      drift[g] = random_vector().normalized();
      axis[g] = (Eigen::Vector3d::UnitZ() + 0.2 * random_vector()).normalized();
    }
    std::vector<GeometryMotion> motion(num_bodies + 1);
    CollisionWorld kept = build();
    std::vector<ContactPoint> from_kept, from_fresh;
    std::set<std::pair<int, int>> last_pairs;
    for (int frame = 0; frame < 400; ++frame) {
      const int phase = (frame / 20) % 10;  // odd phases rest
      const int in_phase = frame % 20;
      const double back = frame < 200 ? 1.0 : -1.0;  // the second half drifts back
      for (int g = 1; g <= num_bodies; ++g) {
        motion[g] = GeometryMotion{};
        if (phase == 0 || phase == 6)  // 1.5 mm per frame
          X_WG[g].translation() += back * 1.5e-3 * drift[g];
        if (phase == 2 || phase == 6)  // 10 mrad per frame: 1.25 mm at a plank's ends
          X_WG[g].linear() = (Eigen::AngleAxisd(1e-2, axis[g]) * X_WG[g].linear()).eval();
        if (phase == 4 || phase == 6) {  // a reach growing by 0.5 mm per frame
          motion[g].translation = 5e-4 * in_phase * drift[g];
          motion[g].turn = 2e-4 * in_phase;
        }
        if (phase == 8) {  // 3 mm and 10 mrad in random directions
          X_WG[g].translation() += 3e-3 * random_vector();
          X_WG[g].linear() =
              (Eigen::AngleAxisd(1e-2 * unit(random), random_vector().normalized()) *
               X_WG[g].linear())
                  .eval();
        }
      }
      kept.ComputeContacts(X_WG, 2e-3, &from_kept, motion);
      build().ComputeContacts(X_WG, 2e-3, &from_fresh, motion);
      ASSERT_EQ(from_kept.size(), from_fresh.size())
          << "seed " << seed << ", frame " << frame;
      std::set<std::pair<int, int>> pairs;
      for (size_t k = 0; k < from_kept.size(); ++k) {
        const ContactPoint& a = from_kept[k];
        const ContactPoint& b = from_fresh[k];
        ASSERT_EQ(std::pair(a.geometry_a, a.geometry_b),
                  std::pair(b.geometry_a, b.geometry_b))
            << "seed " << seed << ", frame " << frame;
        ASSERT_EQ(a.p_W, b.p_W);
        ASSERT_EQ(a.normal_W, b.normal_W);
        ASSERT_EQ(a.phi, b.phi);
        pairs.emplace(a.geometry_a, a.geometry_b);
      }
      frames_with_new_pairs += !std::includes(last_pairs.begin(), last_pairs.end(),
                                              pairs.begin(), pairs.end());
      last_pairs = pairs;
    }
    most_pairs = std::max(most_pairs, last_pairs.size());
  }
  // The pairs in contact change over the run: a sweep kept too long would
  // miss the new ones.
  EXPECT_GT(frames_with_new_pairs, 100);
  EXPECT_GT(most_pairs, 10u);
}

// The world's own geometry (tree −1, body 0) is filed once in the broad
// phase's tree of static boxes; a kinematic body's (tree −1, body 1) is swept
// at every step like a moving one. The same scene built both ways, a
// terrain's prisms, bricks, a wall, a ball and a half-space under moving
// boxes, balls and capsules that drift, turn and reach ahead frame after
// frame, must give the same contacts, bit for bit, sorted by pair.
TEST(CollisionWorld, StaticGeometryInItsTreeMeetsWhatTheSweepMeets) {
  HeightField field{
      .rows = 7, .cols = 7, .heights = {}, .half_size = {0.6, 0.6}, .base_depth = 0.1};
  for (int k = 0; k < 49; ++k) field.heights.push_back(0.05 * std::sin(1.7 * k));
  const std::vector<HeightFieldPrism> prisms = HeightFieldPrisms(field, "test field");
  const int num_moving = 30;
  const auto build = [&](int static_body) {
    CollisionWorld world;
    world.AddGeometry(HalfSpace{}, -1, 0, Eigen::Isometry3d::Identity());
    for (const HeightFieldPrism& prism : prisms)
      world.AddGeometry(prism.mesh, -1, static_body, Eigen::Isometry3d::Identity());
    for (int k = 0; k < 12; ++k)
      world.AddGeometry(Box{{0.1, 0.05, 0.04}}, -1, static_body,
                        Eigen::Isometry3d::Identity());
    world.AddGeometry(Box{{0.02, 1.4, 0.3}}, -1, static_body,
                      Eigen::Isometry3d::Identity());
    // Balls, whose broad-phase test is exact (sphere against sphere): the
    // slack of a kept sweep decides which pairs with them are found.
    for (int k = 0; k < 25; ++k)
      world.AddGeometry(Sphere{0.08}, -1, static_body, Eigen::Isometry3d::Identity());
    for (int i = 0; i < num_moving; ++i) {
      if (i % 3 == 0)
        world.AddGeometry(Box{{0.08, 0.06, 0.05}}, i, 0, Eigen::Isometry3d::Identity());
      if (i % 3 == 1)
        world.AddGeometry(Sphere{0.05}, i, 0, Eigen::Isometry3d::Identity());
      if (i % 3 == 2)
        world.AddGeometry(Capsule{0.03, 0.1}, i, 0, Eigen::Isometry3d::Identity());
    }
    return world;
  };
  CollisionWorld filed = build(0), swept = build(1);
  const int num_static = static_cast<int>(prisms.size()) + 38;
  std::mt19937 random(3);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  const auto random_vector = [&] {
    return Eigen::Vector3d{unit(random), unit(random), unit(random)};  // braces: in order
  };
  std::vector<Eigen::Isometry3d> X_WG(1 + num_static + num_moving,
                                      Eigen::Isometry3d::Identity());
  for (size_t k = 0; k < prisms.size(); ++k) X_WG[1 + k].translation() = prisms[k].offset;
  for (int k = 0; k < 12; ++k) {  // bricks on the terrain
    Eigen::Isometry3d& X = X_WG[1 + prisms.size() + k];
    X.translation() = Eigen::Vector3d(0.5 * unit(random), 0.5 * unit(random), 0.08);
    X.linear() = Eigen::AngleAxisd(3.0 * unit(random), Eigen::Vector3d::UnitZ()).matrix();
  }
  X_WG[prisms.size() + 13].translation() = Eigen::Vector3d(-0.62, 0.0, 0.1);  // the wall
  for (int k = 0; k < 25; ++k)  // the balls, over the terrain
    X_WG[prisms.size() + 14 + k].translation() =
        Eigen::Vector3d(-0.5 + 0.25 * (k % 5), -0.5 + 0.25 * (k / 5), 0.12);
  std::vector<GeometryMotion> motion(X_WG.size());
  std::vector<Eigen::Vector3d> drift(X_WG.size());
  for (int g = num_static + 1; g < static_cast<int>(X_WG.size()); ++g) {
    X_WG[g].translation() = Eigen::Vector3d(0.6 * unit(random), 0.6 * unit(random), 0.12);
    X_WG[g].linear() =
        Eigen::AngleAxisd(3.0 * unit(random), random_vector().normalized()).matrix();
    drift[g] = 2e-3 * random_vector();
    const int i = g - num_static - 1;
    if (i % 3 == 1) {  // a ball, 2.5–3.5 mm over a static one, sinking onto it
      X_WG[g].translation() = X_WG[prisms.size() + 14 + i % 25].translation() +
                              Eigen::Vector3d(0.0, 0.0, 0.13 + 2.5e-3 + 1e-4 * i);
      drift[g] = Eigen::Vector3d(0.0, 0.0, -2e-3);
    }
  }
  std::vector<ContactPoint> from_filed, from_swept, from_fresh;
  std::set<std::pair<int, int>> static_pairs;
  for (int frame = 0; frame < 300; ++frame) {
    // Slow phases, in which a sweep is kept for several frames (its slack
    // finds pairs before they come within the margin), and fast ones.
    const bool slow = frame / 30 % 2 == 0;
    for (int g = num_static + 1; g < static_cast<int>(X_WG.size()); ++g) {
      X_WG[g].translation() +=
          (frame / 60 % 2 == 0 ? 1.0 : -1.0) * (slow ? 0.1 : 1.0) * drift[g];
      X_WG[g].linear() = (Eigen::AngleAxisd(slow ? 1e-4 : 5e-3, drift[g].normalized()) *
                          X_WG[g].linear())
                             .eval();
      motion[g].translation =
          slow ? Eigen::Vector3d::Zero() : Eigen::Vector3d((frame % 7) * drift[g]);
      motion[g].turn = slow ? 0.0 : 1e-3 * (frame % 5);
    }
    filed.ComputeContacts(X_WG, 2e-3, &from_filed, motion);
    swept.ComputeContacts(X_WG, 2e-3, &from_swept, motion);
    build(0).ComputeContacts(X_WG, 2e-3, &from_fresh, motion);
    // By increasing pair, as the time stepper's warm start reads them.
    ASSERT_TRUE(std::is_sorted(from_filed.begin(), from_filed.end(),
                               [](const ContactPoint& a, const ContactPoint& b) {
                                 return std::pair(a.geometry_a, a.geometry_b) <
                                        std::pair(b.geometry_a, b.geometry_b);
                               }))
        << "frame " << frame;
    // The swept world bit for bit; the fresh one to Coal's round-off (its
    // GJK starts from the last query's guess in a kept world).
    for (const auto& [other, tolerance] :
         {std::pair{&from_swept, 0.0}, std::pair{&from_fresh, 1e-9}}) {
      ASSERT_EQ(from_filed.size(), other->size()) << "frame " << frame;
      for (size_t k = 0; k < from_filed.size(); ++k) {
        const ContactPoint& a = from_filed[k];
        const ContactPoint& b = (*other)[k];
        ASSERT_EQ(std::pair(a.geometry_a, a.geometry_b),
                  std::pair(b.geometry_a, b.geometry_b))
            << "frame " << frame;
        ASSERT_LE((a.p_W - b.p_W).norm(), tolerance) << "frame " << frame;
        ASSERT_LE(std::abs(a.phi - b.phi), tolerance) << "frame " << frame;
      }
    }
    for (const ContactPoint& a : from_filed) {
      if (a.geometry_a > 0 && a.geometry_a <= num_static)
        static_pairs.emplace(a.geometry_a, a.geometry_b);
    }
  }
  // The moving geometries met many of the static ones, prisms and the rest.
  EXPECT_GT(static_pairs.size(), 30u);
}

// Inertia of a solid of revolution about z by slicing into discs: an
// integration independent of the closed forms.
Eigen::Vector3d SlicedInertia(const std::function<double(double)>& radius, double z_min,
                              double z_max) {
  const int slices = 200000;
  const double dz = (z_max - z_min) / slices;
  double axial = 0.0, transverse = 0.0;
  for (int k = 0; k < slices; ++k) {
    const double z = z_min + (k + 0.5) * dz;
    const double r = radius(z);
    const double dm = std::numbers::pi * r * r * dz;
    axial += 0.5 * r * r * dm;
    transverse += (0.25 * r * r + z * z) * dm;
  }
  return {transverse, transverse, axial};
}

TEST(Shape, InertiaOfCapsuleCylinderAndSphereMatchSlicing) {
  const double r = 0.1, l = 0.3;
  const Eigen::Vector3d capsule = SlicedInertia(
      [&](double z) {
        const double over = std::max(0.0, std::abs(z) - 0.5 * l);
        return std::sqrt(std::max(0.0, r * r - over * over));
      },
      -0.5 * l - r, 0.5 * l + r);
  EXPECT_TRUE(UnitDensityInertia(Capsule{r, l}).diagonal().isApprox(capsule, 1e-6));
  const Eigen::Vector3d cylinder =
      SlicedInertia([&](double) { return r; }, -0.5 * l, 0.5 * l);
  EXPECT_TRUE(UnitDensityInertia(Cylinder{r, l}).diagonal().isApprox(cylinder, 1e-6));
  const Eigen::Vector3d sphere = SlicedInertia(
      [&](double z) { return std::sqrt(std::max(0.0, r * r - z * z)); }, -r, r);
  EXPECT_TRUE(UnitDensityInertia(Sphere{r}).diagonal().isApprox(sphere, 1e-6));
  EXPECT_NEAR(Volume(Capsule{r, l}),
              std::numbers::pi * r * r * l + 4.0 / 3.0 * std::numbers::pi * r * r * r,
              1e-15);
  // A spheroid (semi-axes r, r, c): circles of radius r √(1 − z²/c²).
  const double c = 0.25;
  const Eigen::Vector3d spheroid = SlicedInertia(
      [&](double z) { return r * std::sqrt(std::max(0.0, 1.0 - z * z / (c * c))); }, -c,
      c);
  EXPECT_TRUE(UnitDensityInertia(Ellipsoid{Eigen::Vector3d(r, r, c)})
                  .diagonal()
                  .isApprox(spheroid, 1e-6));
  EXPECT_NEAR(Volume(Ellipsoid{Eigen::Vector3d(r, 0.2, c)}),
              4.0 / 3.0 * std::numbers::pi * r * 0.2 * c, 1e-15);
}

TEST(Shape, RejectsNonPositiveDimensions) {
  EXPECT_THROW(ValidateShape(Sphere{-1.0}), std::invalid_argument);
  EXPECT_THROW(ValidateShape(Box{{1.0, 0.0, 1.0}}), std::invalid_argument);
  EXPECT_THROW(ValidateShape(Capsule{0.1, std::nan("")}), std::invalid_argument);
  CollisionWorld world;
  EXPECT_THROW(world.AddGeometry(Sphere{0.0}, 0, 0, Eigen::Isometry3d::Identity()),
               std::invalid_argument);
}

}  // namespace
}  // namespace coulomb

namespace coulomb {
namespace {

TEST(CollisionWorld, TiltedBoxReportsEachCornerAtItsOwnHeight) {
  // A 0.2 m cube tilted by θ about y, its lowest edge 1 mm into the ground:
  // the other bottom edge is 0.2 sin θ ≈ 1 mm higher, just touching. Both are
  // within the margin and each reports its own signed distance.
  const double theta = 0.005, margin = 0.01;
  CollisionWorld world;
  world.AddGeometry(HalfSpace{}, -1, 0, Eigen::Isometry3d::Identity());
  world.AddGeometry(Box{{0.2, 0.2, 0.2}}, 0, 0, Eigen::Isometry3d::Identity());
  Eigen::Isometry3d pose = Eigen::Isometry3d::Identity();
  pose.linear() = Eigen::AngleAxisd(theta, Eigen::Vector3d::UnitY()).toRotationMatrix();
  const double lowest =
      (pose.linear() * Eigen::Vector3d(0.1, 0, -0.1)).z();  // x > 0 dips
  pose.translation() = Eigen::Vector3d(0, 0, -lowest - 0.001);
  std::vector<ContactPoint> contacts;
  world.ComputeContacts({Eigen::Isometry3d::Identity(), pose}, margin, &contacts);
  ASSERT_EQ(contacts.size(), 4u);
  int low = 0, high = 0;
  for (const ContactPoint& c : contacts) {
    const Eigen::Vector3d in_box = pose.inverse() * c.p_W;
    const Eigen::Vector3d corner(in_box.x() > 0 ? 0.1 : -0.1, in_box.y(), -0.1);
    EXPECT_NEAR(c.phi, (pose * corner).z(), 1e-9);  // the ground is z = 0
    (in_box.x() > 0 ? low : high) += 1;
  }
  EXPECT_EQ(low, 2);
  EXPECT_EQ(high, 2);
}

// The same with the whole scene moved and turned (the ground a half-space
// that is no longer z ≤ 0, or a large box under the tilted one): each corner
// still reports its own height above the surface under it, measured in the
// scene's own frame. The plane a patch's points are refined against is
// found in world coordinates, so this checks its offset and orientation.
TEST(CollisionWorld, TiltedBoxCornersKeepTheirHeightsWhenTheSceneIsMoved) {
  const double theta = 0.005, margin = 0.01;
  Eigen::Isometry3d tilted = Eigen::Isometry3d::Identity();
  tilted.linear() = Eigen::AngleAxisd(theta, Eigen::Vector3d::UnitY()).toRotationMatrix();
  const double lowest = (tilted.linear() * Eigen::Vector3d(0.1, 0, -0.1)).z();
  Eigen::Isometry3d moved = Eigen::Isometry3d::Identity();
  moved.linear() = Eigen::AngleAxisd(0.7, Eigen::Vector3d(1.0, -2.0, 0.5).normalized())
                       .toRotationMatrix();
  moved.translation() = Eigen::Vector3d(3.0, -2.0, 5.0);
  for (const bool on_box : {false, true}) {
    // Under the tilted cube: the ground z ≤ 0, or a 1 × 1 × 0.2 box whose
    // top face is z = 0.
    const double top = 0.0;
    Eigen::Isometry3d X_SU = Eigen::Isometry3d::Identity();  // S: the scene
    if (on_box) X_SU.translation().z() = -0.1;
    Eigen::Isometry3d X_ST = tilted;
    X_ST.translation() = Eigen::Vector3d(0.05, -0.02, top - lowest - 0.001);
    CollisionWorld world;
    if (on_box) {
      world.AddGeometry(Box{{1.0, 1.0, 0.2}}, -1, 0, Eigen::Isometry3d::Identity());
    } else {
      world.AddGeometry(HalfSpace{}, -1, 0, Eigen::Isometry3d::Identity());
    }
    world.AddGeometry(Box{{0.2, 0.2, 0.2}}, 0, 0, Eigen::Isometry3d::Identity());
    std::vector<ContactPoint> contacts;
    world.ComputeContacts({moved * X_SU, moved * X_ST}, margin, &contacts);
    ASSERT_EQ(contacts.size(), 4u) << (on_box ? "on a box" : "on the ground");
    int low = 0, high = 0;
    for (const ContactPoint& c : contacts) {
      const Eigen::Vector3d in_cube = (moved * X_ST).inverse() * c.p_W;
      const Eigen::Vector3d corner(in_cube.x() > 0 ? 0.1 : -0.1, in_cube.y(), -0.1);
      EXPECT_NEAR(c.phi, (X_ST * corner).z() - top, 1e-9)
          << (on_box ? "on a box" : "on the ground");
      (in_cube.x() > 0 ? low : high) += 1;
    }
    EXPECT_EQ(low, 2);
    EXPECT_EQ(high, 2);
  }
}

// The same for a cylinder's flat cap: every patch point reports the height
// of its own point of the cap's rim plane, not the patch's deepest one
// (which let a heavy body on light dishes tilt them without a restoring
// torque and pump energy into the pile).
TEST(CollisionWorld, TiltedCylinderCapReportsEachPointAtItsOwnHeight) {
  const double theta = 0.004, radius = 0.1, length = 0.05, margin = 0.01;
  CollisionWorld world;
  world.AddGeometry(HalfSpace{}, -1, 0, Eigen::Isometry3d::Identity());
  world.AddGeometry(Cylinder{radius, length}, 0, 0, Eigen::Isometry3d::Identity());
  Eigen::Isometry3d pose = Eigen::Isometry3d::Identity();
  pose.linear() = Eigen::AngleAxisd(theta, Eigen::Vector3d::UnitY()).toRotationMatrix();
  const double lowest = (pose.linear() * Eigen::Vector3d(radius, 0, -0.5 * length)).z();
  pose.translation() = Eigen::Vector3d(0, 0, -lowest - 0.0005);
  std::vector<ContactPoint> contacts;
  world.ComputeContacts({Eigen::Isometry3d::Identity(), pose}, margin, &contacts);
  ASSERT_GE(contacts.size(), 3u);
  double min_phi = 1.0, max_phi = -1.0;
  for (const ContactPoint& c : contacts) {
    // The cap point below/above the contact point along the (vertical) normal.
    const Eigen::Vector3d in_cylinder = pose.inverse() * c.p_W;
    const Eigen::Vector3d on_cap(in_cylinder.x(), in_cylinder.y(), -0.5 * length);
    const Eigen::Vector3d cap_W = pose * on_cap;
    // φ = height of the cap above the ground along z, to first order in θ.
    EXPECT_NEAR(c.phi, cap_W.z(), 1e-6);
    min_phi = std::min(min_phi, c.phi);
    max_phi = std::max(max_phi, c.phi);
  }
  EXPECT_NEAR(min_phi, -0.0005, 1e-6);
  EXPECT_GT(max_phi - min_phi, 1.5 * radius * theta);  // the tilt shows
}

}  // namespace
}  // namespace coulomb
