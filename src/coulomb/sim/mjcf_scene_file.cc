#include "coulomb/sim/mjcf_scene_file.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>

#include "coulomb/multibody/mjcf_body_file.h"
#include "coulomb/multibody/mjcf_joints.h"
#include "coulomb/multibody/mjcf_mocap_bodies.h"
#include "coulomb/multibody/mjcf_options.h"
#include "coulomb/sim/scene_file.h"

namespace coulomb {

bool IsMjcfFile(const std::string& path) { return path.ends_with(".xml"); }

std::string MjcfSceneText(const std::string& path, const std::string& keyframe) {
  if (!std::filesystem::is_regular_file(path))
    throw SceneFileError(path + ": file not found");
  MjcfOptions options;
  std::vector<std::string> bodies;
  std::vector<bool> keyed;  // whether a keyframe places each body: it has a
                            // joint, or is a mocap body
  try {
    options = ReadMjcfOptions(path);
    bodies = ReadMjcfTopLevelBodies(path);
    for (const MjcfElementJoints& element : ReadMjcfTopLevelJoints(path))
      if (element.is_body) keyed.push_back(!element.joints.empty());
    for (const MjcfMocapBody& mocap : ReadMjcfMocapBodies(path))
      keyed[std::find(bodies.begin(), bodies.end(), mocap.name) - bodies.begin()] = true;
    if (!keyframe.empty()) ReadMjcfKeyframe(path, keyframe);  // that it exists
  } catch (const std::exception& e) {
    throw SceneFileError(path + ": " + e.what());
  }
  if (bodies.empty())
    throw SceneFileError(path + ": <worldbody> has no body: nothing to simulate");
  if (bodies.size() > 1 && std::count(bodies.begin(), bodies.end(), "") > 0) {
    throw SceneFileError(path +
                         ": a body of <worldbody> has no name (name it: each top-level "
                         "body is a robot of the scene)");
  }
  for (const std::string& body : bodies) {
    if (std::count(bodies.begin(), bodies.end(), body) > 1) {
      throw SceneFileError(path + ": two bodies of <worldbody> are named '" + body +
                           "' (each top-level body is a robot of the scene: rename one)");
    }
  }
  const std::filesystem::path file(path);
  YAML::Emitter out;
  out.SetDoublePrecision(17);
  out << YAML::BeginMap;
  out << YAML::Key << "time_step" << YAML::Value << options.timestep;
  // MuJoCo's Euler integrator takes joint damping implicitly (eulerdamp).
  out << YAML::Key << "implicit_damping" << YAML::Value << options.implicit_damping;
  // A pair's friction the larger of its geoms', as MuJoCo combines them.
  out << YAML::Key << "contact" << YAML::Value << YAML::BeginMap << YAML::Key
      << "friction_combination" << YAML::Value << "max" << YAML::EndMap;
  out << YAML::Key << "gravity" << YAML::Value << YAML::Flow << YAML::BeginSeq
      << options.gravity.x() << options.gravity.y() << options.gravity.z()
      << YAML::EndSeq;
  // Each body where the file puts it (`body:` without `pose`), the world
  // geoms once; a lone body named after the model (else the file).
  out << YAML::Key << "robots" << YAML::Value << YAML::BeginSeq;
  for (size_t k = 0; k < bodies.size(); ++k) {
    const bool lone = bodies.size() == 1;
    const std::string model =
        options.model.empty() ? file.stem().string() : options.model;
    out << YAML::BeginMap << YAML::Key << "name" << YAML::Value
        << (lone ? model : bodies[k]);
    // Resolved against the scene's folder, which is the file's own.
    out << YAML::Key << "mjcf" << YAML::Value << file.filename().string();
    if (!bodies[k].empty()) out << YAML::Key << "body" << YAML::Value << bodies[k];
    if (k > 0) out << YAML::Key << "world_geoms" << YAML::Value << false;
    if (!keyframe.empty() && keyed[k])
      out << YAML::Key << "keyframe" << YAML::Value << keyframe;
    out << YAML::EndMap;
  }
  out << YAML::EndSeq << YAML::EndMap;
  return std::string("# ") + file.filename().string() + " run as a scene by itself\n" +
         out.c_str() + "\n";
}

}  // namespace coulomb
