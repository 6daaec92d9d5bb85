#pragma once

#include <string>
#include <vector>

#include <Eigen/Geometry>

namespace coulomb {

// An MJCF <body mocap="true">: a body of the world that does not move by
// itself; a script sets its pose (MuJoCo's mocap_pos and mocap_quat), and
// its geoms, and the connects and welds that name it, follow. MuJoCo
// allows it only as a child of <worldbody>, without joints.
struct MjcfMocapBody {
  std::string name;
  Eigen::Isometry3d X_WB = Eigen::Isometry3d::Identity();  // where the file puts it
};

// The file's mocap bodies, in file order. Throws std::runtime_error naming
// the body for a mocap body that is not a child of <worldbody>, has a joint,
// or has no name.
std::vector<MjcfMocapBody> ReadMjcfMocapBodies(const std::string& path);

}  // namespace coulomb
