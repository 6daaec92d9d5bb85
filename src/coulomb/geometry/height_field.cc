#include "coulomb/geometry/height_field.h"

#include <array>
#include <cmath>
#include <stdexcept>

#include "coulomb/geometry/convex_mesh.h"

namespace coulomb {
namespace {

// A triangular prism's boundary: corners 0–2 on top, 3–5 below them; the
// top, the bottom, and each side's two triangles (MakeConvexPolytope turns
// them outward).
const std::vector<std::array<int, 3>> kPrismFaces{{0, 1, 2}, {3, 4, 5}, {0, 1, 4},
                                                  {0, 4, 3}, {1, 2, 5}, {1, 5, 4},
                                                  {2, 0, 3}, {2, 3, 5}};

void Check(const HeightField& field, const std::string& name) {
  const auto fail = [&](const std::string& what) {
    throw std::invalid_argument(name + ": " + what);
  };
  if (field.rows < 2 || field.cols < 2)
    fail("a height field needs at least 2 rows and 2 columns, got " +
         std::to_string(field.rows) + " × " + std::to_string(field.cols));
  if (field.heights.size() != static_cast<size_t>(field.rows) * field.cols)
    fail(std::to_string(field.heights.size()) + " heights for a grid of " +
         std::to_string(field.rows) + " × " + std::to_string(field.cols));
  if (!(field.half_size.array() > 0.0).all() || !field.half_size.allFinite())
    fail("the half-sizes along x and y must be positive");
  if (!(field.base_depth > 0.0) || !std::isfinite(field.base_depth))
    fail("the base depth must be positive");
  for (const double height : field.heights) {
    if (!std::isfinite(height) || height <= -field.base_depth)
      fail("a height must be finite and above the base, got " + std::to_string(height));
  }
}

}  // namespace

std::vector<HeightFieldPrism> HeightFieldPrisms(const HeightField& field,
                                                const std::string& name) {
  Check(field, name);
  const auto point = [&](int r, int c) {
    return Eigen::Vector3d((2.0 * c / (field.cols - 1) - 1.0) * field.half_size.x(),
                           (2.0 * r / (field.rows - 1) - 1.0) * field.half_size.y(),
                           field.heights[r * field.cols + c]);
  };
  std::vector<HeightFieldPrism> prisms;
  prisms.reserve(2 * (field.rows - 1) * (field.cols - 1));
  for (int r = 0; r + 1 < field.rows; ++r) {
    for (int c = 0; c + 1 < field.cols; ++c) {
      const std::array<std::array<Eigen::Vector3d, 3>, 2> triangles{
          {{point(r, c), point(r, c + 1), point(r + 1, c + 1)},
           {point(r, c), point(r + 1, c + 1), point(r + 1, c)}}};
      for (const auto& top : triangles) {
        std::vector<Eigen::Vector3d> corners(top.begin(), top.end());
        for (const Eigen::Vector3d& p : top)
          corners.emplace_back(p.x(), p.y(), -field.base_depth);
        Eigen::AlignedBox3d bounds;
        for (const Eigen::Vector3d& p : corners) bounds.extend(p);
        const Eigen::Vector3d offset = bounds.center();
        for (Eigen::Vector3d& p : corners) p -= offset;
        prisms.push_back(
            {offset, MakeConvexPolytope(std::move(corners), kPrismFaces, name)});
      }
    }
  }
  return prisms;
}

}  // namespace coulomb
