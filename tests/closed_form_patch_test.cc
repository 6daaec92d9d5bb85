#include "coulomb/geometry/closed_form_patch.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <vector>

#include "coulomb/geometry/box_separation.h"
#include "coulomb/geometry/collision_world.h"
#include "coulomb/geometry/convex_mesh.h"
#include "coulomb/geometry/polytope_separation.h"
#include "coulomb/geometry/shape_signed_distance.h"
#include "test_polytopes.h"

namespace coulomb {
namespace {

constexpr double kMargin = 0.01;  // [m], the clutter's order of magnitude

Eigen::Isometry3d Pose(const Eigen::Vector3d& translation,
                       const Eigen::Matrix3d& rotation) {
  Eigen::Isometry3d pose = Eigen::Isometry3d::Identity();
  pose.linear() = rotation;
  pose.translation() = translation;
  return pose;
}

// Uniform numbers in [−1, 1), points and rotations, from one seeded generator.
// The order of a call's arguments is unspecified, so draws are never two
// arguments of one call: each is a statement of its own, and every compiler
// draws the same samples.
class RandomDraws {
 public:
  explicit RandomDraws(unsigned seed) : random_(seed) {}
  double Unit() { return unit_(random_); }
  Eigen::Vector3d Point(double half_width) {
    const double x = Unit(), y = Unit(), z = Unit();
    return half_width * Eigen::Vector3d(x, y, z);
  }
  Eigen::Matrix3d Rotation() {
    const double w = normal_(random_), x = normal_(random_), y = normal_(random_),
                 z = normal_(random_);
    return Eigen::Quaterniond(w, x, y, z).normalized().toRotationMatrix();
  }

 private:
  std::mt19937 random_;
  std::uniform_real_distribution<double> unit_{-1.0, 1.0};
  std::normal_distribution<double> normal_;
};

double Deepest(const std::vector<ContactPoint>& points) {
  double phi = INFINITY;
  for (const ContactPoint& point : points) phi = std::min(phi, point.phi);
  return phi;
}

// The greatest height along the unit n of a shape's points (a box, sphere,
// capsule, cylinder, ellipsoid or convex mesh); NaN for other shapes.
double ExtentAlong(const Shape& shape, const Eigen::Isometry3d& X_WS,
                   const Eigen::Vector3d& n) {
  if (const Box* box = std::get_if<Box>(&shape)) {
    return n.dot(X_WS.translation()) +
           0.5 * (X_WS.linear().transpose() * n).cwiseAbs().dot(box->size);
  }
  if (const Sphere* sphere = std::get_if<Sphere>(&shape))
    return n.dot(X_WS.translation()) + sphere->radius;
  if (const Capsule* capsule = std::get_if<Capsule>(&shape)) {
    return n.dot(X_WS.translation()) +
           0.5 * capsule->length * std::abs(n.dot(X_WS.linear().col(2))) +
           capsule->radius;
  }
  if (const Cylinder* cylinder = std::get_if<Cylinder>(&shape)) {
    const Eigen::Vector3d n_S = X_WS.linear().transpose() * n;  // axis along z
    return n.dot(X_WS.translation()) + 0.5 * cylinder->length * std::abs(n_S.z()) +
           cylinder->radius * n_S.head<2>().norm();
  }
  if (const Ellipsoid* ellipsoid = std::get_if<Ellipsoid>(&shape)) {
    return n.dot(X_WS.translation()) +
           ellipsoid->semi_axes.cwiseProduct(X_WS.linear().transpose() * n).norm();
  }
  const ConvexMesh* mesh = std::get_if<ConvexMesh>(&shape);
  if (mesh == nullptr) return NAN;
  double greatest = -INFINITY;
  for (const Eigen::Vector3d& vertex : mesh->hull->vertices)
    greatest = std::max(greatest, n.dot(X_WS * vertex));
  return greatest;
}

// How far apart two shapes are along the unit n (from A to B): B's least
// extent along n minus A's greatest, negative where they overlap along n.
// Every direction bounds the pair's distance from below (its deepest
// penetration from above), and the best direction attains it.
double SeparationAlong(const Shape& a, const Eigen::Isometry3d& X_WA, const Shape& b,
                       const Eigen::Isometry3d& X_WB, const Eigen::Vector3d& n) {
  return -ExtentAlong(b, X_WB, -n) - ExtentAlong(a, X_WA, n);
}

// Two shapes (A on a body or the world, B on a body), their contacts by the
// closed-form patch checked against Coal's GJK/EPA and contact patch:
// * the same normal, to 1e-3 (Coal's EPA leaves the normal of overlapping
//   boxes up to 3e-4 off);
// * a patch of several points (a face): the same points and φ, to 2e-4 m
//   (that normal error over a lever arm of 0.2 m);
// * a single point (spheres; two crossing edges, where Coal gives the
//   crossing or a segment through it): p ∓ φ/2 n on the surfaces of A and
//   B (their closest points), by the shapes' signed distance functions, to
//   1e-9 m (the closest points of nearly parallel edges lose digits as
//   1/sin² of their angle); Coal's φ may be deeper, a segment's ends being
//   measured to face planes.
class TwoShapes {
 public:
  TwoShapes(const Shape& shape_a, const Shape& shape_b)
      : shape_a_(shape_a), shape_b_(shape_b) {
    const int tree_a = std::holds_alternative<HalfSpace>(shape_a) ? -1 : 0;
    for (CollisionWorld* world : {&closed_form_, &coal_}) {
      world->AddGeometry(shape_a, tree_a, 0, Eigen::Isometry3d::Identity());
      world->AddGeometry(shape_b, 1, 0, Eigen::Isometry3d::Identity());
    }
    coal_.set_closed_form_patches(false);
  }

  // Coal's contact points alone, for a pair the closed form leaves to Coal
  // (the other world's contacts are then Coal's too).
  size_t CoalContacts(const Eigen::Isometry3d& X_WA, const Eigen::Isometry3d& X_WB) {
    coal_.ComputeContacts({X_WA, X_WB}, kMargin, &coal_points_);
    return coal_points_.size();
  }

  // Returns the number of contact points of the patch (more than one: a
  // face patch), without a far point.
  size_t ExpectAsCoal(const Eigen::Isometry3d& X_WA, const Eigen::Isometry3d& X_WB,
                      int trial) {
    closed_form_.ComputeContacts({X_WA, X_WB}, kMargin, &closed_form_points_);
    coal_.ComputeContacts({X_WA, X_WB}, kMargin, &coal_points_);
    EXPECT_EQ(closed_form_points_.empty(), coal_points_.empty()) << "trial " << trial;
    if (closed_form_points_.empty() || coal_points_.empty()) return 0;
    ExpectAndDropFarPoints(X_WA, X_WB, trial);
    ExpectSameNormal(X_WA, X_WB, trial);
    if (closed_form_points_.size() == 1) {
      const ContactPoint& point = closed_form_points_[0];
      ExpectOnBothSurfaces(point, X_WA, X_WB, trial);
      ExpectNoBetterDirection(point, X_WA, X_WB, trial);
      return 1;
    }
    EXPECT_EQ(closed_form_points_.size(), coal_points_.size()) << "trial " << trial;
    for (const ContactPoint& point : closed_form_points_) {
      const ContactPoint& match = Nearest(point.p_W, coal_points_);
      EXPECT_LT((point.p_W - match.p_W).norm(), PatchPointTolerance())
          << "trial " << trial;
      EXPECT_NEAR(point.phi, match.phi, 2e-4) << "trial " << trial;
    }
    return closed_form_points_.size();
  }

  // How many far points (ClosedFormPatch::far_depth) the closed form gave.
  int far_points() const { return far_points_; }

