#pragma once

#include <map>
#include <string>
#include <vector>

#include "coulomb/sim/scene.h"

namespace coulomb {

struct BuiltinSceneInfo {
  std::string name;
  std::string description;
};
std::vector<BuiltinSceneInfo> BuiltinScenes();

// Builds a built-in scene. `options` are scene-specific key=value settings
// (clutter: bodies=N (multiple of 4), walls=true|false); unknown names or
// keys throw std::invalid_argument listing what is valid.
Scene MakeBuiltinScene(const std::string& name,
                       const std::map<std::string, std::string>& options = {});

}  // namespace coulomb
