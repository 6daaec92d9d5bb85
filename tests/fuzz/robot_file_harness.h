#pragma once

// A fuzz harness for a robot's model file (urdf_fuzzer, mjcf_fuzzer): the
// input is the file, loaded as a robot of a scene (the parser, the model
// building, the link geometries, our checks of masses, inertias and joint
// limits, the file's joint elements), then stepped once on the ground. A
// URDF robot floats; an MJCF robot's base is the file's (floating when its
// root body has a free joint). An MJCF file is also run as a scene by
// itself (each top-level body a robot, its world geoms, its <option>).
// Accepted: a scene that steps, or SceneFileError (one line naming the file; a parser's
// own console output is folded into it).
#include <filesystem>
#include <fstream>
#include <string>

#include "coulomb/sim/scene_file.h"
#include "coulomb/sim/simulation.h"
#include "fuzz_harness.h"

namespace coulomb::fuzz {

// format: the scene's key for the file ("urdf", "mjcf"); suffix: its
// file name's (".urdf", ".xml").
inline int LoadRobotFile(const uint8_t* data, size_t size, const std::string& format,
                         const std::string& suffix) {
  static const std::string path = ScratchPath(suffix);
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  const std::string scene =
      "time_step: 0.01\n"
      "bodies:\n"
      "  - {name: ground, shape: {halfspace: {}}, fixed: true}\n"
      "robots:\n"
      "  - name: r\n"
      "    " +
      format + ": " + path + "\n" + (format == "urdf" ? "    base: floating\n" : "") +
      "    pose: {position: [0, 0, 0.3]}\n";
  const auto step_once = [&](const auto& load, const char* what) {
    try {
      Simulation simulation(load());
      simulation.set_recording(false);
      simulation.Step();
    } catch (const SceneFileError&) {
    } catch (const std::exception& error) {
      FailOnUnexpected((format + what).c_str(), error);
    }
  };
  step_once([&] { return LoadSceneText(scene, "fuzz.yaml"); }, " scene");
  if (format == "mjcf")
    step_once([&] { return LoadSceneFile(path); }, " file as a scene");
  std::error_code ignored;
  std::filesystem::remove(path, ignored);
  return 0;
}

}  // namespace coulomb::fuzz
