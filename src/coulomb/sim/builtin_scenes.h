#pragma once

#include <map>
#include <string>
#include <vector>

#include "coulomb/sim/multibody_system.h"
#include "coulomb/sim/time_stepper.h"

namespace coulomb {

// A runnable scene: the system, the stepper parameters and the duration.
struct Scene {
  std::string name = "empty";
  MultibodySystem system;
  TimeStepperParameters parameters;
  double duration = 1.0;  // [s]
};

struct BuiltinSceneInfo {
  std::string name;
  std::string description;
};
std::vector<BuiltinSceneInfo> BuiltinScenes();

// example-robot-data's robots folder: $COULOMB_ROBOT_DATA_DIR if set, else
// the folder configured at build time (the .venv copy).
std::string RobotDataDirectory();

// Builds a built-in scene. `options` are scene-specific key=value settings
// (clutter: bodies=N (multiple of 4), walls=true|false); unknown names or
// keys throw std::invalid_argument listing what is valid.
Scene MakeBuiltinScene(const std::string& name,
                       const std::map<std::string, std::string>& options = {});

}  // namespace coulomb
