// Fuzzes the scene reader: YAML scene text (LoadSceneText), or a built-in
// scene with --set overrides when the input starts with "builtin NAME" and
// continues with key=value lines (MakeBuiltinScene, as `coulomb run NAME
// --set key=value` passes them). Accepted: a scene, SceneFileError (YAML) or
// std::invalid_argument (options). An accepted small scene is then stepped
// once (a Simulation may refuse it with std::invalid_argument, e.g. bodies
// crowded in one spot): whatever a scene file can say must not crash the
// engine.
#include <map>
#include <optional>
#include <sstream>
#include <string>

#include "coulomb/scenes/builtin_scenes.h"
#include "coulomb/sim/scene_file.h"
#include "coulomb/sim/simulation.h"
#include "fuzz_harness.h"

namespace {

constexpr char kBuiltinPrefix[] = "builtin ";
// Scenes with more trees are built but not stepped (a step of a big scene
// is slow, not wrong, and libFuzzer would report it as a hang).
constexpr int kMaxSteppedTrees = 12;

// "builtin NAME\nkey=value\n…" → MakeBuiltinScene; throws
// std::invalid_argument like the CLI's --set parsing would refuse.
coulomb::Scene BuiltinSceneFromText(const std::string& text) {
  std::istringstream lines(text.substr(sizeof(kBuiltinPrefix) - 1));
  std::string name, line;
  std::getline(lines, name);
  std::map<std::string, std::string> options;
  while (std::getline(lines, line)) {
    const size_t equals = line.find('=');
    if (equals == std::string::npos || equals == 0)
      throw std::invalid_argument("--set expects key=value");
    options[line.substr(0, equals)] = line.substr(equals + 1);
  }
  return coulomb::MakeBuiltinScene(name, options);
}

void StepOnce(coulomb::Scene scene) {
  if (scene.system.num_trees() > kMaxSteppedTrees) return;
  std::optional<coulomb::Simulation> simulation;
  try {
    simulation.emplace(std::move(scene));
  } catch (const std::invalid_argument&) {
    return;  // refused as documented (e.g. bodies crowded in one spot)
  }
  simulation->set_recording(false);
  simulation->Step();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  coulomb::Scene scene;
  try {
    scene = text.starts_with(kBuiltinPrefix)
                ? BuiltinSceneFromText(text)
                : coulomb::LoadSceneText(text, "fuzz_scene.yaml");
  } catch (const coulomb::SceneFileError&) {
    return 0;
  } catch (const std::invalid_argument&) {
    return 0;
  } catch (const std::exception& error) {
    coulomb::fuzz::FailOnUnexpected("scene reader", error);
  }
  try {
    StepOnce(std::move(scene));
  } catch (const std::exception& error) {
    coulomb::fuzz::FailOnUnexpected("first step", error);
  }
  return 0;
}