 private:
  // The far points among the closed form's contacts (those of
  // ClosedFormPatch::far_points_W that the world kept, which Coal does not
  // give: a tilted capsule's or cylinder's other cap, a box's vertices
  // beyond its support set), found by the closed form itself: each exact on
  // both surfaces along its own normal, more than the tolerance (1 mm)
  // above the patch's deepest point. They are dropped before the patch is
  // compared.
  void ExpectAndDropFarPoints(const Eigen::Isometry3d& X_WA,
                              const Eigen::Isometry3d& X_WB, int trial) {
    ClosedFormPatch patch;
    if (!CalcClosedFormPatch(shape_a_, X_WA, shape_b_, X_WB, 1e-3, &patch)) return;
    std::vector<ContactPoint> far_points;
    for (int k = 0; k < patch.num_far_points; ++k) {
      const auto same = std::find_if(
          closed_form_points_.begin(), closed_form_points_.end(),
          [&](const ContactPoint& point) {
            return (point.p_W - patch.far_points_W[k]).norm() < kRoundoff &&
                   (point.normal_W - patch.far_normals_W[k]).norm() < kRoundoff;
          });
      if (same == closed_form_points_.end()) continue;  // beyond the world's reach
      far_points.push_back(*same);
      closed_form_points_.erase(same);
    }
    far_points_ += static_cast<int>(far_points.size());
    for (const ContactPoint& far_point : far_points) {
      ExpectOnBothSurfaces(far_point, X_WA, X_WB, trial);
      EXPECT_GT(far_point.phi, Deepest(closed_form_points_) + 1e-3 - kRoundoff)
          << "trial " << trial;
    }
  }

  // The same normal to 1e-3, except for two polytopes (boxes, convex
  // meshes) whose normals tie: the closed form takes a face axis unless an
  // edge axis separates the shapes better by more than kEdgeAxisBias, so its
  // normal may separate them less well than Coal's by up to that much (no
  // more: Coal's direction cannot beat the best axis), and Coal's direction
  // may then be another axis's.
  void ExpectSameNormal(const Eigen::Isometry3d& X_WA, const Eigen::Isometry3d& X_WB,
                        int trial) const {
    const Eigen::Vector3d& closed_form = closed_form_points_[0].normal_W;
    const Eigen::Vector3d& coal = coal_points_[0].normal_W;
    const double shortfall = SeparationAlong(shape_a_, X_WA, shape_b_, X_WB, coal) -
                             SeparationAlong(shape_a_, X_WA, shape_b_, X_WB, closed_form);
    if (!std::isnan(shortfall)) {
      const double allowed = ClosedFormPatch::kEdgeAxisBias + kRoundoff;
      EXPECT_LT(shortfall, allowed) << "trial " << trial;
      if (std::abs(shortfall) < allowed) return;  // a tie: either normal is right
    }
    EXPECT_LT((closed_form - coal).norm(), 1e-3) << "trial " << trial;
  }
  static constexpr double kRoundoff = 1e-12;  // [m], in a separation of boxes of ~0.1 m

  // How far a face patch's points may lie from Coal's: 2e-4 m (above), and
  // for a capsule lying along a face, tilted by up to the patch tolerance
  // (1 mm) over its length, the distance between the two ends of its support
  // strip: the closed form takes each cap's extreme point, Coal the extreme
  // line of the cylinder, r × tilt apart.
  double PatchPointTolerance() const {
    double tolerance = 2e-4;
    for (const Shape* shape : {&shape_a_, &shape_b_}) {
      if (const Capsule* capsule = std::get_if<Capsule>(shape))
        tolerance += capsule->radius * 1e-3 / capsule->length;
    }
    return tolerance;
  }

  // A single point's φ is the shapes' separation along its own normal, and
  // no less than along Coal's (every direction bounds the signed distance
  // from below, and the closed form's attains it), where the separation is
  // computable (ExtentAlong); else no deeper than Coal's φ, to 1e-4 m.
  // (Coal's EPA, a polytope inside the Minkowski difference, may report an
  // overlap of curved shapes up to a millimetre shallower than along its
  // own normal.)
  void ExpectNoBetterDirection(const ContactPoint& point, const Eigen::Isometry3d& X_WA,
                               const Eigen::Isometry3d& X_WB, int trial) const {
    const double along_own =
        SeparationAlong(shape_a_, X_WA, shape_b_, X_WB, point.normal_W);
    if (std::isnan(along_own)) {
      EXPECT_GT(point.phi, Deepest(coal_points_) - 1e-4) << "trial " << trial;
      return;
    }
    EXPECT_NEAR(point.phi, along_own, 1e-9) << "trial " << trial;
    const double along_coal =
        SeparationAlong(shape_a_, X_WA, shape_b_, X_WB, coal_points_[0].normal_W);
    EXPECT_GT(point.phi, along_coal - 1e-9) << "trial " << trial;
  }

  void ExpectOnBothSurfaces(const ContactPoint& point, const Eigen::Isometry3d& X_WA,
                            const Eigen::Isometry3d& X_WB, int trial) const {
    Eigen::Vector3d gradient;
    const Eigen::Vector3d on_a = point.p_W - 0.5 * point.phi * point.normal_W;
    const Eigen::Vector3d on_b = point.p_W + 0.5 * point.phi * point.normal_W;
    EXPECT_NEAR(ShapeSignedDistance(shape_a_, X_WA.inverse() * on_a, &gradient), 0.0,
                1e-9)
        << "trial " << trial;
    EXPECT_NEAR(ShapeSignedDistance(shape_b_, X_WB.inverse() * on_b, &gradient), 0.0,
                1e-9)
        << "trial " << trial;
  }

  static const ContactPoint& Nearest(const Eigen::Vector3d& p_W,
                                     const std::vector<ContactPoint>& points) {
    const ContactPoint* nearest = &points[0];
    for (const ContactPoint& point : points) {
      if ((point.p_W - p_W).norm() < (nearest->p_W - p_W).norm()) nearest = &point;
    }
    return *nearest;
  }

  Shape shape_a_, shape_b_;
  CollisionWorld closed_form_, coal_;
  int far_points_ = 0;

