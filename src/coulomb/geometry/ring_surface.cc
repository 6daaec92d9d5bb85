#include "coulomb/geometry/ring_surface.h"

#include <cmath>
#include <numbers>
#include <utility>

namespace coulomb {

std::vector<Eigen::Vector3d> Ring(double z, const std::function<double(double)>& radius) {
  std::vector<Eigen::Vector3d> ring(kRingFacets);
  for (int j = 0; j < kRingFacets; ++j) {
    const double theta = 2.0 * std::numbers::pi * j / kRingFacets;
    const double r = radius(theta);
    ring[j] = Eigen::Vector3d(r * std::cos(theta), r * std::sin(theta), z);
  }
  return ring;
}

std::shared_ptr<TriangleMesh> RingSurface(
    const std::vector<std::vector<Eigen::Vector3d>>& rings, bool cyclic) {
  auto mesh = std::make_shared<TriangleMesh>();
  const int n = kRingFacets;
  for (const auto& ring : rings)
    mesh->vertices.insert(mesh->vertices.end(), ring.begin(), ring.end());
  const int num_rings = static_cast<int>(rings.size());
  const auto at = [&](int ring, int j) { return ring * n + (j % n); };
  for (int k = 0; k + 1 < num_rings + (cyclic ? 1 : 0); ++k) {
    const int next = (k + 1) % num_rings;
    for (int j = 0; j < n; ++j) {
      mesh->triangles.push_back({at(k, j), at(k, j + 1), at(next, j + 1)});
      mesh->triangles.push_back({at(k, j), at(next, j + 1), at(next, j)});
    }
  }
  if (!cyclic) {
    for (int end : {0, num_rings - 1}) {
      Eigen::Vector3d center = Eigen::Vector3d::Zero();
      for (const Eigen::Vector3d& v : rings[end]) center += v / n;
      const int c = static_cast<int>(mesh->vertices.size());
      mesh->vertices.push_back(center);
      for (int j = 0; j < n; ++j) {
        if (end == 0)
          mesh->triangles.push_back({c, at(end, j + 1), at(end, j)});
        else
          mesh->triangles.push_back({c, at(end, j), at(end, j + 1)});
      }
    }
  }
  double signed_volume = 0.0;
  for (const auto& [a, b, c] : mesh->triangles)
    signed_volume += mesh->vertices[a].dot(mesh->vertices[b].cross(mesh->vertices[c]));
  if (signed_volume < 0.0) {
    for (auto& triangle : mesh->triangles) std::swap(triangle[1], triangle[2]);
  }
  return mesh;
}

}  // namespace coulomb
