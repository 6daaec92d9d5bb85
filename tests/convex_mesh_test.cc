// Convex meshes: hulls of mesh files, their mass properties against the
// closed forms of the primitives they reproduce, and their contacts.
#include "coulomb/geometry/convex_mesh.h"

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>

#include <gtest/gtest.h>

#include "coulomb/geometry/box_separation.h"
#include "coulomb/geometry/collision_world.h"
#include "coulomb/geometry/height_field.h"
#include "test_polytopes.h"
#include "test_support.h"

namespace coulomb {
namespace {

namespace fs = std::filesystem;

// Writes an OBJ file with the given vertices (and one dummy face).
fs::path WriteObj(const std::string& name, const std::vector<Eigen::Vector3d>& vertices) {
  const fs::path path =
      fs::temp_directory_path() / (name + "_" + std::to_string(getpid()) + ".obj");
  std::ofstream file(path);
  for (const Eigen::Vector3d& v : vertices)
    file << "v " << v.x() << " " << v.y() << " " << v.z() << "\n";
  for (size_t k = 2; k < vertices.size(); ++k)
    file << "f 1 " << k << " " << k + 1 << "\n";
  return path;
}

// The corners of a box of the given size centred at `center`, and its centre
// (an interior point the hull must drop).
std::vector<Eigen::Vector3d> BoxPoints(const Eigen::Vector3d& size,
                                       const Eigen::Vector3d& center) {
  std::vector<Eigen::Vector3d> points;
  for (int corner = 0; corner < 8; ++corner) {
    const Eigen::Vector3d sign(corner & 1 ? 1 : -1, corner & 2 ? 1 : -1,
                               corner & 4 ? 1 : -1);
    points.push_back(center + 0.5 * size.cwiseProduct(sign));
  }
  points.push_back(center);
  return points;
}

TEST(ConvexMesh, HullOfABoxFileHasTheBoxsVolumeCentroidAndInertia) {
  const Eigen::Vector3d size(0.2, 0.4, 0.6), center(1.0, -2.0, 0.5);
  const fs::path file = WriteObj("box", BoxPoints(size, center));
  const ConvexMesh mesh = LoadConvexMesh(file.string(), Eigen::Vector3d(2.0, 1.0, 0.5));
  fs::remove(file);
  // Scaled per axis: a 0.4 × 0.4 × 0.3 box centred at (2, −2, 0.25). Assimp
  // reads vertices in single precision: agreement to ~1e-7.
  const Box box{Eigen::Vector3d(0.4, 0.4, 0.3)};
  EXPECT_EQ(mesh.hull->vertices.size(), 8u);
  EXPECT_NEAR(Volume(mesh), Volume(box), 1e-6 * Volume(box));
  EXPECT_TRUE(Centroid(mesh).isApprox(Eigen::Vector3d(2.0, -2.0, 0.25), 1e-6));
  EXPECT_TRUE(UnitDensityInertia(mesh).isApprox(UnitDensityInertia(box), 1e-6))
      << UnitDensityInertia(mesh);
  EXPECT_NEAR(BoundingRadius(mesh), Eigen::Vector3d(2.2, 2.2, 0.4).norm(), 1e-6);
}

TEST(ConvexMesh, HullOfATetrahedronMatchesItsClosedForm) {
  // Corner tetrahedron 0, a e_x, a e_y, a e_z: V = a³/6, centroid a/4 (1, 1, 1),
  // ∫x² = a⁵/60, ∫x y = a⁵/120.
  const double a = 0.3;
  const ConvexMesh mesh =
      MakeConvexMesh({Eigen::Vector3d::Zero(), a * Eigen::Vector3d::UnitX(),
                      a * Eigen::Vector3d::UnitY(), a * Eigen::Vector3d::UnitZ()},
                     "tetrahedron");
  const double volume = a * a * a / 6.0;
  EXPECT_NEAR(Volume(mesh), volume, 1e-15);
  const Eigen::Vector3d c = Eigen::Vector3d::Constant(a / 4.0);
  EXPECT_TRUE(Centroid(mesh).isApprox(c, 1e-12));
  Eigen::Matrix3d second = Eigen::Matrix3d::Constant(std::pow(a, 5) / 120.0);
  second.diagonal().setConstant(std::pow(a, 5) / 60.0);
  second -= volume * c * c.transpose();
  const Eigen::Matrix3d expected = second.trace() * Eigen::Matrix3d::Identity() - second;
  EXPECT_TRUE(UnitDensityInertia(mesh).isApprox(expected, 1e-12));
  // All three in one pass over the hull, as a free body of it takes them.
  const UnitDensityMass unit = UnitDensityMassProperties(mesh);
  EXPECT_EQ(unit.volume, Volume(mesh));  // a body's mass / volume as a scene's density
  EXPECT_TRUE(unit.centroid.isApprox(c, 1e-12));
  EXPECT_TRUE(unit.inertia.isApprox(expected, 1e-12));
}

// The candidate separating axes of a small hull (polytope_separation.h):
// a cube's hull (12 triangles) has 6 face normals and 3 edge directions
// (its faces' diagonals are no edges); a height field's prism (a tilted top
// over a flat base, 8 triangles) 5 normals and 7 directions (its three
// vertical edges are parallel); a hull of more than kMaxSmallHullFaces
// triangles none.
TEST(ConvexMesh, SmallHullsKnowTheirDistinctFaceNormalsAndEdgeDirections) {
  const ConvexMesh cube_mesh =
      MakeConvexMesh(testing::BoxCorners(Eigen::Vector3d(0.1, 0.2, 0.3)), "cube");
  const ConvexHull& cube = *cube_mesh.hull;
  ASSERT_EQ(cube.triangles.size(), 12u);
  EXPECT_EQ(cube.distinct_normals.size(), 6u);
  ASSERT_EQ(cube.edge_directions.size(), 3u);
  for (const Eigen::Vector3d& direction : cube.edge_directions)
    EXPECT_NEAR(direction.cwiseAbs().maxCoeff(), 1.0, 1e-12);  // along an axis
  HeightField field;
  field.rows = field.cols = 2;
  field.heights = {0.0, 0.1, 0.05, 0.2};
  field.half_size = Eigen::Vector2d(0.5, 0.5);
  field.base_depth = 0.1;
  const std::vector<HeightFieldPrism> prisms = HeightFieldPrisms(field, "ramp");
  const ConvexHull& prism = *prisms[0].mesh.hull;
  ASSERT_EQ(prism.triangles.size(), 8u);
  EXPECT_EQ(prism.distinct_normals.size(), 5u);
  EXPECT_EQ(prism.edge_directions.size(), 7u);
  // Each normal's extents over the vertices: the greatest is the offset of
  // a face with that normal, the least reached at some vertex.
  ASSERT_EQ(prism.distinct_normal_extents.size(), 5u);
  for (size_t f = 0; f < 5; ++f) {
    const Eigen::Vector3d& normal = prism.distinct_normals[f];
    double face_offset = std::numeric_limits<double>::quiet_NaN(), least = 1e300;
    for (size_t t = 0; t < prism.triangles.size(); ++t) {
      if ((prism.face_normals[t] - normal).norm() < 1e-9)
        face_offset = prism.face_offsets[t];
    }
    for (const Eigen::Vector3d& vertex : prism.vertices)
      least = std::min(least, normal.dot(vertex));
    EXPECT_NEAR(prism.distinct_normal_extents[f].y(), face_offset, 1e-12) << f;
    EXPECT_EQ(prism.distinct_normal_extents[f].x(), least) << f;
  }
  const ConvexMesh large_mesh = testing::TwelveGonPrism();
  const ConvexHull& large = *large_mesh.hull;
  EXPECT_TRUE(large.distinct_normals.empty());
  EXPECT_TRUE(large.edge_directions.empty());
}

TEST(ConvexMesh, MassPropertiesOfAPrimitiveAreAboutItsOrigin) {
  const Capsule capsule{0.1, 0.3};
  const UnitDensityMass unit = UnitDensityMassProperties(capsule);
  EXPECT_EQ(unit.volume, Volume(capsule));
  EXPECT_TRUE(unit.centroid.isZero());
  EXPECT_EQ(unit.inertia, UnitDensityInertia(capsule));
  EXPECT_THROW(UnitDensityMassProperties(HalfSpace{}), std::invalid_argument);
}

TEST(ConvexMesh, RejectsMissingFilesFlatPointSetsAndBadScales) {
  EXPECT_THROW(LoadConvexMesh("/nonexistent/part.stl"), std::runtime_error);
  const fs::path empty =
      fs::temp_directory_path() / ("empty_" + std::to_string(getpid()) + ".stl");
  std::ofstream{empty};
  try {
    LoadConvexMesh(empty.string());
    ADD_FAILURE() << "an empty mesh file was accepted";
  } catch (const std::runtime_error& e) {  // one line, naming the file
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).rfind(empty.string(), 0), 0u) << e.what();
  }
  fs::remove(empty);
  EXPECT_THROW(MakeConvexMesh({{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}}, "flat"),
               std::invalid_argument);
  const fs::path file = WriteObj("scale", BoxPoints(Eigen::Vector3d::Ones(), {0, 0, 0}));
  EXPECT_THROW(LoadConvexMesh(file.string(), Eigen::Vector3d(1, -1, 1)),
               std::invalid_argument);
  fs::remove(file);
}

