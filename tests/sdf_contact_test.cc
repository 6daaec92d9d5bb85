// Signed distances of the shapes, the sampled mesh field, the contact
// clustering and SDF contact, against closed forms and invariants.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <numbers>
#include <random>

#include "coulomb/geometry/collision_world.h"
#include "coulomb/geometry/contact_clustering.h"
#include "coulomb/geometry/sampled_mesh_sdf.h"
#include "coulomb/geometry/shape_signed_distance.h"
#include "coulomb/geometry/signed_distance_field.h"

namespace coulomb {
namespace {

// The exact distance to a box of half extents h by the nearest point of
// the solid (outside) or the nearest face (inside).
double BoxDistance(const Eigen::Vector3d& p, const Eigen::Vector3d& h) {
  const Eigen::Vector3d nearest = p.cwiseMax(-h).cwiseMin(h);
  if (nearest != p) return (p - nearest).norm();
  return -(h - p.cwiseAbs()).minCoeff();
}

TEST(ShapeSignedDistance, PrimitivesMatchTheirClosedForms) {
  std::mt19937 random(5);
  std::uniform_real_distribution<double> coordinate(-0.4, 0.4);
  Eigen::Vector3d gradient;
  for (int k = 0; k < 200; ++k) {
    // Braces: drawn x, y, z in order (a call's arguments are not).
    const Eigen::Vector3d p{coordinate(random), coordinate(random), coordinate(random)};
    EXPECT_NEAR(ShapeSignedDistance(Sphere{0.2}, p, &gradient), p.norm() - 0.2, 1e-15);
    const Eigen::Vector3d size(0.3, 0.2, 0.4);
    EXPECT_NEAR(ShapeSignedDistance(Box{size}, p, &gradient), BoxDistance(p, 0.5 * size),
                1e-15);
    // A cylinder's distance is the 2-D box distance in (r, z).
    const double r = p.head<2>().norm();
    EXPECT_NEAR(ShapeSignedDistance(Cylinder{0.1, 0.3}, p, &gradient),
                BoxDistance(Eigen::Vector3d(r, p.z(), 0), Eigen::Vector3d(0.1, 0.15, 1)),
                1e-15);
    const Eigen::Vector3d axis(0, 0, std::clamp(p.z(), -0.1, 0.1));
    EXPECT_NEAR(ShapeSignedDistance(Capsule{0.05, 0.2}, p, &gradient),
                (p - axis).norm() - 0.05, 1e-15);
    EXPECT_NEAR(ShapeSignedDistance(HalfSpace{}, p, &gradient), p.z(), 0.0);
  }
}

// An ellipsoid's distance: p − φ ∇φ lies on the surface with ∇φ its unit
// normal there (the nearest point is a critical point), and |φ| is the
// nearest of 640 000 points sampled on the surface, within their spacing —
// inside and outside, on the shortest axis' plane (where the nearest points
// leave it) and at the centre.
TEST(ShapeSignedDistance, AnEllipsoidsIsTheDistanceToItsNearestSurfacePoint) {
  const Eigen::Vector3d a(0.3, 0.15, 0.4);
  std::vector<Eigen::Vector3d> surface;
  constexpr int kSamples = 800;
  for (int i = 0; i < kSamples; ++i) {
    const double polar = std::numbers::pi * (i + 0.5) / kSamples;
    for (int j = 0; j < kSamples; ++j) {
      const double azimuth = 2.0 * std::numbers::pi * j / kSamples;
      surface.push_back(a.cwiseProduct(
          Eigen::Vector3d(std::sin(polar) * std::cos(azimuth),
                          std::sin(polar) * std::sin(azimuth), std::cos(polar))));
    }
  }
  std::mt19937 random(3);
  std::uniform_real_distribution<double> coordinate(-0.6, 0.6);
  std::vector<Eigen::Vector3d> points{
      {0.1, 0.0, 0.2}, {0.05, 0.0, -0.1}, {0, 0, 0}, {0.5, 0.3, -0.2}, {0.0, 0.0, 0.39}};
  for (int k = 0; k < 20; ++k)
    points.push_back({coordinate(random), coordinate(random), coordinate(random)});
  Eigen::Vector3d gradient;
  for (const Eigen::Vector3d& p : points) {
    const double phi = ShapeSignedDistance(Ellipsoid{a}, p, &gradient);
    const Eigen::Vector3d x = p - phi * gradient;
    EXPECT_NEAR(x.cwiseQuotient(a).squaredNorm(), 1.0, 1e-9) << p.transpose();
    EXPECT_NEAR(gradient.dot(x.cwiseQuotient(a.cwiseAbs2()).normalized()), 1.0, 1e-9);
    double sampled = std::numeric_limits<double>::infinity();
    for (const Eigen::Vector3d& y : surface) sampled = std::min(sampled, (p - y).norm());
    EXPECT_LE(std::abs(phi), sampled + 1e-12) << p.transpose();
    EXPECT_GE(std::abs(phi), sampled - 2e-3) << p.transpose();
    EXPECT_EQ(phi < 0.0, p.cwiseQuotient(a).squaredNorm() < 1.0) << p.transpose();
  }
}

// An axis-aligned cube of edge `edge` as 12 outward triangles, every
// triangle listing its own three vertices (as STL files do).
TriangleMesh CubeTriangles(double edge) {
  TriangleMesh mesh;
  const double h = 0.5 * edge;
  for (int axis = 0; axis < 3; ++axis) {
    for (double side : {-1.0, 1.0}) {
      const int u = (axis + 1) % 3, v = (axis + 2) % 3;
      Eigen::Vector3d corners[4];
      const double su[4] = {-1, 1, 1, -1}, sv[4] = {-1, -1, 1, 1};
      for (int c = 0; c < 4; ++c) {
        corners[c][axis] = side * h;
        corners[c][u] = su[c] * h;
        corners[c][v] = side * sv[c] * h;  // counter-clockwise seen from outside
      }
      for (const auto& t : {std::array<int, 3>{0, 1, 2}, std::array<int, 3>{0, 2, 3}}) {
        const int first = static_cast<int>(mesh.vertices.size());
        for (int c : t) mesh.vertices.push_back(corners[c]);
        mesh.triangles.push_back({first, first + 1, first + 2});
      }
    }
  }
  return mesh;
}

TEST(SampledMeshSdf, CubeFieldMatchesTheBoxDistanceToTheGridsResolution) {
  const SdfShape cube = MakeSampledMeshSdf(CubeTriangles(0.1), "cube", 20);
  EXPECT_NEAR(Volume(cube), 1e-3, 1e-12);  // the welded, closed surface
  std::mt19937 random(11);
  std::uniform_real_distribution<double> coordinate(-0.07, 0.07);
  Eigen::Vector3d gradient;
  const double spacing = 0.1 / 20;
  for (int k = 0; k < 300; ++k) {
    // Braces: drawn x, y, z in order (a call's arguments are not).
    const Eigen::Vector3d p{coordinate(random), coordinate(random), coordinate(random)};
    // Trilinear interpolation of a 1-Lipschitz function: off by at most
    // one spacing (less on faces, where the distance is linear).
    EXPECT_NEAR(cube.field->Evaluate(p, &gradient),
                BoxDistance(p, Eigen::Vector3d::Constant(0.05)), spacing);
  }
  // On a face, away from edges, the field and its gradient are exact.
  EXPECT_NEAR(cube.field->Evaluate({0.01, 0.02, 0.05}, &gradient), 0.0, 1e-12);
  EXPECT_NEAR((gradient - Eigen::Vector3d::UnitZ()).norm(), 0.0, 1e-9);
  // Far outside the grid the field still grows with the distance.
  EXPECT_NEAR(cube.field->Evaluate({1.0, 0.0, 0.0}, &gradient), 0.95, 1e-9);
}

TEST(SampledMeshSdf, RejectsOpenMeshesAndBadResolutionsAndCachesFiles) {
  TriangleMesh open = CubeTriangles(0.1);
  open.triangles.pop_back();
  EXPECT_THROW(MakeSampledMeshSdf(open, "open", 16), std::invalid_argument);
  EXPECT_THROW(MakeSampledMeshSdf(CubeTriangles(0.1), "cube", 2), std::invalid_argument);
  const std::filesystem::path file =
      std::filesystem::temp_directory_path() / "coulomb_sdf_cube.obj";
  {
    std::ofstream obj(file);
    const TriangleMesh cube = CubeTriangles(0.1);
    for (const Eigen::Vector3d& v : cube.vertices)
      obj << "v " << v.x() << " " << v.y() << " " << v.z() << "\n";
    for (const auto& t : cube.triangles)
      obj << "f " << t[0] + 1 << " " << t[1] + 1 << " " << t[2] + 1 << "\n";
  }
  const SdfShape first = LoadSampledMeshSdf(file.string(), Eigen::Vector3d::Ones(), 16);
  const SdfShape again = LoadSampledMeshSdf(file.string(), Eigen::Vector3d::Ones(), 16);
  EXPECT_EQ(first.field.get(), again.field.get());
  const SdfShape finer = LoadSampledMeshSdf(file.string(), Eigen::Vector3d::Ones(), 24);
  EXPECT_NE(first.field.get(), finer.field.get());
  EXPECT_THROW(LoadSampledMeshSdf("/nonexistent.obj", Eigen::Vector3d::Ones(), 16),
               std::runtime_error);
  std::filesystem::remove(file);
}

std::vector<ContactPoint> PlanePoints(double z, const Eigen::Vector3d& normal, int n) {
  std::vector<ContactPoint> points;
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      ContactPoint& point = points.emplace_back();
      point.p_W = Eigen::Vector3d(0.01 * i, 0.01 * j, z);
      point.normal_W = normal;
      point.phi = -1e-4 * ((i * 7 + j * 3) % 11);
    }
  }
  return points;
}

