#pragma once

#include <array>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "coulomb/geometry/shape.h"

namespace coulomb {

// Convex meshes for collision: the convex hull (Qhull, through Coal) of a
// point set or of a mesh file's vertices. Triangles are oriented outward.
// A non-convex mesh is replaced by its hull: contact sees the hull only.

// Throws std::invalid_argument naming `name` if the points span no volume.
ConvexMesh MakeConvexMesh(const std::vector<Eigen::Vector3d>& points,
                          const std::string& name);

// A convex polytope from its boundary, given as its vertices and a closed
// triangulation of them (each triangle turned outward here, from the
// vertices' mean), without a hull computation: for polytopes whose faces are
// known (a height field's prisms). The triangles must bound a convex solid.
ConvexMesh MakeConvexPolytope(std::vector<Eigen::Vector3d> vertices,
                              const std::vector<std::array<int, 3>>& triangles,
                              const std::string& name);

// Loads a mesh file (STL, OBJ, DAE, … through Coal's Assimp reader), scales
// its vertices per axis and takes their hull. Throws std::runtime_error
// naming the file if it is missing or unreadable, std::invalid_argument if
// the scale is not positive or the hull is flat.
ConvexMesh LoadConvexMesh(const std::string& file,
                          const Eigen::Vector3d& scale = Eigen::Vector3d::Ones());

// Loads a mesh file's triangles as they are (scaled per axis), for the
// sampled signed distance fields of sampled_mesh_sdf.h. Same errors.
TriangleMesh LoadTriangleMesh(const std::string& file,
                              const Eigen::Vector3d& scale = Eigen::Vector3d::Ones());

}  // namespace coulomb