TEST(ConvexMesh, BoxMeshOnGroundRestsOnItsFourCornersLikeTheBox) {
  // The box mesh is off-centre in its file: G's origin is 0.5 m from it.
  const ConvexMesh mesh =
      MakeConvexMesh(BoxPoints({0.2, 0.4, 0.2}, {0.5, 0, 0}), "offset box");
  CollisionWorld world;
  world.AddGeometry(HalfSpace{}, -1, 0, Eigen::Isometry3d::Identity());
  world.AddGeometry(mesh, 0, 0, Eigen::Isometry3d::Identity());
  Eigen::Isometry3d tilted = Eigen::Isometry3d::Identity();
  // 0.2 m × 0.004 rad: corners 0.8 mm apart in height, inside the patch
  // tolerance of 1 mm.
  tilted.linear() = Eigen::AngleAxisd(0.004, Eigen::Vector3d::UnitY()).toRotationMatrix();
  tilted.translation() =
      Eigen::Vector3d(0.5, 0, 0.099) - tilted.linear() * Eigen::Vector3d(0.5, 0, 0);
  std::vector<ContactPoint> contacts;
  world.ComputeContacts({Eigen::Isometry3d::Identity(), tilted}, 1e-3, &contacts);
  ASSERT_EQ(contacts.size(), 4u);
  for (const ContactPoint& c : contacts) {
    // Each corner at its own height: the corner's z is its signed distance.
    const Eigen::Vector3d local = tilted.inverse() * c.p_W;
    Eigen::Vector3d corner = local;
    corner.x() = local.x() > 0.5 ? 0.6 : 0.4;
    corner.y() = local.y() > 0.0 ? 0.2 : -0.2;
    corner.z() = -0.1;
    EXPECT_NEAR(c.phi, (tilted * corner).z(), 1e-9);
    EXPECT_TRUE(c.normal_W.isApprox(Eigen::Vector3d::UnitZ(), 1e-9));
  }
}