  std::vector<ContactPoint> closed_form_points_, coal_points_;
};

TEST(ClosedFormPatch, AlignedStackedBoxesTouchAtTheCornersOfTheirOverlap) {
  // B (0.2 × 0.2 × 0.1) 3 mm above A's top face, offset so that their
  // footprints overlap on [0, 0.1] × [−0.05, 0.1].
  const Box box{Eigen::Vector3d(0.2, 0.2, 0.1)};
  const Eigen::Isometry3d X_WA =
      Pose(Eigen::Vector3d::Zero(), Eigen::Matrix3d::Identity());
  const Eigen::Isometry3d X_WB =
      Pose(Eigen::Vector3d(0.1, 0.05, 0.103), Eigen::Matrix3d::Identity());
  ClosedFormPatch patch;
  ASSERT_TRUE(CalcClosedFormPatch(box, X_WA, box, X_WB, 1e-3, &patch));
  EXPECT_TRUE(patch.normal_W.isApprox(Eigen::Vector3d::UnitZ(), 1e-15));
  EXPECT_NEAR(patch.depth, 0.003, 1e-15);
  ASSERT_EQ(patch.num_points, 4);
  for (int k = 0; k < 4; ++k) {
    const Eigen::Vector3d& p = patch.points_W[k];
    EXPECT_NEAR(p.z(), 0.0515, 1e-15);  // midway between the faces
    EXPECT_TRUE(std::abs(p.x()) < 1e-15 || std::abs(p.x() - 0.1) < 1e-15);
    EXPECT_TRUE(std::abs(p.y() + 0.05) < 1e-15 || std::abs(p.y() - 0.1) < 1e-15);
  }
}

TEST(ClosedFormPatch, MatchesCoalOnBoxesRestingOnEachOther) {
  RandomDraws draw(7);
  TwoShapes boxes(Box{Eigen::Vector3d(0.2, 0.3, 0.1)},
                  Box{Eigen::Vector3d(0.1, 0.1, 0.1)});
  int face_patches = 0;
  for (int trial = 0; trial < 200; ++trial) {
    const double x = draw.Unit(), y = draw.Unit();
    const Eigen::Isometry3d X_WA = Pose(Eigen::Vector3d(x, y, 0.0), draw.Rotation());
    // B on A's top face (+z of A), turned about that normal, a little
    // tilted, 5 mm into A to 5 mm above it.
    const double turn = M_PI * draw.Unit(), tilt = 0.02 * draw.Unit();
    const double axis_x = draw.Unit(), axis_y = draw.Unit();
    const Eigen::Vector3d tilt_axis = Eigen::Vector3d(axis_x, axis_y, 0.0).normalized();
    const Eigen::Matrix3d R_AB = (Eigen::AngleAxisd(turn, Eigen::Vector3d::UnitZ()) *
                                  Eigen::AngleAxisd(tilt, tilt_axis))
                                     .toRotationMatrix();
    const double p_x = 0.12 * draw.Unit(), p_y = 0.17 * draw.Unit(),
                 p_z = 0.05 + 0.05 + 0.005 * draw.Unit();
    const Eigen::Vector3d p_AB(p_x, p_y, p_z);
    face_patches += boxes.ExpectAsCoal(X_WA, X_WA * Pose(p_AB, R_AB), trial) > 1;
  }
  EXPECT_GT(face_patches, 180);       // B overhangs A's rim in a few
  EXPECT_GT(boxes.far_points(), 50);  // B's tilted base's vertices, touching A
}

TEST(ClosedFormPatch, MatchesCoalOnBoxesInAnyOrientation) {
  RandomDraws draw(11);
  TwoShapes boxes(Box{Eigen::Vector3d(0.2, 0.1, 0.1)},
                  Box{Eigen::Vector3d(0.1, 0.15, 0.05)});
  int edge_crossings = 0;
  for (int trial = 0; trial < 500; ++trial) {
    const Eigen::Isometry3d X_WA = Pose(Eigen::Vector3d::Zero(), draw.Rotation());
    const Eigen::Vector3d p_WB = draw.Point(0.2);
    const Eigen::Isometry3d X_WB = Pose(p_WB, draw.Rotation());
    edge_crossings += boxes.ExpectAsCoal(X_WA, X_WB, trial) == 1;
  }
  EXPECT_GT(edge_crossings, 100);
  EXPECT_GT(boxes.far_points(), 3);  // most pairs here overlap deeply
}

// Disjoint boxes within the margin, in any orientation: where their closest
// features lie on no separating axis (a vertex and an edge, two vertices),
// the patch is one point between the closest points, as Coal's GJK finds
// them. Each B is placed along a random direction from A at the centre
// distance where the separating-axis bound is 1–9 mm (by bisection); its
// true distance is at least that.
TEST(ClosedFormPatch, MatchesCoalOnDisjointBoxesWhoseClosestFeaturesAreOffTheAxes) {
  RandomDraws draw(13);
  const Eigen::Vector3d size_a(0.2, 0.1, 0.1), size_b(0.1, 0.15, 0.05);
  TwoShapes boxes(Box{size_a}, Box{size_b});
  int off_axis = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    const Eigen::Isometry3d X_WA = Pose(Eigen::Vector3d::Zero(), draw.Rotation());
    const Eigen::Matrix3d R_WB = draw.Rotation();
    const Eigen::Vector3d direction = draw.Point(1.0).normalized();
    const double gap = 0.005 + 0.004 * draw.Unit();
    const auto bound_at = [&](double t) {
      return BoxSeparationLowerBound(X_WA, 0.5 * size_a, Pose(t * direction, R_WB),
                                     0.5 * size_b);
    };
    double near = 0.0, far = 1.0;  // the bound at 1 m exceeds any gap here
    for (int k = 0; k < 60; ++k) {
      const double t = 0.5 * (near + far);
      (bound_at(t) < gap ? near : far) = t;
    }
    const Eigen::Isometry3d X_WB = Pose(far * direction, R_WB);
    boxes.ExpectAsCoal(X_WA, X_WB, trial);
    // Every such pair has a closed form (none is left to Coal).
    ClosedFormPatch patch;
    ASSERT_TRUE(CalcClosedFormPatch(Box{size_a}, X_WA, Box{size_b}, X_WB, 1e-3, &patch))
        << "trial " << trial;
    off_axis += patch.num_points == 1 && patch.depth > bound_at(far) + 1e-6;
  }
  EXPECT_GT(off_axis, 100);
  EXPECT_EQ(boxes.far_points(), 0);  // none while the boxes do not touch
}

// Spheres with spheres, boxes and the ground, and boxes and ellipsoids on
// the ground, in
// both orders (the normal from the first geometry into the second), at
// random poses from overlapping to just within the margin.
TEST(ClosedFormPatch, MatchesCoalOnSpheresAndOnTheGround) {
  RandomDraws draw(5);
  const Shape sphere = Sphere{0.05}, box = Box{Eigen::Vector3d(0.1, 0.2, 0.15)};
  const double ground_height = 0.3 * draw.Unit();
  const Eigen::Isometry3d ground =
      Pose(Eigen::Vector3d(0.0, 0.0, ground_height), draw.Rotation());
  struct Pair {
    Shape a, b;
    bool a_on_the_ground;
  };
  for (const Pair& pair :
       {Pair{sphere, sphere, false}, Pair{sphere, box, false}, Pair{box, sphere, false},
        Pair{HalfSpace{}, sphere, true}, Pair{HalfSpace{}, box, true},
        Pair{HalfSpace{}, Ellipsoid{Eigen::Vector3d(0.1, 0.05, 0.2)}, true}}) {
    TwoShapes shapes(pair.a, pair.b);
    int with_contacts = 0;
    for (int trial = 0; trial < 300; ++trial) {
      const Eigen::Isometry3d X_WA =
          pair.a_on_the_ground ? ground : Pose(Eigen::Vector3d::Zero(), draw.Rotation());
      // B's center within 0.15 m of A's (of the ground's origin) along each
      // axis, so that about half the trials touch.
      const Eigen::Vector3d offset = draw.Point(0.15);
      const Eigen::Isometry3d X_WB = Pose(X_WA.translation() + offset, draw.Rotation());
      with_contacts += shapes.ExpectAsCoal(X_WA, X_WB, trial) > 0;
    }
    EXPECT_GT(with_contacts, 50);
  }
}

// A height field's prism (a tilted triangle extruded down to a flat base:
// 8 triangles, its side faces split in two) and a tetrahedron.
Shape Prism() {
  return MakeConvexPolytope({{0, 0, 0.12},
                             {0.2, 0, 0.05},
                             {0, 0.2, 0.09},
                             {0, 0, -0.1},
                             {0.2, 0, -0.1},
                             {0, 0.2, -0.1}},
                            {{0, 1, 2},
                             {3, 5, 4},
                             {0, 3, 1},
                             {1, 3, 4},
                             {1, 4, 2},
                             {2, 4, 5},
                             {2, 5, 0},
                             {0, 5, 3}},
                            "prism");
}
Shape Tetrahedron() {
  return MakeConvexMesh({{0.1, 0, 0}, {-0.05, 0.09, 0}, {-0.05, -0.09, 0}, {0, 0, 0.15}},
                        "tetrahedron");
}
Eigen::Vector3d MiddleOf(const Shape& polytope) {
  const std::vector<Eigen::Vector3d>& vertices =
      std::get<ConvexMesh>(polytope).hull->vertices;
  Eigen::Vector3d middle = Eigen::Vector3d::Zero();
  for (const Eigen::Vector3d& vertex : vertices) middle += vertex / vertices.size();
  return middle;
}

// The two polytopes with a sphere in both orders, at random poses from the
// sphere's center inside the polytope to just within the margin: the closed
// form (a pass over the faces) against Coal's GJK/EPA. A hull of more than
// kMaxSmallHullFaces triangles is left to Coal.
TEST(ClosedFormPatch, MatchesCoalOnSpheresAndConvexPolytopes) {
  RandomDraws draw(23);
  const Shape sphere = Sphere{0.04};
  for (const Shape& polytope : {Prism(), Tetrahedron()}) {
    const Eigen::Vector3d middle = MiddleOf(polytope);
    for (const bool sphere_first : {false, true}) {
      TwoShapes shapes(sphere_first ? sphere : polytope,
                       sphere_first ? polytope : sphere);
      ClosedFormPatch patch;
      int with_contacts = 0, center_inside = 0;
      for (int trial = 0; trial < 400; ++trial) {
        const Eigen::Isometry3d X_WP = Pose(draw.Point(0.5), draw.Rotation());
        const Eigen::Vector3d center = X_WP * (middle + draw.Point(0.12));
        const Eigen::Isometry3d X_WS = Pose(center, draw.Rotation());
        const Eigen::Isometry3d& X_WA = sphere_first ? X_WS : X_WP;
        const Eigen::Isometry3d& X_WB = sphere_first ? X_WP : X_WS;
        ASSERT_TRUE(CalcClosedFormPatch(sphere_first ? sphere : polytope, X_WA,
                                        sphere_first ? polytope : sphere, X_WB, 1e-6,
                                        &patch));
        Eigen::Vector3d gradient;
        center_inside +=
            ShapeSignedDistance(polytope, X_WP.inverse() * center, &gradient) < 0.0;
        with_contacts += shapes.ExpectAsCoal(X_WA, X_WB, trial) > 0;
      }
      EXPECT_GT(with_contacts, 100);
      EXPECT_GT(center_inside, 10);
    }
  }
  ClosedFormPatch patch;
  EXPECT_FALSE(CalcClosedFormPatch(testing::TwelveGonPrism(),
                                   Eigen::Isometry3d::Identity(), sphere,
                                   Eigen::Isometry3d::Identity(), 1e-6, &patch));
}

// A shape (a box, a capsule) and the two polytopes in both orders, at
// random poses from the shape's center inside the polytope to just within
// the margin: the closed form (separating axes, support sets clipped on the
// contact plane) against Coal's GJK/EPA and patch, wherever it applies; it
// must apply to most of the pairs in contact (at random orientations: a
// vertex on a face, two crossing edges; faces resting on faces below).
void ExpectAsCoalAroundPolytopes(const Shape& shape, unsigned seed,
                                 double least_closed_form_share = 0.8) {
  RandomDraws draw(seed);
  for (const Shape& polytope : {Prism(), Tetrahedron()}) {
    const Eigen::Vector3d middle = MiddleOf(polytope);
    for (const bool shape_first : {false, true}) {
      TwoShapes shapes(shape_first ? shape : polytope, shape_first ? polytope : shape);
      int with_contacts = 0, closed_form = 0;
      for (int trial = 0; trial < 500; ++trial) {
        const Eigen::Isometry3d X_WP = Pose(draw.Point(0.5), draw.Rotation());
        const Eigen::Isometry3d X_WX =
            Pose(X_WP * Eigen::Vector3d(middle + draw.Point(0.15)), draw.Rotation());
        const Eigen::Isometry3d& X_WA = shape_first ? X_WX : X_WP;
        const Eigen::Isometry3d& X_WB = shape_first ? X_WP : X_WX;
        ClosedFormPatch patch;
        const bool applies =
            CalcClosedFormPatch(shape_first ? shape : polytope, X_WA,
                                shape_first ? polytope : shape, X_WB, 1e-6, &patch);
        const size_t num_points = applies ? shapes.ExpectAsCoal(X_WA, X_WB, trial)
                                          : shapes.CoalContacts(X_WA, X_WB);
        if (num_points == 0) continue;
        ++with_contacts;
        if (!applies) continue;
        ++closed_form;
        ASSERT_EQ(patch.num_points, 1) << "trial " << trial;
        // The point midway between the surfaces along the normal.
        Eigen::Vector3d gradient;
        const Eigen::Vector3d half_gap = 0.5 * patch.depth * patch.normal_W;
        const Shape& a = shape_first ? shape : polytope;
        const Shape& b = shape_first ? polytope : shape;
        EXPECT_NEAR(ShapeSignedDistance(
                        a, X_WA.inverse() * (patch.points_W[0] - half_gap), &gradient),
                    0.0, 1e-9)
            << "trial " << trial;
        EXPECT_NEAR(ShapeSignedDistance(
                        b, X_WB.inverse() * (patch.points_W[0] + half_gap), &gradient),
                    0.0, 1e-9)
            << "trial " << trial;
      }
      std::printf("%s: %d of %d pairs in contact in closed form\n",
                  ShapeName(shape).c_str(), closed_form, with_contacts);
      EXPECT_GT(with_contacts, 120);
      EXPECT_GT(closed_form, least_closed_form_share * with_contacts);
    }
  }
}

TEST(ClosedFormPatch, MatchesCoalOnBoxesAndConvexPolytopes) {
  ExpectAsCoalAroundPolytopes(Box{Eigen::Vector3d(0.1, 0.08, 0.06)}, 29);
}

TEST(ClosedFormPatch, MatchesCoalOnCapsulesAndConvexPolytopes) {
  ExpectAsCoalAroundPolytopes(Capsule{.radius = 0.03, .length = 0.1}, 37);
}

// An ellipsoid's closed form applies where a face of the polytope settles
// the pair, its extreme point over the face (apart) or deep enough inside
// (overlapping): at random poses about a prism, a third of the pairs in
// contact; about the tetrahedron, whose faces are small beside the
// ellipsoid, a sixth.
TEST(ClosedFormPatch, MatchesCoalOnEllipsoidsAndConvexPolytopes) {
  ExpectAsCoalAroundPolytopes(Ellipsoid{Eigen::Vector3d(0.06, 0.03, 0.045)}, 43, 0.12);
}

// An ellipsoid resting on the prism's tilted top face, turned at random,
// 5 mm into it to 5 mm above it, its lowest point over the face: the closed
// form applies and matches Coal. Moved beyond the face's rim until its
// lowest point is over an edge, it gives way to GJK/EPA.
TEST(ClosedFormPatch, AnEllipsoidOnAPrismsFaceIsSettledByThatFace) {
  RandomDraws draw(47);
  const Shape prism = Prism();
  const Ellipsoid ellipsoid{Eigen::Vector3d(0.03, 0.02, 0.025)};
  const ConvexHull& hull = *std::get<ConvexMesh>(prism).hull;
  const Eigen::Vector3d& top_normal = hull.face_normals[0];  // triangle {0, 1, 2}
  const Eigen::Vector3d top_middle =
      (hull.vertices[0] + hull.vertices[1] + hull.vertices[2]) / 3.0;
  TwoShapes shapes(prism, ellipsoid);
  ClosedFormPatch patch;
  int given_way = 0;
  for (int trial = 0; trial < 200; ++trial) {
    const Eigen::Isometry3d X_WP = Pose(draw.Point(0.5), draw.Rotation());
    const Eigen::Matrix3d R_PE = draw.Rotation();
    const double gap = 0.005 * draw.Unit();
    // The ellipsoid's extent along the normal puts its lowest point `gap`
    // above the face; its centre over the face's middle.
    const double extent =
        ellipsoid.semi_axes.cwiseProduct(R_PE.transpose() * top_normal).norm();
    const Eigen::Vector3d lowest_offset =
        -R_PE *
        ellipsoid.semi_axes.cwiseProduct(
            ellipsoid.semi_axes.cwiseProduct(R_PE.transpose() * top_normal)) /
        extent;
    const Eigen::Vector3d p_PE = top_middle - lowest_offset + gap * top_normal;
    const Eigen::Isometry3d X_WE = X_WP * Pose(p_PE, R_PE);
    ASSERT_TRUE(CalcClosedFormPatch(prism, X_WP, ellipsoid, X_WE, 1e-6, &patch))
        << "trial " << trial;
    EXPECT_NEAR(patch.depth, gap, 1e-12) << "trial " << trial;
    EXPECT_NEAR((patch.normal_W - X_WP.linear() * top_normal).norm(), 0.0, 1e-12);
    EXPECT_EQ(shapes.ExpectAsCoal(X_WP, X_WE, trial), 1u);
    // Slid along the face until the lowest point is 1 cm past the rim
    // (beyond vertex 0, away from the middle).
    const Eigen::Vector3d outward = (hull.vertices[0] - top_middle).normalized();
    const Eigen::Vector3d beyond =
        p_PE + ((hull.vertices[0] - top_middle).norm() + 0.01) * outward;
    const Eigen::Isometry3d X_WE_beyond = X_WP * Pose(beyond, R_PE);
    if (CalcClosedFormPatch(prism, X_WP, ellipsoid, X_WE_beyond, 1e-6, &patch)) {
      shapes.ExpectAsCoal(X_WP, X_WE_beyond, trial);  // a side face settles it
    } else {
      ++given_way;
    }
  }
  EXPECT_GT(given_way, 180);
}

// A box, or a capsule lying on its side, resting on the prism's tilted top
// face, turned about its normal, 5 mm into it to 5 mm above it, overhanging
// its rim in some trials: a face patch (a capsule's two cap points), as
// Coal's.
void ExpectRestingOnThePrismAsCoal(const Shape& shape, double half_height,
                                   const Eigen::Matrix3d& R_TS, unsigned seed) {
  RandomDraws draw(seed);
  const Shape prism = Prism();
  const ConvexHull& hull = *std::get<ConvexMesh>(prism).hull;
  const Eigen::Vector3d& top_normal = hull.face_normals[0];  // triangle {0, 1, 2}
  const Eigen::Vector3d top_middle =
      (hull.vertices[0] + hull.vertices[1] + hull.vertices[2]) / 3.0;
  const Eigen::Matrix3d R_PT =
      Eigen::Quaterniond::FromTwoVectors(Eigen::Vector3d::UnitZ(), top_normal)
          .toRotationMatrix();
  TwoShapes shapes(prism, shape);
  int face_patches = 0;
  for (int trial = 0; trial < 200; ++trial) {
    const Eigen::Isometry3d X_WP = Pose(draw.Point(0.5), draw.Rotation());
    const double turn = M_PI * draw.Unit(), x = 0.04 * draw.Unit(),
                 y = 0.04 * draw.Unit();
    const double gap = 0.005 * draw.Unit();
    const Eigen::Vector3d p_PS =
        top_middle + R_PT * Eigen::Vector3d(x, y, half_height + gap);
    const Eigen::Matrix3d R_PS =
        R_PT * Eigen::AngleAxisd(turn, Eigen::Vector3d::UnitZ()).toRotationMatrix() *
        R_TS;
    const Eigen::Isometry3d X_WS = X_WP * Pose(p_PS, R_PS);
    ClosedFormPatch patch;
    ASSERT_TRUE(CalcClosedFormPatch(prism, X_WP, shape, X_WS, 1e-6, &patch));
    face_patches += shapes.ExpectAsCoal(X_WP, X_WS, trial) > 1 && patch.num_points > 1;
  }
  EXPECT_GT(face_patches, 170);
}

// A box's separating axes with the prism, remembered from move to move
// (BoxPolytopeAxisMemory), against a test without memory at every pose:
// the same axis and separation bit for bit wherever the test does not stop
// early at the margin, and the same side of the margin where it does. The
// box starts about the prism's top, touching it within a few millimetres
// (or, without the stop, up to 30 cm above it), in any orientation (edge
// axes win too), and drifts steadily in 40 moves
// of 1 µm to 1 cm and 1 µrad to 10 mrad each: the memory must serve many
// moves and give way on others.
TEST(BoxPolytopeSeparatingAxis, ARememberedWinnerIsTheFullTestsBitForBit) {
  RandomDraws draw(53);
  const Shape prism = Prism();
  const ConvexHull& hull = *std::get<ConvexMesh>(prism).hull;
  const Eigen::Vector3d top_middle =
      (hull.vertices[0] + hull.vertices[1] + hull.vertices[2]) / 3.0;
  const Eigen::Vector3d half_extents(0.03, 0.025, 0.02);
  constexpr double kBias = ClosedFormPatch::kEdgeAxisBias;
  int moves = 0, remembered = 0, edge_winners = 0;
  for (int trial = 0; trial < 200; ++trial) {
    const Eigen::Isometry3d X_WP = Pose(draw.Point(0.5), draw.Rotation());
    PosedPolytope posed;
    ASSERT_TRUE(PosePolytope(hull, X_WP, &posed));
    const Eigen::Vector3d lateral = draw.Point(0.05);
    // A third of the trials starts up to 30 cm apart and tests every axis
    // (no stop at the margin).
    const bool far = trial % 3 == 2;
    const double stop_above = far ? std::numeric_limits<double>::infinity() : kMargin;
    const double height = far ? 0.18 + 0.12 * draw.Unit() : 0.035 + 0.01 * draw.Unit();
    Eigen::Isometry3d X_WA =
        X_WP *
        Pose(top_middle + lateral + height * hull.face_normals[0], draw.Rotation());
    // A steady drift and turn, so that the box crosses from one winning
    // axis to the next.
    const double step = std::pow(10.0, -4.0 + 2.0 * draw.Unit());  // 1 µm to 1 cm
    // Half the trials turn the box in place: its axes' turning alone moves
    // the separations then.
    const Eigen::Vector3d drift = trial % 2 == 0 ? Eigen::Vector3d(step * draw.Point(1.0))
                                                 : Eigen::Vector3d::Zero();
    const Eigen::Vector3d axis = draw.Point(1.0).normalized();
    const double turn = step * draw.Unit();
    BoxPolytopeAxisMemory memory;
    for (int move = 0; move < 40; ++move, ++moves) {
      X_WA = Pose(X_WA.translation() + drift,
                  Eigen::AngleAxisd(turn, axis).toRotationMatrix() * X_WA.linear());
      const BoxSeparation fresh =
          BoxPolytopeSeparatingAxis(X_WA, half_extents, posed, kBias, stop_above);
      const BoxPolytopeAxisMemory before = memory;
      const BoxSeparation kept = BoxPolytopeSeparatingAxis(X_WA, half_extents, posed,
                                                           kBias, stop_above, &memory);
      if (fresh.separation <= stop_above) {
        ASSERT_EQ(kept.separation, fresh.separation) << trial << ", " << move;
        ASSERT_EQ(kept.axis_W, fresh.axis_W) << trial << ", " << move;
      } else {
        ASSERT_GT(kept.separation, kMargin) << trial << ", " << move;
      }
      const bool served = before.valid && memory.R_PA == before.R_PA;  // left untouched
      remembered += served;
      edge_winners += served && !before.winner_is_face;
    }
  }
  EXPECT_GT(remembered, moves / 4);
  EXPECT_LT(remembered, moves * 3 / 4);
  EXPECT_GT(edge_winners, 0);
}

// The support function of each symmetric shape against the greatest n·x
// over points spread on its surface (SymmetricSupport): never below them,
// and within 1e-3 of the best for 20 000 of them.
TEST(PolytopeFaceGap, SymmetricSupportIsTheGreatestExtentOfTheSurface) {
  RandomDraws draw(61);
  const std::vector<Shape> shapes = {Sphere{0.04}, Box{Eigen::Vector3d(0.1, 0.06, 0.02)},
                                     Capsule{0.03, 0.08}, Cylinder{0.05, 0.03},
                                     Ellipsoid{Eigen::Vector3d(0.07, 0.03, 0.05)}};
  // A point on the surface from a direction u (unit) and a parameter t.
  const auto surface_point = [](const Shape& shape, const Eigen::Vector3d& u, double t) {
    if (const auto* sphere = std::get_if<Sphere>(&shape))
      return Eigen::Vector3d(sphere->radius * u);
    if (const auto* box = std::get_if<Box>(&shape))
      return Eigen::Vector3d(0.5 * box->size.cwiseProduct(u.array().sign().matrix()));
    if (const auto* capsule = std::get_if<Capsule>(&shape)) {
      const double end = t < 0 ? -0.5 : 0.5;
      return Eigen::Vector3d(capsule->radius * u +
                             Eigen::Vector3d(0, 0, end * capsule->length));
    }
    if (const auto* cylinder = std::get_if<Cylinder>(&shape)) {
      const Eigen::Vector2d rim = u.head<2>().normalized() * cylinder->radius;
      return Eigen::Vector3d(rim.x(), rim.y(),
                             0.5 * cylinder->length * (t < 0 ? -1.0 : 1.0));
    }
    return Eigen::Vector3d(std::get<Ellipsoid>(shape).semi_axes.cwiseProduct(u));
  };
  for (const Shape& shape : shapes) {
    for (int trial = 0; trial < 20; ++trial) {
      const Eigen::Vector3d n = draw.Point(1.0).normalized();
      const double support = SymmetricSupport(shape, n);
      double greatest = -INFINITY;
      for (int k = 0; k < 20000; ++k) {
        const Eigen::Vector3d u = draw.Point(1.0).normalized();
        const double t = draw.Unit();
        greatest = std::max(greatest, n.dot(surface_point(shape, u, t)));
      }
      EXPECT_LE(greatest, support + 1e-12) << ShapeName(shape) << " " << trial;
      EXPECT_GT(greatest, support - 1e-3) << ShapeName(shape) << " " << trial;
    }
  }
  EXPECT_TRUE(std::isnan(SymmetricSupport(Prism(), Eigen::Vector3d::UnitZ())));
}

// PolytopeFaceGap bounds the distance of a sphere, a cylinder or an
// ellipsoid from the prism and the tetrahedron from below: never above
// Coal's GJK distance (at random poses where the shapes are at least 1 mm
// apart, through a world without the closed forms and a margin of 1 m, so
// that no gap drops the pair; to Coal's tolerance: its GJK reports a
// cylinder's distance up to 4e-7 m short), and equal to the distance of a
// sphere above the middle of the prism's top face. PolytopeCentreAxisGap
// too, and equal to a sphere's distance wherever it is.
TEST(PolytopeFaceGap, NeitherItNorTheCentreAxisGapExceedsTheDistance) {
  constexpr double kGjkTolerance = 1e-6;
  // Coal's GJK reports a cylinder's distance from the polytope up to
  // 5e-4 m short where the cylinder's rim is nearest along no face normal
  // (trial 47: 0.14062 m against 0.14110 m by the centre axis, a lower bound,
  // and 0.14116 m by the least distance of 200 000 points sampled on the
  // cylinder's surface).
  constexpr double kGjkCylinderRimError = 1e-3;
  RandomDraws draw(67);
  const std::vector<Shape> shapes = {Sphere{0.04}, Cylinder{0.05, 0.03},
                                     Ellipsoid{Eigen::Vector3d(0.07, 0.03, 0.05)}};
  int separated = 0, tight = 0, centre_axis_better = 0;
  for (const Shape& polytope : {Prism(), Tetrahedron()}) {
    const ConvexHull& hull = *std::get<ConvexMesh>(polytope).hull;
    for (const Shape& shape : shapes) {
      CollisionWorld world;
      world.AddGeometry(polytope, 0, 0, Eigen::Isometry3d::Identity());
      world.AddGeometry(shape, 1, 0, Eigen::Isometry3d::Identity());
      world.set_closed_form_patches(false);
      std::vector<ContactPoint> contacts;
      for (int trial = 0; trial < 200; ++trial) {
        const Eigen::Isometry3d X_WP = Pose(draw.Point(0.3), draw.Rotation());
        const Eigen::Isometry3d X_WS =
            Pose(X_WP * MiddleOf(polytope) + draw.Point(0.25), draw.Rotation());
        PosedPolytope placed;
        ASSERT_TRUE(PlacePolytope(hull, X_WP, &placed));
        const double gap = PolytopeFaceGap(shape, X_WS, placed);
        const double centre_gap = PolytopeCentreAxisGap(shape, X_WS, placed);
        world.ComputeContacts({X_WP, X_WS}, 1.0, &contacts);
        if (contacts.empty() || Deepest(contacts) < 1e-3) continue;
        ++separated;
        const double distance = Deepest(contacts);
        EXPECT_LE(gap, distance + kGjkTolerance) << ShapeName(shape) << " " << trial;
        const bool cylinder = std::holds_alternative<Cylinder>(shape);
        EXPECT_LE(centre_gap,
                  distance + (cylinder ? kGjkCylinderRimError : kGjkTolerance))
            << ShapeName(shape) << " " << trial;
        tight += gap > distance - 1e-6;
        // A sphere's centre axis is its closest points' line.
        if (std::holds_alternative<Sphere>(shape)) {
          EXPECT_NEAR(centre_gap, distance, kGjkTolerance) << trial;
        } else {
          centre_axis_better += centre_gap > gap + 1e-3;
        }
      }
    }
  }
  EXPECT_GT(separated, 300);
  EXPECT_GT(tight, 10);  // a face's plane is often the closest feature
  // Beyond an edge or a vertex the centre axis bounds a cylinder's or an
  // ellipsoid's distance better than every face normal, often (by more than
  // 1 mm for 497 of them here; 1 103 pairs apart of the three shapes).
  EXPECT_GT(centre_axis_better, 300);
  const Shape prism_shape = Prism();
  const ConvexHull& prism = *std::get<ConvexMesh>(prism_shape).hull;
  const Eigen::Vector3d top_middle =
      (prism.vertices[0] + prism.vertices[1] + prism.vertices[2]) / 3.0;
  PosedPolytope placed;
  ASSERT_TRUE(PlacePolytope(prism, Eigen::Isometry3d::Identity(), &placed));
  const Eigen::Isometry3d X_WS =
      Pose(top_middle + 0.07 * prism.face_normals[0], Eigen::Matrix3d::Identity());
  EXPECT_NEAR(PolytopeFaceGap(Sphere{0.04}, X_WS, placed), 0.03, 1e-12);
}

TEST(ClosedFormPatch, MatchesCoalOnABoxRestingOnAPrism) {
  ExpectRestingOnThePrismAsCoal(Box{Eigen::Vector3d(0.06, 0.05, 0.04)}, 0.02,
                                Eigen::Matrix3d::Identity(), 31);
}

TEST(ClosedFormPatch, MatchesCoalOnACapsuleLyingOnAPrism) {
  ExpectRestingOnThePrismAsCoal(
      Capsule{.radius = 0.02, .length = 0.05}, 0.02,
      Eigen::AngleAxisd(M_PI / 2, Eigen::Vector3d::UnitX()).toRotationMatrix(), 41);
}

// A capsule on the ground, lying nearly flat (both ends' caps touch: two
// points) or tilted (one), resting 5 mm into the ground to 5 mm above it,
// and in any orientation: the closed form against Coal's patch.
TEST(ClosedFormPatch, MatchesCoalOnCapsulesOnTheGround) {
  RandomDraws draw(17);
  TwoShapes shapes(HalfSpace{}, Capsule{0.035, 0.3});
  int two_points = 0, one_point = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const Eigen::Isometry3d X_WA =
        Pose(Eigen::Vector3d::Zero(), Eigen::Matrix3d::Identity());
    // The axis along x turned about z, then tilted by up to 0.2 rad (half
    // the trials) or any orientation.
    Eigen::Matrix3d R_WB;
    if (trial % 2 == 0) {
      const double tilt_scale = draw.Unit(),
                   tilt = 0.2 * tilt_scale * std::abs(tilt_scale);
      const double turn = M_PI * draw.Unit();
      R_WB = Eigen::AngleAxisd(turn, Eigen::Vector3d::UnitZ()) *
             Eigen::AngleAxisd(0.5 * M_PI + tilt, Eigen::Vector3d::UnitY());
    } else {
      R_WB = draw.Rotation();
    }
    const double lowest_end = std::abs(R_WB(2, 2)) * 0.15;
    const double height = 0.035 + lowest_end + 0.005 * draw.Unit();
    const double x = draw.Unit(), y = draw.Unit();
    const Eigen::Isometry3d X_WB = Pose(Eigen::Vector3d(x, y, height), R_WB);
    const size_t points = shapes.ExpectAsCoal(X_WA, X_WB, trial);
    two_points += points == 2;
    one_point += points == 1;
  }
  EXPECT_GT(two_points, 20);
  EXPECT_GT(one_point, 100);
  EXPECT_GT(shapes.far_points(), 20);  // the other cap within the margin
}

