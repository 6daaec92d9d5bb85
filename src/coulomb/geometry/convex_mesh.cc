// A Coal adapter (with collision_world.cc): mesh loading and Qhull.
#include "coulomb/geometry/convex_mesh.h"
#include "coulomb/geometry/polytope_separation.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <utility>

#include <coal/BVH/BVH_model.h>
#include <coal/mesh_loader/assimp.h>
#include <coal/shape/convex.h>

namespace coulomb {

namespace {

// True if the points span a solid: Qhull crashes on flat input, so this is
// checked first. Greedy: the farthest point from p0, then from the line, then
// from the plane; the spanned height must not vanish against the extent.
bool SpansVolume(const std::vector<Eigen::Vector3d>& points) {
  if (points.size() < 4) return false;
  for (const Eigen::Vector3d& p : points) {
    if (!p.allFinite()) return false;
  }
  const Eigen::Vector3d& origin = points[0];
  const auto farthest = [&](const auto& distance) {
    double best = 0.0;
    for (const Eigen::Vector3d& p : points) best = std::max(best, distance(p - origin));
    return best;
  };
  const auto argmax = [&](const auto& distance) {
    const auto it =
        std::max_element(points.begin(), points.end(),
                         [&](const Eigen::Vector3d& a, const Eigen::Vector3d& b) {
                           return distance(a - origin) < distance(b - origin);
                         });
    return Eigen::Vector3d(*it - origin);
  };
  const auto length = [](const Eigen::Vector3d& d) { return d.norm(); };
  const double extent = farthest(length);
  if (!(extent > 0.0)) return false;
  const Eigen::Vector3d axis = argmax(length).normalized();
  const auto off_axis = [&](const Eigen::Vector3d& d) {
    return (d - d.dot(axis) * axis).norm();
  };
  if (farthest(off_axis) <= 1e-9 * extent) return false;
  const Eigen::Vector3d side = argmax(off_axis);
  const Eigen::Vector3d normal = axis.cross(side).normalized();
  const auto height = [&](const Eigen::Vector3d& d) { return std::abs(d.dot(normal)); };
  return farthest(height) > 1e-9 * extent;
}

// Coal's exceptions carry "From file: …\nin function: …\nat line: …\n
// message: …": keep the message, on one line.
std::string CoalMessage(const std::exception& error) {
  std::string text = error.what();
  const size_t message = text.find("message: ");
  if (message != std::string::npos) text = text.substr(message + 9);
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  for (size_t at = text.find('\n'); at != std::string::npos; at = text.find('\n', at)) {
    text.replace(at, 1, "; ");
  }
  return text;
}

// The triangle across each edge of each triangle (ConvexHull::neighbors):
// the two triangles that hold an edge, found by sorting the edges by their
// corners. Left empty where an edge is not held by exactly two triangles.
std::vector<std::array<int, 3>> TriangleNeighbors(
    const std::vector<std::array<int, 3>>& triangles) {
  struct Edge {
    std::pair<int, int> corners;  // lower index first
    int triangle, k;
  };
  std::vector<Edge> edges;
  edges.reserve(3 * triangles.size());
  for (size_t f = 0; f < triangles.size(); ++f) {
    for (int k = 0; k < 3; ++k) {
      const int from = triangles[f][k], to = triangles[f][(k + 1) % 3];
      edges.push_back({std::minmax(from, to), static_cast<int>(f), k});
    }
  }
  std::sort(edges.begin(), edges.end(),
            [](const Edge& a, const Edge& b) { return a.corners < b.corners; });
  std::vector<std::array<int, 3>> neighbors(triangles.size(), {-1, -1, -1});
  for (size_t e = 0; e + 1 < edges.size(); e += 2) {
    const Edge &a = edges[e], &b = edges[e + 1];
    const bool shared_by_two =
        a.corners == b.corners &&
        (e + 2 == edges.size() || edges[e + 2].corners != a.corners);
    if (!shared_by_two) return {};
    neighbors[a.triangle][a.k] = b.triangle;
    neighbors[b.triangle][b.k] = a.triangle;
  }
  return neighbors;
}

}  // namespace

ConvexMesh MakeConvexMesh(const std::vector<Eigen::Vector3d>& points,
                          const std::string& name) {
  if (!SpansVolume(points)) {
    throw std::invalid_argument("mesh '" + name +
                                "': its vertices are flat, too few or not finite");
  }
  auto coal_points =
      std::make_shared<std::vector<coal::Vec3s>>(points.begin(), points.end());
  std::unique_ptr<coal::ConvexBase> convex;
  try {
    convex.reset(coal::ConvexBase::convexHull(
        coal_points, static_cast<unsigned int>(points.size()), /*keepTriangles=*/true));
  } catch (const std::exception& e) {
    throw std::invalid_argument("mesh '" + name + "': no convex hull (" + CoalMessage(e) +
                                ")");
  }
  const auto* triangulated =
      dynamic_cast<const coal::Convex<coal::Triangle>*>(convex.get());
  if (!triangulated) throw std::invalid_argument("mesh '" + name + "': no convex hull");
  std::vector<std::array<int, 3>> triangles;
  for (unsigned int k = 0; k < triangulated->num_polygons; ++k) {
    const coal::Triangle& t = (*triangulated->polygons)[k];
    triangles.push_back(
        {static_cast<int>(t[0]), static_cast<int>(t[1]), static_cast<int>(t[2])});
  }
  return MakeConvexPolytope({triangulated->points->begin(),
                             triangulated->points->begin() + triangulated->num_points},
                            triangles, name);
}

ConvexMesh MakeConvexPolytope(std::vector<Eigen::Vector3d> vertices,
                              const std::vector<std::array<int, 3>>& triangles,
                              const std::string& name) {
  auto hull = std::make_shared<ConvexHull>();
  hull->vertices = std::move(vertices);
  Eigen::Vector3d interior = Eigen::Vector3d::Zero();
  for (const Eigen::Vector3d& v : hull->vertices) interior += v;
  interior /= std::max<size_t>(1, hull->vertices.size());
  for (std::array<int, 3> triangle : triangles) {
    const Eigen::Vector3d &a = hull->vertices[triangle[0]],
                          &b = hull->vertices[triangle[1]],
                          &c = hull->vertices[triangle[2]];
    Eigen::Vector3d normal = (b - a).cross(c - a).normalized();
    if (normal.dot(a - interior) < 0.0) {
      std::swap(triangle[1], triangle[2]);
      normal = -normal;
    }
    hull->triangles.push_back(triangle);
    hull->face_normals.push_back(normal);
    hull->face_offsets.push_back(normal.dot(a));
  }
  hull->neighbors = TriangleNeighbors(hull->triangles);
  FillSeparatingDirections(hull.get());
  ConvexMesh mesh{name, std::move(hull)};
  ValidateShape(mesh);
  return mesh;
}

// Read through Coal's Assimp reader (the files and post-processing its own
// loader takes), without the tree of bounding volumes its loader builds:
// neither a hull nor a sampled field reads it.
TriangleMesh LoadTriangleMesh(const std::string& file, const Eigen::Vector3d& scale) {
  if (!(scale.array() > 0.0).all() || !scale.allFinite()) {
    throw std::invalid_argument(file + ": mesh scale must be positive");
  }
  if (!std::filesystem::is_regular_file(file)) {
    throw std::runtime_error(file + ": no such mesh file");
  }
  coal::internal::TriangleAndVertices read;
  try {
    coal::internal::Loader scene;
    scene.load(file);
    coal::internal::buildMesh(scale, scene.scene, 0, read);
  } catch (const std::exception& e) {
    throw std::runtime_error(file + ": cannot read the mesh: " + CoalMessage(e));
  }
  if (read.vertices_.size() < 4) {
    throw std::runtime_error(file + ": the mesh has fewer than 4 vertices");
  }
  TriangleMesh mesh;
  mesh.vertices.assign(read.vertices_.begin(), read.vertices_.end());
  for (const coal::Triangle& t : read.triangles_) {
    mesh.triangles.push_back(
        {static_cast<int>(t[0]), static_cast<int>(t[1]), static_cast<int>(t[2])});
  }
  return mesh;
}

ConvexMesh LoadConvexMesh(const std::string& file, const Eigen::Vector3d& scale) {
  return MakeConvexMesh(LoadTriangleMesh(file, scale).vertices, file);
}

}  // namespace coulomb