// An octagonal rod from its frame's origin along +x (a link hanging from
// its joint): its hull's box is larger than the hull at the box's edges.
std::vector<Eigen::Vector3d> RodPoints(double length, double radius) {
  std::vector<Eigen::Vector3d> points;
  for (int k = 0; k < 8; ++k) {
    const double angle = (k + 0.5) * M_PI / 4.0;
    for (const double x : {0.0, length}) {
      points.emplace_back(x, radius * std::cos(angle), radius * std::sin(angle));
    }
  }
  return points;
}

// −(the depth of p inside the hull): max over its face planes of n·p − d,
// negative exactly when p is inside.
double FacePlaneGap(const ConvexHull& hull, const Eigen::Vector3d& p) {
  double gap = -std::numeric_limits<double>::infinity();
  for (size_t f = 0; f < hull.face_normals.size(); ++f) {
    gap = std::max(gap, hull.face_normals[f].dot(p) - hull.face_offsets[f]);
  }
  return gap;
}

TEST(ConvexMesh, MeshPairsApartByTheirBoxesAreDroppedWithoutMissingAContact) {
  // Two rods posed at random about a common joint, as a robot's links: the
  // broad phase drops a pair whose hulls' boxes are apart beyond the
  // margin. Wherever the rods are surely within the margin (a vertex of one
  // inside the other, or two vertices within it), the pair has a contact.
  const ConvexMesh rod = MakeConvexMesh(RodPoints(0.4, 0.04), "rod");
  const ConvexHull& hull = *rod.hull;
  CollisionWorld world;
  world.AddGeometry(rod, 0, 0, Eigen::Isometry3d::Identity());
  world.AddGeometry(rod, 1, 0, Eigen::Isometry3d::Identity());
  const double margin = 1e-3;
  std::mt19937 random(7);
  int surely_touching = 0, spheres_meet_boxes_apart = 0;
  std::vector<ContactPoint> contacts;
  for (int sample = 0; sample < 2000; ++sample) {
    const Eigen::Isometry3d X_WB = testing::RandomPose(0.12, &random);
    world.ComputeContacts({Eigen::Isometry3d::Identity(), X_WB}, margin, &contacts);
    bool sure = false;
    for (const Eigen::Vector3d& v : hull.vertices) {
      sure = sure || FacePlaneGap(hull, X_WB * v) < 0.0 ||
             FacePlaneGap(hull, X_WB.inverse() * v) < 0.0;
      for (const Eigen::Vector3d& u : hull.vertices)
        sure = sure || (X_WB * v - u).norm() < margin;
    }
    surely_touching += sure;
    if (sure) {
      double inside_a = 1e9, inside_b = 1e9, vv = 1e9;
      for (const Eigen::Vector3d& v : hull.vertices) {
        inside_a = std::min(inside_a, FacePlaneGap(hull, X_WB * v));
        inside_b = std::min(inside_b, FacePlaneGap(hull, X_WB.inverse() * v));
        for (const Eigen::Vector3d& u : hull.vertices)
          vv = std::min(vv, (X_WB * v - u).norm());
      }
      EXPECT_FALSE(contacts.empty())
          << "sample " << sample << " " << inside_a << " " << inside_b << " " << vv
          << " p " << X_WB.translation().transpose() << " R "
          << Eigen::Quaterniond(X_WB.linear()).coeffs().transpose();
    }
    // The case the boxes decide: spheres about the rods' origins within
    // reach (radius ‖(0.4, 0.04, 0.04)‖), the boxes apart by a face axis of
    // either (a lower bound on their separation): the narrow phase never sees
    // the pair, even right after a pose that kept it.
    const Eigen::Vector3d half(0.2, 0.04 * std::cos(M_PI / 8), 0.04 * std::cos(M_PI / 8));
    Eigen::Isometry3d box_a = Eigen::Isometry3d::Identity(), box_b = X_WB;
    box_a.translation() = Eigen::Vector3d(0.2, 0, 0);
    box_b.translation() = X_WB * Eigen::Vector3d(0.2, 0, 0);
    const bool boxes_apart = BoxSeparationLowerBound(box_a, half, box_b, half) > margin;
    if (boxes_apart) {
      ++spheres_meet_boxes_apart;
      EXPECT_EQ(world.num_candidate_pairs(), 0) << "sample " << sample;
      EXPECT_TRUE(contacts.empty()) << "sample " << sample;
    }
  }
  EXPECT_GT(surely_touching, 200);
  EXPECT_GT(spheres_meet_boxes_apart, 200);
}

