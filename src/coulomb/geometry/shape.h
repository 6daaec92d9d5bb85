#pragma once

#include <array>
#include <limits>
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
// The solid (x/a)² + (y/b)² + (z/c)² ≤ 1, semi_axes = (a, b, c) [m] (an MJCF
// ellipsoid's size). Last in Shape, so that recorded shape codes keep their
// meaning.
struct Ellipsoid {
  Eigen::Vector3d semi_axes = Eigen::Vector3d::Zero();
};
// The region z ≤ 0 of G, outward normal +z. Contacts see all of it; rays
// (RayDistance) meet its surface only within |x| ≤ ray_half_extent[0] and
// |y| ≤ ray_half_extent[1] [m] (an MJCF plane's size, as MuJoCo's rays).
struct HalfSpace {
  Eigen::Vector2d ray_half_extent =
      Eigen::Vector2d::Constant(std::numeric_limits<double>::infinity());
};

// A closed triangulated surface: vertices and triangles (vertex indices,
// counter-clockwise seen from outside, so (b − a) × (c − a) points out), in G.
struct TriangleMesh {
  std::vector<Eigen::Vector3d> vertices;
  std::vector<std::array<int, 3>> triangles;
};

// A convex polytope: its boundary as a closed triangle mesh.
struct ConvexHull : TriangleMesh {
  // Per triangle, its plane n_f·x = d_f (unit outward n_f): the contact
  // query's per-point depth reads them for every contact point.
  std::vector<Eigen::Vector3d> face_normals;
  std::vector<double> face_offsets;
  // Per triangle, the triangle across its edge k, from its corner k to
  // corner k + 1 (mod 3): the contact query's walks over the surface
  // (PatchPolytopeCrossing). Empty for a hull read back from a recording.
  std::vector<std::array<int, 3>> neighbors;
  // Its distinct face normals and the distinct directions (unit, up to
  // sign) of its edges between faces that are not coplanar: the candidate
  // separating axes of polytope_separation.h. Empty for a hull read back
  // from a recording.
  std::vector<Eigen::Vector3d> distinct_normals;
  std::vector<Eigen::Vector3d> edge_directions;
  // Per distinct normal n, the least and greatest n·v over the vertices.
  std::vector<Eigen::Vector2d> distinct_normal_extents;
};
// The convex hull of a mesh's vertices (convex_mesh.h loads them), in the
// mesh file's frame; its centroid need not be G's origin. Copies share the
// hull.
struct ConvexMesh {
  std::string file;  // where it came from, for messages
  std::shared_ptr<const ConvexHull> hull;
};

class SignedDistanceField;  // signed_distance_field.h
// A shape given by its signed distance field (threaded bolt and nut, sampled
// mesh): contact comes from its surface samples against the other shape's
// distance (sdf_collision.h). `field` is null for a shape read back from a
// recorded run, which keeps only its display surface. Copies share both.
struct SdfShape {
  std::string description;  // e.g. "threaded bolt M48x5, 80 mm", for messages
  std::shared_ptr<const SignedDistanceField> field;
  std::shared_ptr<const TriangleMesh> surface;  // closed, for display and mass
};

using Shape = std::variant<Sphere, Box, Capsule, Cylinder, HalfSpace, ConvexMesh,
                           SdfShape, Ellipsoid>;

std::string ShapeName(const Shape& shape);

// A shape's size as three numbers [m], as recordings and the viewer carry
// it: sphere (r, 0, 0); box edge lengths; capsule and cylinder (r, length,
// 0); ellipsoid semi-axes; zeros for the others.
Eigen::Vector3d ShapeSize(const Shape& shape);

// The closed triangle surface of a mesh-like shape (a convex mesh's hull, an
// SDF shape's display surface), nullptr for the primitives.
const TriangleMesh* SurfaceMesh(const Shape& shape);

// Throws std::invalid_argument if a dimension is not positive and finite.
void ValidateShape(const Shape& shape);

// Volume [m³] (infinite for a half-space) and the rotational inertia about the
// centroid of a uniform solid of unit density [m⁵], in G. Polytopes and SDF
// shapes: sums over the tetrahedra (origin, triangle) of their closed
// surface, by the divergence theorem.
double Volume(const Shape& shape);
// The centroid in G (the origin for the primitives) [m].
Eigen::Vector3d Centroid(const Shape& shape);
// Radius of the smallest sphere about G's origin that contains the shape
// [m] (infinite for a half-space): the broad phase's bound.
double BoundingRadius(const Shape& shape);
Eigen::Matrix3d UnitDensityInertia(const Shape& shape);
// Volume, Centroid and UnitDensityInertia at once, for a body of the shape
// (not a half-space): a mesh-like shape's surface is summed once, not once
// for each.
struct UnitDensityMass {
  double volume = 0.0;                                 // [m³]
  Eigen::Vector3d centroid = Eigen::Vector3d::Zero();  // in G [m]
  Eigen::Matrix3d inertia = Eigen::Matrix3d::Zero();   // about the centroid [m⁵]
};
UnitDensityMass UnitDensityMassProperties(const Shape& shape);

}  // namespace coulomb
