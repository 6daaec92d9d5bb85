#pragma once

#include <Eigen/Dense>
#include <string>
#include <vector>

namespace coulomb {

// An MJCF <equality><connect body1 body2 anchor>: the point `anchor` of
// body1 (in its frame [m]) held where it coincides, in MuJoCo's initial
// configuration qpos0, with a point of body2 (the world when body2 is not
// given). A <weld body1 body2> holds body1's origin and orientation where
// they are relative to body2 at qpos0 (anchor zero). Site forms (site1,
// site2) are not read.
struct MjcfConnect {
  std::string body_a;  // body1
  std::string body_b;  // body2; empty: the world
  Eigen::Vector3d anchor = Eigen::Vector3d::Zero();
  bool weld = false;
};

// The file's active connects and welds given by bodies. Throws
// std::runtime_error naming body1 for an anchor that is not three finite
// numbers, or a weld's relpose (only the pose at qpos0 is read).
std::vector<MjcfConnect> ReadMjcfConnects(const std::string& path);

}  // namespace coulomb