TEST(ConvexMesh, ContactsOfAPairQueriedStepAfterStepMatchThoseOfAFreshQuery) {
  // Coal's GJK starts from the pair's last ray while the pair was apart: a
  // rod swinging into another and out again, 5 mm deep at the middle, gets
  // the contacts a world that never saw the pair gives, step by step.
  const ConvexMesh rod = MakeConvexMesh(RodPoints(0.4, 0.04), "rod");
  CollisionWorld stepped;
  stepped.AddGeometry(rod, 0, 0, Eigen::Isometry3d::Identity());
  stepped.AddGeometry(rod, 1, 0, Eigen::Isometry3d::Identity());
  const double margin = 0.01;
  std::vector<ContactPoint> contacts, fresh_contacts;
  int compared = 0, apart = 0;
  double deepest = 0.0, widest = 0.0;
  for (int step = 0; step <= 200; ++step) {
    const double s = step / 200.0;
    Eigen::Isometry3d X_WB = Eigen::Isometry3d::Identity();
    // Crossed rods, B above A (their flat sides 2 × 0.04 cos(π/8) m apart
    // when their axes are 0.0739 m apart): beyond the margin at either end
    // (where GJK's ray is kept), 5 mm into each other at s = ½.
    X_WB.linear() =
        Eigen::AngleAxisd(0.8 + 0.4 * s, Eigen::Vector3d(0.05, 0.1, 1).normalized())
            .toRotationMatrix();
    X_WB.translation() = Eigen::Vector3d(0.1, -0.05, 0.104 - 0.14 * s * (1 - s));
    stepped.ComputeContacts({Eigen::Isometry3d::Identity(), X_WB}, margin, &contacts);
    CollisionWorld fresh;
    fresh.AddGeometry(rod, 0, 0, Eigen::Isometry3d::Identity());
    fresh.AddGeometry(rod, 1, 0, Eigen::Isometry3d::Identity());
    fresh.ComputeContacts({Eigen::Isometry3d::Identity(), X_WB}, margin, &fresh_contacts);
    ASSERT_EQ(contacts.size(), fresh_contacts.size()) << "step " << step;
    apart += contacts.empty();
    for (size_t k = 0; k < contacts.size(); ++k) {
      EXPECT_NEAR(contacts[k].phi, fresh_contacts[k].phi, 1e-9) << "step " << step;
      EXPECT_LT((contacts[k].normal_W - fresh_contacts[k].normal_W).norm(), 1e-9)
          << "step " << step;
      deepest = std::min(deepest, contacts[k].phi);
      widest = std::max(widest, contacts[k].phi);
      ++compared;
    }
  }
  EXPECT_GT(compared, 100);
  EXPECT_GT(apart, 20);
  EXPECT_LT(deepest, -3e-3);  // the rods overlapped (EPA's case)
  EXPECT_GT(widest, 1e-3);    // and were apart within the margin (GJK's)
}

