#include "coulomb/sim/mjcf_scene_file.h"

#include <yaml-cpp/yaml.h>

#include <filesystem>

#include "coulomb/multibody/mjcf_options.h"
#include "coulomb/sim/scene_file.h"

namespace coulomb {

bool IsMjcfFile(const std::string& path) { return path.ends_with(".xml"); }

std::string MjcfSceneText(const std::string& path) {
  if (!std::filesystem::is_regular_file(path))
    throw SceneFileError(path + ": file not found");
  MjcfOptions options;
  try {
    options = ReadMjcfOptions(path);
  } catch (const std::exception& e) {
    throw SceneFileError(path + ": " + e.what());
  }
  const std::filesystem::path file(path);
  YAML::Emitter out;
  out.SetDoublePrecision(17);
  out << YAML::BeginMap;
  out << YAML::Key << "time_step" << YAML::Value << options.timestep;
  out << YAML::Key << "gravity" << YAML::Value << YAML::Flow << YAML::BeginSeq
      << options.gravity.x() << options.gravity.y() << options.gravity.z() << YAML::EndSeq;
  out << YAML::Key << "robots" << YAML::Value << YAML::BeginSeq << YAML::BeginMap;
  out << YAML::Key << "name" << YAML::Value
      << (options.model.empty() ? file.stem().string() : options.model);
  // Resolved against the scene's folder, which is the file's own.
  out << YAML::Key << "mjcf" << YAML::Value << file.filename().string();
  out << YAML::EndMap << YAML::EndSeq << YAML::EndMap;
  return std::string("# ") + file.filename().string() + " run as a scene by itself\n" +
         out.c_str() + "\n";
}

}  // namespace coulomb
