#pragma once

#include <Eigen/Geometry>
#include <map>
#include <string>

namespace coulomb {

// A named <site> of an MJCF file: the body it is on ("" for the world's), its
// pose there X_BS (pos and orientation, or fromto; frames flattened:
// ReadMjcfRoot), and its shape, which a touch sensor's volume is: `type`
// sphere, capsule, ellipsoid, cylinder or box and MuJoCo's `size` (a radius;
// a radius and half-length along z; three semi-axes or half-sizes). Each
// attribute from the site, else its class (its own `class`, else the nearest
// enclosing body's or frame's `childclass`).
struct MjcfSite {
  std::string body;
  Eigen::Isometry3d X_BS = Eigen::Isometry3d::Identity();
  std::string type = "sphere";
  Eigen::Vector3d size = Eigen::Vector3d::Constant(0.005);  // MuJoCo's default
};

// The named sites of the MJCF file at `path`. Throws std::runtime_error
// naming the site for an unknown type, a size that is not numbers, or a
// fromto that is not six numbers, whose ends coincide or is on a sphere.
std::map<std::string, MjcfSite> ReadMjcfSites(const std::string& path);

}  // namespace coulomb
