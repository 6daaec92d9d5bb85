#pragma once

#include <array>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include <Eigen/Dense>

namespace coulomb {

// Collision shapes, each in its own geometry frame G (SI units, meters).
struct Sphere {
  double radius = 0.0;
};
struct Box {
  Eigen::Vector3d size = Eigen::Vector3d::Zero();  // full edge lengths along x, y, z
};
struct Capsule {  // axis along z, `length` between the hemisphere centers
  double radius = 0.0;
  double length = 0.0;
};
struct Cylinder {  // axis along z
  double radius = 0.0;
  double length = 0.0;
};
struct HalfSpace {};  // the region z ≤ 0 of G, outward normal +z

// A convex polytope: its vertices and its boundary triangles (vertex
// indices, counter-clockwise seen from outside, so (b − a) × (c − a) points
// out), in G.
struct ConvexHull {
  std::vector<Eigen::Vector3d> vertices;
  std::vector<std::array<int, 3>> triangles;
  // Per triangle, its plane n_f·x = d_f (unit outward n_f): the contact
  // query's per-point depth reads them for every contact point.
  std::vector<Eigen::Vector3d> face_normals;
  std::vector<double> face_offsets;
};
// The convex hull of a mesh's vertices (convex_mesh.h loads them), in the
// mesh file's frame; its centroid need not be G's origin. Copies share the
// hull.
struct ConvexMesh {
  std::string file;  // where it came from, for messages
  std::shared_ptr<const ConvexHull> hull;
};

using Shape = std::variant<Sphere, Box, Capsule, Cylinder, HalfSpace, ConvexMesh>;

std::string ShapeName(const Shape& shape);

// Throws std::invalid_argument if a dimension is not positive and finite.
void ValidateShape(const Shape& shape);

// Volume [m³] (infinite for a half-space) and the rotational inertia about the
// centroid of a uniform solid of unit density [m⁵], in G. Polytopes: sums over
// the tetrahedra (origin, triangle) by the divergence theorem.
double Volume(const Shape& shape);
// The centroid in G (the origin for every shape but a convex mesh) [m].
Eigen::Vector3d Centroid(const Shape& shape);
// Radius of the smallest sphere about G's origin that contains the shape
// [m] (infinite for a half-space): the broad phase's bound.
double BoundingRadius(const Shape& shape);
Eigen::Matrix3d UnitDensityInertia(const Shape& shape);

}  // namespace coulomb
