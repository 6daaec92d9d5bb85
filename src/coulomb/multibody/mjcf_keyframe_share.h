#pragma once

#include <boost/property_tree/ptree.hpp>
#include <string>
#include <vector>

namespace coulomb {

// The <keyframe> section of an MJCF file of several top-level bodies, cut to
// one body's share of the file (MjcfBodyFile). MuJoCo's qpos and qvel list
// the joints of <worldbody>'s elements one after the other in file order
// (ReadMjcfTopLevelJoints), and ctrl every actuator of <actuator>: each
// <key> keeps the entries of `body`'s joints, and of the actuators the
// share keeps (`actuator_kept`, one flag per actuator of the file, in
// order). `path`: the file, `root` its <mujoco> element; `keyframes`: its
// <keyframe>.
// Throws std::runtime_error naming the key when its qpos, qvel or ctrl has
// not as many numbers as the file has entries (MuJoCo's sizes nq, nv, nu).
boost::property_tree::ptree KeyframesOfBody(const std::string& path,
                                            const boost::property_tree::ptree& root,
                                            const boost::property_tree::ptree& keyframes,
                                            const std::string& body,
                                            const std::vector<bool>& actuator_kept);

}  // namespace coulomb