// A cylinder on the ground, standing on a cap (tilted by up to 0.06 rad),
// lying on its side (tilted by up to 0.2 rad) or in any orientation, 5 mm
// into the ground to 5 mm above it. Its deepest φ is its lowest point's
// height (ExtentAlong), and every contact, in the patch or a far point, is
// exact: φ/2 below it on the ground, φ/2 above it on the cylinder's surface
// (ShapeSignedDistance). Where both rules for a support set agree the
// patch, far points dropped (TwoShapes), is Coal's; they differ in two
// bands: a cap's whole rim is taken here while r s ≤ 1 mm (s the sine of
// the axis's angle to the normal), by Coal while r s (1 + s) ≤ 1 mm; and a
// cap's lowest point is taken while it is within 1 mm of the lowest, Coal's
// point on that cap lying r s (1 − s) higher (it is r s from the axis, not
// r).
TEST(ClosedFormPatch, MatchesCoalOnCylindersOnTheGround) {
  constexpr double kTolerance = 1e-3;  // CollisionWorld's patch tolerance [m]
  RandomDraws draw(23);
  const Cylinder cylinder{.radius = 0.04, .length = 0.25};
  TwoShapes shapes(HalfSpace{}, cylinder);
  CollisionWorld world;
  world.AddGeometry(HalfSpace{}, -1, 0, Eigen::Isometry3d::Identity());
  world.AddGeometry(cylinder, 1, 0, Eigen::Isometry3d::Identity());
  std::vector<ContactPoint> contacts;
  std::array<int, 9> patches_of_size{};
  for (int trial = 0; trial < 600; ++trial) {
    const double tilt_scale = draw.Unit(), turn = M_PI * draw.Unit();
    const Eigen::Matrix3d turned =
        Eigen::AngleAxisd(turn, Eigen::Vector3d::UnitZ()).toRotationMatrix();
    Eigen::Matrix3d R_WB = draw.Rotation();
    if (trial % 3 == 0) {
      R_WB = turned * Eigen::AngleAxisd(0.06 * tilt_scale, Eigen::Vector3d::UnitY());
    } else if (trial % 3 == 1) {
      const double tilt = 0.2 * tilt_scale * std::abs(tilt_scale);
      R_WB = turned * Eigen::AngleAxisd(0.5 * M_PI + tilt, Eigen::Vector3d::UnitY());
    }
    const double x = draw.Unit(), y = draw.Unit(), sink = 0.005 * draw.Unit();
    Eigen::Isometry3d X_WB = Pose(Eigen::Vector3d(x, y, 0.0), R_WB);
    const double lowest = -ExtentAlong(cylinder, X_WB, -Eigen::Vector3d::UnitZ());
    X_WB.translation().z() = sink - lowest;

    world.ComputeContacts({Eigen::Isometry3d::Identity(), X_WB}, kMargin, &contacts);
    ASSERT_FALSE(contacts.empty()) << "trial " << trial;
    EXPECT_NEAR(Deepest(contacts), sink, 1e-9) << "trial " << trial;
    Eigen::Vector3d gradient;
    for (const ContactPoint& point : contacts) {
      EXPECT_NEAR(point.p_W.z() - 0.5 * point.phi, 0.0, 1e-9) << "trial " << trial;
      const Eigen::Vector3d on_cylinder = point.p_W + 0.5 * point.phi * point.normal_W;
      EXPECT_NEAR(ShapeSignedDistance(cylinder, X_WB.inverse() * on_cylinder, &gradient),
                  0.0, 1e-9)
          << "trial " << trial;
    }

    const Eigen::Vector3d axis = R_WB.col(2);
    const double sine = axis.cross(Eigen::Vector3d::UnitZ()).norm();
    const double rim_span = cylinder.radius * sine;
    const double caps_apart = cylinder.length * std::abs(axis.z());
    const bool rim_rules_differ =
        rim_span <= kTolerance && rim_span * (1.0 + sine) > kTolerance;
    const bool cap_rules_differ =
        caps_apart <= kTolerance && caps_apart + rim_span * (1.0 - sine) > kTolerance;
    if (rim_rules_differ || cap_rules_differ) continue;
    ++patches_of_size[std::min<size_t>(
        shapes.ExpectAsCoal(Eigen::Isometry3d::Identity(), X_WB, trial), 8)];
  }
  EXPECT_GT(patches_of_size[8], 50);  // standing on a cap
  EXPECT_GT(patches_of_size[2], 20);  // lying on its side
  EXPECT_GT(patches_of_size[1], 200);
  EXPECT_GT(shapes.far_points(), 100);  // the other cap, the far side of the rim
}