TEST(ContactClustering, KeepsTheTotalWeightAndTheDeepestPointsAndSeparatesOpposingFaces) {
  // Two sheets 1 mm apart with opposite normals (a thread's two flanks).
  std::vector<ContactPoint> points = PlanePoints(0.0, Eigen::Vector3d::UnitZ(), 40);
  const std::vector<ContactPoint> upper =
      PlanePoints(1e-3, -Eigen::Vector3d::UnitZ(), 40);
  points.insert(points.end(), upper.begin(), upper.end());
  const std::vector<ContactPoint> all = points;
  ContactClustering clustering;
  clustering.Reduce(20, 0.4, &points);
  ASSERT_EQ(points.size(), 20u);
  double weight = 0.0, deepest = 0.0;
  int facing_up = 0;
  for (const ContactPoint& point : points) {
    weight += point.weight;
    facing_up += point.normal_W.z() > 0;
    deepest = std::min(deepest, point.phi);
  }
  EXPECT_DOUBLE_EQ(weight, static_cast<double>(all.size()));
  EXPECT_EQ(facing_up, 10);  // each sheet keeps half the clusters
  EXPECT_DOUBLE_EQ(deepest, -1e-3);
  // Every representative is one of the input points.
  for (const ContactPoint& point : points) {
    EXPECT_TRUE(std::any_of(all.begin(), all.end(), [&](const ContactPoint& input) {
      return input.p_W == point.p_W && input.phi == point.phi;
    }));
  }
  std::vector<ContactPoint> few = PlanePoints(0.0, Eigen::Vector3d::UnitZ(), 3);
  clustering.Reduce(20, 0.4, &few);
  EXPECT_EQ(few.size(), 9u);  // nothing to reduce
}

