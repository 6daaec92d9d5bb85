#pragma once

#include <Eigen/Dense>

namespace coulomb {

// The point of triangle (a, b, c) nearest p (Ericson, Real-Time Collision
// Detection §5.1.5: by the Voronoi regions of its vertices, edges and face).
// A sampled mesh's distance field, a sphere against a convex polytope.
Eigen::Vector3d ClosestPointOnTriangle(const Eigen::Vector3d& p, const Eigen::Vector3d& a,
                                       const Eigen::Vector3d& b,
                                       const Eigen::Vector3d& c);

}  // namespace coulomb