// A box on the ground in any orientation, its lowest vertex 5 mm into the
// ground to 5 mm above it, within a margin of 1 cm or 5 cm, at rest or
// moving (its points by up to 1 cm down and 2 cm by its turn over the
// look-ahead): its contacts are its vertices that may close their gap, each
// once, at its own height (the points midway between the vertex and the
// ground), in the support set's patch or beyond it as far points. A vertex
// may close its gap when it lies within the margin and the box's reach
// (1 cm + 2 cm) of the ground, and within the margin and twice the turn of
// the lowest vertex (the vertices translate alike). The vertices are
// enumerated here from the pose, ±h along each axis.
// A box tilted at random near the top face (z = 0) of `base` (the ground,
// or a box wide enough that the tilted box never overhangs it), added to
// the world before or after it: each of its vertices within the margin plus
// the look-ahead (and within the margin plus twice its turn above the
// lowest, FarPointReach) touches by exactly one contact at its own exact
// gap, its height, whether in the patch or a far point, and no other
// contact is reported. The box's vertices on the face of a box in either
// order: the face belongs to A or to B; there the far points are given
// only while the boxes touch (the lowest vertex within the 1 mm tolerance),
// and only for vertices outside the box below.
void ExpectEachVertexWithinTheMarginToTouch(const Shape& base, bool tilted_box_first) {
  RandomDraws draw(29);
  const Box box{Eigen::Vector3d(0.1, 0.2, 0.05)};
  const Eigen::Isometry3d X_WBase =
      std::holds_alternative<Box>(base)
          ? Pose(Eigen::Vector3d(0, 0, -0.5 * std::get<Box>(base).size.z()),
                 Eigen::Matrix3d::Identity())
          : Eigen::Isometry3d::Identity();
  CollisionWorld world;
  const int tilted = tilted_box_first ? 0 : 1;
  for (int g = 0; g < 2; ++g) {
    if (g == tilted) {
      world.AddGeometry(box, 1, 0, Eigen::Isometry3d::Identity());
    } else {
      world.AddGeometry(base, -1, 0, X_WBase);
    }
  }
  std::vector<ContactPoint> contacts;
  int far_contacts = 0, tilted_as_a = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const double margin = trial % 2 == 0 ? 0.01 : 0.05;
    // Half the trials near a face, an edge or a vertex resting flat.
    const Eigen::Matrix3d R_WB =
        trial % 4 < 2
            ? draw.Rotation()
            : Eigen::Matrix3d(
                  Eigen::AngleAxisd(0.02 * draw.Unit(), Eigen::Vector3d::UnitX()) *
                  Eigen::AngleAxisd(0.02 * draw.Unit(), Eigen::Vector3d::UnitY()));
    std::array<Eigen::Vector3d, 8> vertices_B;
    for (int k = 0; k < 8; ++k) {
      for (int j = 0; j < 3; ++j)
        vertices_B[k][j] = ((k >> j & 1) ? 0.5 : -0.5) * box.size[j];
    }
    double lowest = INFINITY;
    for (const Eigen::Vector3d& vertex : vertices_B)
      lowest = std::min(lowest, (R_WB * vertex).z());
    const Eigen::Vector3d position(draw.Unit(), draw.Unit(),
                                   0.005 * draw.Unit() - lowest);
    const Eigen::Isometry3d X_WB = Pose(position, R_WB);
    std::vector<GeometryMotion> motion(2);
    if (trial % 3 == 0)
      motion[tilted] = {.translation = Eigen::Vector3d(0, 0, -0.01), .turn = 0.02};
    std::vector<Eigen::Isometry3d> X_WG(2, X_WBase);
    X_WG[tilted] = X_WB;
    world.ComputeContacts(X_WG, margin, &contacts, motion);
    const double lowest_vertex = position.z() + lowest;
    int within = 0;
    for (const Eigen::Vector3d& vertex_B : vertices_B) {
      const Eigen::Vector3d vertex = X_WB * vertex_B;
      if (!(vertex.z() < margin + motion[tilted].reach() &&
            vertex.z() - lowest_vertex < margin + 2.0 * motion[tilted].turn))
        continue;
      const bool far = vertex.z() > lowest_vertex + 1e-3;
      if (far && std::holds_alternative<Box>(base) &&
          !(lowest_vertex < 1e-3 && vertex.z() > 0.0)) {
        continue;
      }
      ++within;
      int found = 0;
      for (const ContactPoint& contact : contacts) {
        const double towards_box = contact.geometry_b == tilted ? 0.5 : -0.5;
        const Eigen::Vector3d on_box =
            contact.p_W + towards_box * contact.phi * contact.normal_W;
        if ((on_box - vertex).norm() > 1e-9) continue;
        ++found;
        EXPECT_NEAR(contact.phi, vertex.z(), 1e-9) << "trial " << trial;
        EXPECT_NEAR(contact.p_W.z(), 0.5 * vertex.z(), 1e-9) << "trial " << trial;
      }
      EXPECT_EQ(found, 1) << "trial " << trial;
      far_contacts += far;
    }
    EXPECT_EQ(static_cast<int>(contacts.size()), within) << "trial " << trial;
    tilted_as_a += !contacts.empty() && contacts[0].geometry_a == tilted;
  }
  EXPECT_GT(far_contacts, 100);
  // The order the world reports the pair in: the base's face is B's here.
  if (tilted_box_first && std::holds_alternative<Box>(base)) {
    EXPECT_GT(tilted_as_a, 100);
  }
}