// Normals in every one of the 27 direction classes the grid keeps apart, and
// a bound below the 8 points per seed that the grid aims at for it: the grid
// cannot merge them to that many (it once doubled its cell for ever, a hang
// found by fuzzing a bolt and nut with max_sdf_contacts 2), and the seeds
// bring them down to the bound.
TEST(ContactClustering, ReducesNormalsOfEveryDirectionClassToAFewPoints) {
  std::vector<ContactPoint> points;
  for (int x = -1; x <= 1; ++x) {
    for (int y = -1; y <= 1; ++y) {
      for (int z = -1; z <= 1; ++z) {
        const Eigen::Vector3d direction(x, y, z);
        const Eigen::Vector3d normal =
            direction.isZero() ? Eigen::Vector3d(0.1, 0.1, 0.1) : direction.normalized();
        const std::vector<ContactPoint> sheet =
            PlanePoints(0.001 * (x + 3 * y), normal, 3);
        points.insert(points.end(), sheet.begin(), sheet.end());
      }
    }
  }
  const size_t count = points.size();
  ContactClustering clustering;
  clustering.Reduce(2, 0.4, &points);
  ASSERT_EQ(points.size(), 2u);
  double weight = 0.0;
  for (const ContactPoint& point : points) weight += point.weight;
  EXPECT_DOUBLE_EQ(weight, static_cast<double>(count));
}