// A height field sampled from a plane z = a + b x + c y: its prisms fill the
// solid between the plane and z = −base exactly (a planar surface is its own
// triangulation), whose volume is 4 h_x h_y (a + base) over the rectangle
// |x| ≤ h_x, |y| ≤ h_y and whose first moments are b ∫x² dA and c ∫y² dA.
// Rows run along y, columns along x.
TEST(HeightField, PrismsFillTheSolidUnderTheSurface) {
  const double a = 0.3, b = 0.05, c = -0.08, base = 0.2;
  HeightField field;
  field.rows = 3;
  field.cols = 4;
  field.half_size = Eigen::Vector2d(1.5, 1.0);
  field.base_depth = base;
  for (int r = 0; r < field.rows; ++r) {
    for (int col = 0; col < field.cols; ++col) {
      const double x = (2.0 * col / (field.cols - 1) - 1.0) * field.half_size.x();
      const double y = (2.0 * r / (field.rows - 1) - 1.0) * field.half_size.y();
      field.heights.push_back(a + b * x + c * y);
    }
  }
  const std::vector<HeightFieldPrism> prisms = HeightFieldPrisms(field, "terrain");
  ASSERT_EQ(prisms.size(), 2u * 2 * 3);
  double volume = 0.0;
  Eigen::Vector3d moment = Eigen::Vector3d::Zero();
  for (const HeightFieldPrism& prism : prisms) {
    const UnitDensityMass solid = UnitDensityMassProperties(prism.mesh);
    volume += solid.volume;
    moment += solid.volume * (prism.offset + solid.centroid);
    // Each prism's own frame is about its middle: its bounding sphere is its.
    EXPECT_LT(BoundingRadius(prism.mesh), 1.2) << "a prism bounded as the whole field";
  }
  const double hx = field.half_size.x(), hy = field.half_size.y(), area = 4 * hx * hy;
  EXPECT_NEAR(volume, area * (a + base), 1e-12);
  EXPECT_NEAR(moment.x(), b * (2 * hx * hx * hx / 3) * (2 * hy), 1e-12);
  EXPECT_NEAR(moment.y(), c * (2 * hy * hy * hy / 3) * (2 * hx), 1e-12);
}

TEST(HeightField, ABadGridIsRefusedNamingIt) {
  HeightField field;
  field.rows = 2;
  field.cols = 2;
  field.half_size = Eigen::Vector2d(1, 1);
  field.base_depth = 0.1;
  field.heights = {0, 0, 0};
  EXPECT_THROW(
      {
        try {
          HeightFieldPrisms(field, "geom 't'");
        } catch (const std::invalid_argument& e) {
          EXPECT_STREQ(e.what(), "geom 't': 3 heights for a grid of 2 × 2");
          throw;
        }
      },
      std::invalid_argument);
  field.heights = {0, 0, 0, -0.1};  // at the base: no volume under it
  EXPECT_THROW(HeightFieldPrisms(field, "geom 't'"), std::invalid_argument);
}

}  // namespace
}  // namespace coulomb