// A far-point reach leaves out exactly the far points more than it above
// the patch's depth: against the same call without a reach, on boxes,
// capsules and cylinders tipping on the ground and on a box, the patch is
// the same and the far points are those of the unlimited call within the
// reach (to round-off at its boundary).
TEST(ClosedFormPatch, FarPointsBeyondTheReachAreLeftOut) {
  RandomDraws draw(31);
  const Box box{Eigen::Vector3d(0.1, 0.2, 0.05)};
  const std::vector<Shape> shapes = {box, Capsule{0.03, 0.2}, Cylinder{0.04, 0.1}};
  constexpr double kTolerance = 1e-3, kRoundoff = 1e-12;
  std::array<int, 3> kept{}, left_out{};  // by shape
  for (int trial = 0; trial < 600; ++trial) {
    const Shape& shape = shapes[trial % 3];
    const bool on_a_box = trial % 6 == 0;  // boxes only: trial % 3 == 0
    const Shape base =
        on_a_box ? Shape{Box{Eigen::Vector3d(3.0, 3.0, 0.2)}} : Shape{HalfSpace{}};
    const Eigen::Isometry3d X_WBase =
        on_a_box ? Pose(Eigen::Vector3d(0, 0, -0.1), Eigen::Matrix3d::Identity())
                 : Eigen::Isometry3d::Identity();
    // Tilted by up to 0.6 rad from resting on a face, or from standing on a
    // cap or lying on a side (every other trial).
    const double about_x = 0.6 * draw.Unit(), about_y = 0.6 * draw.Unit();
    const double lying = (trial / 3) % 2 == 1 ? 0.5 * M_PI : 0.0;
    const Eigen::Matrix3d R_WS =
        Eigen::Matrix3d(Eigen::AngleAxisd(about_x, Eigen::Vector3d::UnitX()) *
                        Eigen::AngleAxisd(about_y, Eigen::Vector3d::UnitY()) *
                        Eigen::AngleAxisd(lying, Eigen::Vector3d::UnitX()));
    const double height = 0.2 + 0.005 * draw.Unit();
    Eigen::Isometry3d X_WS = Pose(Eigen::Vector3d(0, 0, height), R_WS);
    ClosedFormPatch unlimited;
    ASSERT_TRUE(CalcClosedFormPatch(base, X_WBase, shape, X_WS, kTolerance, &unlimited));
    X_WS.translation().z() -= unlimited.depth + 0.002 * draw.Unit();  // down to it
    ASSERT_TRUE(CalcClosedFormPatch(base, X_WBase, shape, X_WS, kTolerance, &unlimited));
    const double reach = 0.002 + 0.1 * std::abs(draw.Unit());
    ClosedFormPatch limited;
    ASSERT_TRUE(
        CalcClosedFormPatch(base, X_WBase, shape, X_WS, kTolerance, &limited, reach));
    ASSERT_EQ(limited.num_points, unlimited.num_points) << "trial " << trial;
    EXPECT_EQ(limited.depth, unlimited.depth) << "trial " << trial;
    for (int i = 0; i < limited.num_points; ++i)
      EXPECT_EQ(limited.points_W[i], unlimited.points_W[i]) << "trial " << trial;
    int found = 0;
    for (int k = 0; k < unlimited.num_far_points; ++k) {
      const double rise = unlimited.far_depths[k] - unlimited.depth;
      bool in_limited = false;
      for (int j = 0; j < limited.num_far_points; ++j) {
        in_limited |= limited.far_points_W[j] == unlimited.far_points_W[k] &&
                      limited.far_normals_W[j] == unlimited.far_normals_W[k] &&
                      limited.far_depths[j] == unlimited.far_depths[k];
      }
      found += in_limited;
      if (std::abs(rise - reach) < kRoundoff) continue;
      EXPECT_EQ(in_limited, rise < reach) << "trial " << trial << ", rise " << rise;
      (rise < reach ? kept : left_out)[trial % 3] += 1;
    }
    EXPECT_EQ(found, limited.num_far_points) << "trial " << trial;
  }
  for (int shape = 0; shape < 3; ++shape) {
    EXPECT_GT(kept[shape], 20) << "shape " << shape;
    EXPECT_GT(left_out[shape], 20) << "shape " << shape;
  }
}

TEST(ClosedFormPatch, ABoxOnTheGroundTouchesWithEachVertexWithinTheMargin) {
  ExpectEachVertexWithinTheMarginToTouch(HalfSpace{}, false);
}

TEST(ClosedFormPatch, ABoxOnAWideBoxTouchesWithEachVertexWithinTheMargin) {
  const Box wide{Eigen::Vector3d(3.0, 3.0, 0.2)};
  ExpectEachVertexWithinTheMarginToTouch(wide, false);
  ExpectEachVertexWithinTheMarginToTouch(wide, true);
}

}  // namespace
}  // namespace coulomb