// The grid merge written out with an ordered map, from its description
// (contact_clustering.h): cells from the points' bounding box, 1/32 of its
// largest extent and doubling, the normal classes split at ±0.38 per
// component; per cell and class the deepest point (the first of equals, in
// the points' order) with the summed weight, in the order of (cell, class).
std::vector<ContactPoint> MergedByGrid(std::vector<ContactPoint> points, size_t target) {
  Eigen::AlignedBox3d box;
  for (const ContactPoint& point : points) box.extend(point.p_W);
  const double extent = box.sizes().maxCoeff();
  for (double cell = extent / 32.0; points.size() > target; cell *= 2.0) {
    std::map<std::array<long, 4>, ContactPoint> cells;
    for (const ContactPoint& point : points) {
      std::array<long, 4> key{};
      for (int d = 0; d < 3; ++d)
        key[d] = static_cast<long>((point.p_W - box.min())[d] / cell);
      for (int d = 0; d < 3; ++d)
        key[3] =
            3 * key[3] + (point.normal_W[d] > 0.38) - (point.normal_W[d] < -0.38) + 1;
      const auto [found, added] = cells.emplace(key, point);
      if (added) continue;
      const double weight = found->second.weight + point.weight;
      if (point.phi < found->second.phi) found->second = point;
      found->second.weight = weight;
    }
    points.clear();
    for (const auto& entry : cells) points.push_back(entry.second);
    if (cell > extent) break;
  }
  return points;
}

// Points in tight bunches, a few of them across cell borders, so that the
// grid alone brings them within max_count: Reduce returns its merge.
TEST(ContactClustering, GridMergeKeepsTheDeepestPointOfEachCellAndClass) {
  std::mt19937 random(7);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  std::vector<ContactPoint> points;
  for (int bunch = 0; bunch < 40; ++bunch) {
    const Eigen::Vector3d centre(unit(random), unit(random), unit(random));
    const Eigen::Vector3d normal =
        Eigen::Vector3d(unit(random), unit(random), unit(random)).normalized();
    for (int k = 0; k < 50; ++k) {
      ContactPoint point;
      point.p_W =
          centre + 0.004 * Eigen::Vector3d(unit(random), unit(random), unit(random));
      point.normal_W = normal;
      point.phi = -1e-3 * std::round(4.0 * (unit(random) + 1.0));  // ties too
      point.weight = 1.0 + unit(random);
      points.push_back(point);
    }
  }
  const int max_count = 120;
  const std::vector<ContactPoint> expected = MergedByGrid(points, 8 * max_count);
  ASSERT_LE(expected.size(), static_cast<size_t>(max_count));
  ASSERT_GT(expected.size(), 40u);  // some bunches split by a cell border
  ContactClustering clustering;
  clustering.Reduce(max_count, 0.4, &points);
  ASSERT_EQ(points.size(), expected.size());
  for (size_t k = 0; k < points.size(); ++k) {
    EXPECT_EQ(points[k].p_W, expected[k].p_W) << k;
    EXPECT_EQ(points[k].phi, expected[k].phi) << k;
    EXPECT_EQ(points[k].weight, expected[k].weight) << k;
  }
}

