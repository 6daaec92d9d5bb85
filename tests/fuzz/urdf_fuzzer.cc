// Fuzzes the URDF path of a scene: the input is a URDF file, loaded as a
// robot of a scene (urdfdom, Pinocchio's model building, the link
// geometries, our validation of masses and inertias), then stepped once on
// the ground. Accepted: a scene that steps, or SceneFileError (one line
// naming the file; urdfdom's own output is folded into it).
#include <filesystem>
#include <fstream>
#include <string>

#include "coulomb/sim/scene_file.h"
#include "coulomb/sim/simulation.h"
#include "fuzz_harness.h"

namespace {

std::string SceneText(const std::string& urdf_path) {
  return "time_step: 0.01\n"
         "bodies:\n"
         "  - {name: ground, shape: {halfspace: {}}, fixed: true}\n"
         "robots:\n"
         "  - name: r\n"
         "    urdf: " +
         urdf_path +
         "\n"
         "    base: floating\n"
         "    pose: {position: [0, 0, 0.3]}\n";
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string path = coulomb::fuzz::ScratchPath(".urdf");
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  try {
    coulomb::Simulation simulation(coulomb::LoadSceneText(SceneText(path), "fuzz.yaml"));
    simulation.set_recording(false);
    simulation.Step();
  } catch (const coulomb::SceneFileError&) {
  } catch (const std::exception& error) {
    coulomb::fuzz::FailOnUnexpected("URDF scene", error);
  }
  std::error_code ignored;
  std::filesystem::remove(path, ignored);
  return 0;
}
