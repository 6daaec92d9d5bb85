#pragma once

#include <set>
#include <string>
#include <vector>

#include "coulomb/sim/scene_mjcf_reader.h"
#include "coulomb/sim/scene_reader.h"

namespace coulomb {

// Reads one entry of a scene's `robots` list (format in scenes/README.md):
// the URDF, base, pose, initial joint positions, contact overrides, joint
// limits, PD controllers and springs; adds the robot to the scene, and the
// MJCF file's world geoms (a floor) as static geometry after its links'
// unless `world_geoms: false`. Returns how many world geoms it added. A
// moving robot of an MJCF file is listed in `sources`, for
// AddMjcfLinksBetweenRobots once every robot is read.
int ReadRobot(const SceneReader& r, const YAML::Node& node, const std::string& key,
              const ContactMaterial& defaults, std::set<std::string>* names, Scene* scene,
              std::vector<MjcfTreeSource>* sources);

}  // namespace coulomb
