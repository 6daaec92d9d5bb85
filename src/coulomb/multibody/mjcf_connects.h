#pragma once

#include <Eigen/Dense>
#include <Eigen/Geometry>
#include <string>
#include <vector>

namespace coulomb {

// An MJCF <equality><connect body1 body2 anchor>: the point `anchor` of
// body1 (in its frame [m]) held where it coincides, in MuJoCo's initial
// configuration qpos0, with a point of body2 (the world when body2 is not
// given). A <weld body1 body2> holds body1's origin and orientation where
// they are relative to body2 at qpos0 (anchor zero), unless its relpose
// gives that pose: then body1's frame S1 = (relpos, relpose's turn) and
// body2's S2 = (its anchor, no turn) are held together, as MuJoCo's weld.
// Given by sites (<connect site1 site2>, <weld site1 site2>), MuJoCo holds
// the two sites together whatever qpos0 says: site1's position on its body
// at site2's on its own (or the world's), and a weld their frames'
// orientations too.
struct MjcfConnect {
  std::string body_a;  // body1, or site1's body
  std::string body_b;  // body2, or site2's body; empty: the world
  Eigen::Vector3d anchor = Eigen::Vector3d::Zero();  // in body_a [m]
  bool weld = false;
  bool by_sites = false;  // named by sites (site1, site2)
  // The frames held together are given (by sites or a weld's relpose), not
  // the pose at qpos0: S1's pose in body_a and S2's in body_b (in the world
  // when body_b is empty); the constraint holds X_WA X_AS1 = X_WB X_BS2.
  bool frames_given = false;
  Eigen::Isometry3d X_AS1 = Eigen::Isometry3d::Identity();
  Eigen::Isometry3d X_BS2 = Eigen::Isometry3d::Identity();
  std::string name;  // its name, or equality<k>: k its index among the file's equalities
  bool active = true;  // MuJoCo's active (eq_active0)
};

// The file's connects and welds given by bodies or by sites, active or not.
// Throws std::runtime_error naming body1 for an anchor that is not three
// finite numbers or a weld's relpose that is not seven, and naming a site
// that the file lacks, or two sites of the world.
std::vector<MjcfConnect> ReadMjcfConnects(const std::string& path);

}  // namespace coulomb
