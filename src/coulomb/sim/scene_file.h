#pragma once

#include <stdexcept>
#include <string>

#include "coulomb/sim/scene.h"

namespace coulomb {

// An error in a scene file: "FILE:LINE: KEY: what is wrong".
struct SceneFileError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Loads a YAML scene (format in scenes/README.md): time_step, duration,
// scheme, gravity, contact defaults, solver settings, bodies. Everything is
// validated before anything runs: unknown keys, wrong types, non-finite or
// out-of-range numbers, missing files; the first problem throws
// SceneFileError naming the file, the line and the key.
// An MJCF file (".xml") loads as the scene of its robot run by itself
// (MjcfSceneText, mjcf_scene_file.h), its errors naming the file alone,
// started at its <key> `keyframe` if one is named (a YAML scene names a
// robot's keyframe in its entry: a `keyframe` here is refused).
Scene LoadSceneFile(const std::string& path, const std::string& keyframe = "");
// The same from YAML (or JSON) text; `origin` stands for the file in error
// messages and relative paths (mesh and URDF files) are resolved against its
// folder (none: the working directory). The scene is named after origin.
Scene LoadSceneText(const std::string& text, const std::string& origin);

}  // namespace coulomb