// Farthest-point clustering written out from its description: seeds from
// the deepest point, each next seed the point farthest from the seeds so far
// (the first of equals) in (p, ℓ n); every point joins its nearest seed (the
// first of equals); a cluster is its deepest member (the first of equals,
// in the points' order) with the summed weight, in seed order.
std::vector<ContactPoint> ClusteredByFarthestPoints(
    const std::vector<ContactPoint>& points, int max_count, double length_scale) {
  const auto distance2 = [&](const ContactPoint& a, const ContactPoint& b) {
    const Eigen::Vector3d dp = a.p_W - b.p_W;
    const Eigen::Vector3d dn = length_scale * a.normal_W - length_scale * b.normal_W;
    return dp.x() * dp.x() + dp.y() * dp.y() + dp.z() * dp.z() + dn.x() * dn.x() +
           dn.y() * dn.y() + dn.z() * dn.z();
  };
  std::vector<size_t> seeds = {static_cast<size_t>(
      std::min_element(
          points.begin(), points.end(),
          [](const ContactPoint& a, const ContactPoint& b) { return a.phi < b.phi; }) -
      points.begin())};
  std::vector<size_t> nearest(points.size(), 0);
  while (static_cast<int>(seeds.size()) < max_count) {
    size_t farthest = 0;
    double farthest_distance2 = -1.0;
    for (size_t i = 0; i < points.size(); ++i) {
      for (size_t k = 0; k < seeds.size(); ++k) {
        if (distance2(points[i], points[seeds[k]]) <
            distance2(points[i], points[seeds[nearest[i]]]))
          nearest[i] = k;
      }
      const double d2 = distance2(points[i], points[seeds[nearest[i]]]);
      if (d2 > farthest_distance2) {
        farthest = i;
        farthest_distance2 = d2;
      }
    }
    seeds.push_back(farthest);
  }
  for (size_t i = 0; i < points.size(); ++i) {
    for (size_t k = 0; k < seeds.size(); ++k) {
      if (distance2(points[i], points[seeds[k]]) <
          distance2(points[i], points[seeds[nearest[i]]]))
        nearest[i] = k;
    }
  }
  std::vector<ContactPoint> clusters;
  for (size_t seed : seeds) {
    clusters.push_back(points[seed]);
    clusters.back().weight = 0.0;
  }
  for (size_t i = 0; i < points.size(); ++i) {
    ContactPoint& cluster = clusters[nearest[i]];
    const double weight = cluster.weight + points[i].weight;
    if (points[i].phi < cluster.phi) cluster = points[i];
    cluster.weight = weight;
  }
  return clusters;
}

// Few points for their bound (at most 8 per cluster): no grid merge, the
// farthest-point seeds alone.
TEST(ContactClustering, EveryPointJoinsItsNearestFarthestPointSeed) {
  std::mt19937 random(11);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  std::vector<ContactPoint> points(301);
  for (ContactPoint& point : points) {
    point.p_W = 0.05 * Eigen::Vector3d(unit(random), unit(random), unit(random));
    point.normal_W =
        Eigen::Vector3d(unit(random), unit(random), unit(random)).normalized();
    point.phi = -1e-4 * std::round(4.0 * (unit(random) + 1.0));
    point.weight = 1.0 + unit(random);
  }
  const int max_count = 40;
  const double length_scale = 0.02;
  const std::vector<ContactPoint> expected =
      ClusteredByFarthestPoints(points, max_count, length_scale);
  ContactClustering clustering;
  clustering.Reduce(max_count, length_scale, &points);
  ASSERT_EQ(points.size(), expected.size());
  for (size_t k = 0; k < points.size(); ++k) {
    EXPECT_EQ(points[k].p_W, expected[k].p_W) << k;
    EXPECT_EQ(points[k].phi, expected[k].phi) << k;
    EXPECT_EQ(points[k].weight, expected[k].weight) << k;
  }
}

TEST(SdfCollision, SampledCubeOnTheGroundTouchesAtItsBottomFaceOnly) {
  CollisionWorld world;
  world.AddGeometry(HalfSpace{}, -1, 0, Eigen::Isometry3d::Identity());
  world.AddGeometry(MakeSampledMeshSdf(CubeTriangles(0.1), "cube", 20), 0, 0,
                    Eigen::Isometry3d::Identity());
  Eigen::Isometry3d X_WC = Eigen::Isometry3d::Identity();
  X_WC.translation().z() = 0.0498;  // 0.2 mm into the ground
  std::vector<ContactPoint> contacts;
  world.set_max_sdf_contacts(16);
  world.ComputeContacts({Eigen::Isometry3d::Identity(), X_WC}, 1e-3, &contacts);
  ASSERT_EQ(contacts.size(), 16u);
  double weight = 0.0;
  for (const ContactPoint& contact : contacts) {
    EXPECT_NEAR(contact.phi, -2e-4, 1e-9);
    EXPECT_NEAR((contact.normal_W - Eigen::Vector3d::UnitZ()).norm(), 0.0, 1e-12);
    EXPECT_NEAR(contact.p_W.z(), -1e-4, 1e-9);  // midway between the surfaces
    weight += contact.weight;
  }
  // The samples of the bottom face and its rim (all at the same depth).
  EXPECT_GT(weight, 16.0);
  EXPECT_THROW(world.set_max_sdf_contacts(0), std::invalid_argument);
}

}  // namespace
}  // namespace coulomb
