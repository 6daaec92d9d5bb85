#include "coulomb/geometry/sampled_mesh_sdf.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <memory>
#include <mutex>
#include <numbers>
#include <stdexcept>
#include <tuple>
#include <utility>
#include <vector>

#include "coulomb/geometry/convex_mesh.h"
#include "coulomb/geometry/signed_distance_field.h"
#include "coulomb/geometry/triangle_distance.h"

namespace coulomb {
namespace {

constexpr double kPi = std::numbers::pi;

// The solid angle of triangle (a, b, c) seen from p, signed by orientation
// (Van Oosterom and Strackee's formula).
double SolidAngle(const Eigen::Vector3d& p, const Eigen::Vector3d& a,
                  const Eigen::Vector3d& b, const Eigen::Vector3d& c) {
  const Eigen::Vector3d x = a - p, y = b - p, z = c - p;
  const double lx = x.norm(), ly = y.norm(), lz = z.norm();
  const double numerator = x.dot(y.cross(z));
  const double denominator = lx * ly * lz + x.dot(y) * lz + y.dot(z) * lx + z.dot(x) * ly;
  return 2.0 * std::atan2(numerator, denominator);
}

// The mesh with coincident vertices merged (files often repeat a vertex per
// triangle), checked closed, turned outward.
TriangleMesh WeldedClosedMesh(const TriangleMesh& input, const std::string& name) {
  TriangleMesh mesh;
  std::map<std::array<double, 3>, int> index_of;
  std::vector<int> remap(input.vertices.size());
  for (size_t v = 0; v < input.vertices.size(); ++v) {
    const Eigen::Vector3d& p = input.vertices[v];
    if (!p.allFinite()) throw std::invalid_argument(name + ": a vertex is not finite");
    const auto [it, inserted] =
        index_of.emplace(std::array<double, 3>{p.x(), p.y(), p.z()},
                         static_cast<int>(mesh.vertices.size()));
    if (inserted) mesh.vertices.push_back(p);
    remap[v] = it->second;
  }
  std::map<std::pair<int, int>, int> edge_uses;
  for (const auto& triangle : input.triangles) {
    std::array<int, 3> t;
    for (int k = 0; k < 3; ++k) {
      if (triangle[k] < 0 || triangle[k] >= static_cast<int>(remap.size()))
        throw std::invalid_argument(name + ": a triangle's vertex index is out of range");
      t[k] = remap[triangle[k]];
    }
    if (t[0] == t[1] || t[1] == t[2] || t[0] == t[2]) continue;  // degenerate
    mesh.triangles.push_back(t);
    for (int k = 0; k < 3; ++k) ++edge_uses[std::minmax(t[k], t[(k + 1) % 3])];
  }
  for (const auto& [edge, uses] : edge_uses) {
    if (uses != 2) {
      throw std::invalid_argument(
          name + ": not a closed surface (an edge is shared by " + std::to_string(uses) +
          " triangles, not 2); a sampled SDF needs a watertight mesh");
    }
  }
  double volume = 0.0;
  for (const auto& [a, b, c] : mesh.triangles)
    volume += mesh.vertices[a].dot(mesh.vertices[b].cross(mesh.vertices[c])) / 6.0;
  if (!(std::abs(volume) > 0.0))
    throw std::invalid_argument(name + ": encloses no volume");
  if (volume < 0.0) {
    for (auto& t : mesh.triangles) std::swap(t[1], t[2]);
  }
  return mesh;
}

class SampledMeshField final : public SignedDistanceField {
 public:
  SampledMeshField(const TriangleMesh& mesh, int resolution) {
    Eigen::AlignedBox3d box;
    for (const Eigen::Vector3d& v : mesh.vertices) box.extend(v);
    spacing_ = box.sizes().maxCoeff() / resolution;
    origin_ = box.min() - Eigen::Vector3d::Constant(2.0 * spacing_);
    for (int k = 0; k < 3; ++k)
      counts_[k] = static_cast<int>(std::ceil(box.sizes()[k] / spacing_)) + 5;
    values_.resize(static_cast<size_t>(counts_[0]) * counts_[1] * counts_[2]);
    for (int i = 0; i < counts_[0]; ++i)
      for (int j = 0; j < counts_[1]; ++j)
        for (int k = 0; k < counts_[2]; ++k)
          values_[Index(i, j, k)] = MeshDistance(mesh, Node(i, j, k));
    SetSurfaceSamples(SurfaceCandidates(mesh), 0.01 * spacing_);
  }

  double Evaluate(const Eigen::Vector3d& p, Eigen::Vector3d* gradient) const override {
    const Eigen::Vector3d upper = Node(counts_[0] - 1, counts_[1] - 1, counts_[2] - 1);
    const Eigen::Vector3d inside = p.cwiseMax(origin_).cwiseMin(upper);
    Eigen::Vector3d cell_gradient;
    const double phi = Interpolate(inside, &cell_gradient);
    const Eigen::Vector3d outside = p - inside;
    const double gap = outside.norm();
    if (gradient) *gradient = gap > 0.0 ? Eigen::Vector3d(outside / gap) : cell_gradient;
    return phi + gap;
  }

 private:
  size_t Index(int i, int j, int k) const {
    return (static_cast<size_t>(i) * counts_[1] + j) * counts_[2] + k;
  }
  Eigen::Vector3d Node(int i, int j, int k) const {
    return origin_ + spacing_ * Eigen::Vector3d(i, j, k);
  }

  static double MeshDistance(const TriangleMesh& mesh, const Eigen::Vector3d& p) {
    double distance2 = std::numeric_limits<double>::infinity(), solid_angle = 0.0;
    for (const auto& [a, b, c] : mesh.triangles) {
      const Eigen::Vector3d &va = mesh.vertices[a], &vb = mesh.vertices[b],
                            &vc = mesh.vertices[c];
      distance2 =
          std::min(distance2, (ClosestPointOnTriangle(p, va, vb, vc) - p).squaredNorm());
      solid_angle += SolidAngle(p, va, vb, vc);
    }
    const bool inside = solid_angle / (4.0 * kPi) > 0.5;
    return (inside ? -1.0 : 1.0) * std::sqrt(distance2);
  }

  // Trilinear interpolation in the cell holding p (p within the grid).
  double Interpolate(const Eigen::Vector3d& p, Eigen::Vector3d* gradient) const {
    const Eigen::Vector3d scaled = (p - origin_) / spacing_;
    int cell[3];
    Eigen::Vector3d t;
    for (int d = 0; d < 3; ++d) {
      cell[d] = std::clamp(static_cast<int>(std::floor(scaled[d])), 0, counts_[d] - 2);
      t[d] = scaled[d] - cell[d];
    }
    double phi = 0.0;
    gradient->setZero();
    for (int corner = 0; corner < 8; ++corner) {
      const int offset[3] = {corner & 1, (corner >> 1) & 1, (corner >> 2) & 1};
      const double value =
          values_[Index(cell[0] + offset[0], cell[1] + offset[1], cell[2] + offset[2])];
      Eigen::Vector3d factor;  // the corner's weight, one factor per axis
      for (int d = 0; d < 3; ++d) factor[d] = offset[d] ? t[d] : 1.0 - t[d];
      phi += value * factor.prod();
      for (int d = 0; d < 3; ++d) {
        Eigen::Vector3d derivative = factor;
        derivative[d] = (offset[d] ? 1.0 : -1.0) / spacing_;
        (*gradient)[d] += value * derivative.prod();
      }
    }
    return phi;
  }

  // The vertices and, on each triangle, a barycentric grid of points at
  // most one spacing apart.
  std::vector<Eigen::Vector3d> SurfaceCandidates(const TriangleMesh& mesh) const {
    std::vector<Eigen::Vector3d> points = mesh.vertices;
    for (const auto& [a, b, c] : mesh.triangles) {
      const Eigen::Vector3d &va = mesh.vertices[a], &vb = mesh.vertices[b],
                            &vc = mesh.vertices[c];
      const double longest =
          std::max({(vb - va).norm(), (vc - vb).norm(), (va - vc).norm()});
      const int n = static_cast<int>(std::ceil(longest / spacing_));
      for (int i = 1; i < n; ++i)
        for (int j = 1; i + j < n; ++j)
          points.push_back(va + (vb - va) * i / n + (vc - va) * j / n);
    }
    return points;
  }

  double spacing_ = 0.0;
  Eigen::Vector3d origin_;
  int counts_[3] = {0, 0, 0};
  std::vector<double> values_;
};

}  // namespace

SdfShape MakeSampledMeshSdf(const TriangleMesh& mesh, const std::string& name,
                            int resolution) {
  if (resolution < 4 || resolution > 256) {
    throw std::invalid_argument(name + ": SDF resolution must be in [4, 256], got " +
                                std::to_string(resolution));
  }
  auto surface = std::make_shared<TriangleMesh>(WeldedClosedMesh(mesh, name));
  // Each grid node visits every triangle: the work is bounded (3e8 visits,
  // about a second) rather than left to hang on a fine grid of a big mesh.
  const double visits = std::pow(resolution + 5.0, 3) * surface->triangles.size();
  if (visits > 3e8) {
    throw std::invalid_argument(name + ": " + std::to_string(surface->triangles.size()) +
                                " triangles are too many for an SDF grid of resolution " +
                                std::to_string(resolution) + "; lower the resolution");
  }
  auto field = std::make_shared<SampledMeshField>(*surface, resolution);
  return MakeSdfShape("mesh SDF '" + name + "'", std::move(field), std::move(surface));
}

SdfShape LoadSampledMeshSdf(const std::string& file, const Eigen::Vector3d& scale,
                            int resolution) {
  using Key = std::tuple<std::string, double, double, double, int>;
  static std::mutex mutex;
  static std::map<Key, SdfShape> cache;
  const Key key{file, scale.x(), scale.y(), scale.z(), resolution};
  {
    const std::lock_guard<std::mutex> lock(mutex);
    if (const auto it = cache.find(key); it != cache.end()) return it->second;
  }
  SdfShape shape = MakeSampledMeshSdf(LoadTriangleMesh(file, scale), file, resolution);
  const std::lock_guard<std::mutex> lock(mutex);
  return cache.emplace(key, std::move(shape)).first->second;
}

}  // namespace coulomb
