#include "coulomb/sim/scene_file.h"

#include "coulomb/geometry/convex_mesh.h"
#include "coulomb/geometry/height_field.h"
#include "coulomb/geometry/revolved_shell.h"
#include "coulomb/geometry/sampled_mesh_sdf.h"
#include "coulomb/geometry/threaded_fasteners.h"
#include "coulomb/multibody/mjcf_root_cache.h"
#include "coulomb/sim/mjcf_scene_file.h"
#include "coulomb/sim/scene_reader.h"
#include "coulomb/sim/scene_robot_reader.h"

#include <yaml-cpp/yaml.h>

#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <optional>
#include <set>

namespace coulomb {

std::string SceneReader::ResolveFile(const std::string& file) const {
  const std::string package = "example-robot-data/";
  if (file.rfind(package, 0) == 0)
    return RobotDataDirectory() + "/" + file.substr(package.size());
  const std::filesystem::path given(file);
  if (given.is_absolute()) return file;
  return (std::filesystem::path(path_).parent_path() / given).string();
}

void ReadContactMaterial(const SceneReader& r, const YAML::Node& node,
                         const std::string& key, ContactMaterial* material) {
  if (node["stiffness"])
    material->stiffness = r.Positive(node["stiffness"], key + ".stiffness", true);
  if (node["dissipation_time_scale"]) {
    material->dissipation_time_scale =
        r.NonNegative(node["dissipation_time_scale"], key + ".dissipation_time_scale");
  }
  if (node["friction"])
    material->friction = r.NonNegative(node["friction"], key + ".friction");
  if (node["hunt_crossley_dissipation"]) {
    material->hunt_crossley_dissipation = r.NonNegative(
        node["hunt_crossley_dissipation"], key + ".hunt_crossley_dissipation");
  }
}

ContactMaterial ReadContactOverrides(const SceneReader& r, const YAML::Node& node,
                                     const std::string& key,
                                     const ContactMaterial& defaults) {
  ContactMaterial material = defaults;
  if (node["contact"]) {
    r.CheckKeys(
        node["contact"], key + ".contact",
        {"stiffness", "dissipation_time_scale", "friction", "hunt_crossley_dissipation"});
    ReadContactMaterial(r, node["contact"], key + ".contact", &material);
  }
  return material;
}

namespace {

// The value of enum type E named at `node` (ParseEnum), or SceneFileError
// at `key` listing the names.
template <typename E>
E ReadEnum(const SceneReader& r, const YAML::Node& node, const std::string& key) {
  try {
    return ParseEnum<E>(r.String(node, key));
  } catch (const std::invalid_argument& e) {
    r.Fail(node, key, e.what());
  }
}

void ReadContactDefaults(const SceneReader& r, const YAML::Node& node, Scene* scene,
                         ContactMaterial* defaults) {
  r.CheckKeys(node, "contact",
              {"model", "stiffness", "dissipation_time_scale", "friction",
               "hunt_crossley_dissipation", "near_rigid_threshold", "sigma",
               "stiction_tolerance", "hunt_crossley_near_rigid_threshold",
               "max_sdf_contacts", "lookahead", "friction_combination"});
  ReadContactMaterial(r, node, "contact", defaults);
  if (node["max_sdf_contacts"]) {
    const int count = r.Integer(node["max_sdf_contacts"], "contact.max_sdf_contacts");
    if (count < 1)
      r.Fail(node["max_sdf_contacts"], "contact.max_sdf_contacts", "must be at least 1");
    scene->system.SetMaxSdfContacts(count);
  }
  if (node["model"]) {
    scene->parameters.contact.model =
        ReadEnum<ContactModel>(r, node["model"], "contact.model");
    if (scene->parameters.contact.model != ContactModel::kSap &&
        std::isinf(defaults->stiffness)) {
      r.Fail(node["model"], "contact.model",
             "Hunt & Crossley models need a finite contact.stiffness");
    }
  }
  if (node["stiction_tolerance"]) {
    scene->parameters.contact.stiction_tolerance =
        r.Positive(node["stiction_tolerance"], "contact.stiction_tolerance");
  }
  if (node["near_rigid_threshold"]) {
    scene->parameters.contact.near_rigid_threshold =
        r.Positive(node["near_rigid_threshold"], "contact.near_rigid_threshold");
  }
  if (node["sigma"])
    scene->parameters.contact.sigma = r.Positive(node["sigma"], "contact.sigma");
  if (node["lookahead"]) {
    scene->parameters.contact_lookahead =
        r.NonNegative(node["lookahead"], "contact.lookahead");
  }
  if (node["friction_combination"]) {
    scene->parameters.contact.friction_combination = ReadEnum<FrictionCombination>(
        r, node["friction_combination"], "contact.friction_combination");
  }
  if (node["hunt_crossley_near_rigid_threshold"]) {
    scene->parameters.contact.hunt_crossley_near_rigid_threshold =
        r.NonNegative(node["hunt_crossley_near_rigid_threshold"],
                      "contact.hunt_crossley_near_rigid_threshold");
  }
}

void ReadSolver(const SceneReader& r, const YAML::Node& node, Scene* scene) {
  r.CheckKeys(node, "solver",
              {"rel_tolerance", "max_iterations", "line_search", "linear_solver"});
  SapSolverParameters& sap = scene->parameters.solver.sap;
  NcpSolverParameters& ncp = scene->parameters.solver.ncp;  // --solver canal, …
  if (node["rel_tolerance"]) {
    sap.rel_tolerance = r.Positive(node["rel_tolerance"], "solver.rel_tolerance");
    if (sap.rel_tolerance >= 1.0)
      r.Fail(node["rel_tolerance"], "solver.rel_tolerance", "must be < 1");
    ncp.tolerance = sap.rel_tolerance;
  }
  if (node["max_iterations"]) {
    sap.max_iterations = r.Integer(node["max_iterations"], "solver.max_iterations");
    if (sap.max_iterations <= 0)
      r.Fail(node["max_iterations"], "solver.max_iterations", "must be positive");
    ncp.max_iterations = sap.max_iterations;  // the budget per step
  }
  try {
    if (node["line_search"]) {
      sap.line_search =
          ParseEnum<LineSearchType>(r.String(node["line_search"], "solver.line_search"));
    }
    if (node["linear_solver"]) {
      sap.linear_solver = ParseEnum<LinearSolverType>(
          r.String(node["linear_solver"], "solver.linear_solver"));
    }
  } catch (const std::invalid_argument& e) {
    r.Fail(node, "solver", e.what());
  }
}

// scale: s | [sx, sy, sz] of a mesh (1 when not given).
Eigen::Vector3d ReadMeshScale(const SceneReader& r, const YAML::Node& spec,
                              const std::string& key) {
  if (!spec["scale"]) return Eigen::Vector3d::Ones();
  const Eigen::Vector3d scale =
      spec["scale"].IsScalar()
          ? Eigen::Vector3d::Constant(r.Positive(spec["scale"], key + ".scale"))
          : r.Vector3(spec["scale"], key + ".scale");
  if ((scale.array() <= 0).any())
    r.Fail(spec["scale"], key + ".scale", "must be positive");
  return scale;
}

// mesh: {file: PATH (relative to the scene file), scale: s | [sx, sy, sz]}:
// the convex hull of the file's vertices.
ConvexMesh ReadMesh(const SceneReader& r, const YAML::Node& spec,
                    const std::string& key) {
  r.CheckKeys(spec, key, {"file", "scale"});
  if (!spec["file"]) r.Fail(spec, key, "file is required");
  const std::string path = r.ResolveFile(r.String(spec["file"], key + ".file"));
  const Eigen::Vector3d scale = ReadMeshScale(r, spec, key);
  try {
    return LoadConvexMesh(path, scale);
  } catch (const std::exception& e) {
    r.Fail(spec["file"], key + ".file", e.what());
  }
}

// sdf_mesh: {file, scale, resolution (cells along the longest side, 32)}:
// the sampled signed distance field of a closed mesh (sampled_mesh_sdf.h).
SdfShape ReadSdfMesh(const SceneReader& r, const YAML::Node& spec,
                     const std::string& key) {
  r.CheckKeys(spec, key, {"file", "scale", "resolution"});
  if (!spec["file"]) r.Fail(spec, key, "file is required");
  const std::string path = r.ResolveFile(r.String(spec["file"], key + ".file"));
  const Eigen::Vector3d scale = ReadMeshScale(r, spec, key);
  const int resolution =
      spec["resolution"] ? r.Integer(spec["resolution"], key + ".resolution") : 32;
  try {
    return LoadSampledMeshSdf(path, scale, resolution);
  } catch (const std::exception& e) {
    r.Fail(spec, key, e.what());
  }
}

// threaded_bolt: {diameter, pitch, length, clearance} and threaded_nut:
// {diameter, pitch, height, width_across_flats}, each defaulting to M48
// (threaded_fasteners.h).
SdfShape ReadThreadedFastener(const SceneReader& r, const YAML::Node& spec,
                              const std::string& key, bool bolt) {
  const auto number = [&](const char* name, double fallback) {
    return spec[name] ? r.Number(spec[name], key + "." + name) : fallback;
  };
  try {
    if (bolt) {
      r.CheckKeys(spec, key, {"diameter", "pitch", "length", "clearance"});
      const ThreadedBoltSize defaults;
      return MakeThreadedBolt(
          {number("diameter", defaults.major_diameter), number("pitch", defaults.pitch),
           number("length", defaults.length), number("clearance", defaults.clearance)});
    }
    r.CheckKeys(spec, key, {"diameter", "pitch", "height", "width_across_flats"});
    const ThreadedNutSize defaults;
    return MakeThreadedNut({number("diameter", defaults.major_diameter),
                            number("pitch", defaults.pitch),
                            number("height", defaults.height),
                            number("width_across_flats", defaults.width_across_flats)});
  } catch (const std::invalid_argument& e) {
    r.Fail(spec, key, e.what());
  }
}

// revolved_shell: {a: [r, z], b: [r, z], thickness: d}: the AL paper's dish
// (revolved_shell.h), all three required.
SdfShape ReadRevolvedShell(const SceneReader& r, const YAML::Node& spec,
                           const std::string& key) {
  r.CheckKeys(spec, key, {"a", "b", "thickness"});
  if (!spec["a"] || !spec["b"] || !spec["thickness"])
    r.Fail(spec, key, "a, b and thickness are required");
  const RevolvedShellSize size{r.Vector<2>(spec["a"], key + ".a"),
                               r.Vector<2>(spec["b"], key + ".b"),
                               r.Positive(spec["thickness"], key + ".thickness")};
  try {
    return MakeRevolvedShell(size, key);
  } catch (const std::invalid_argument& e) {
    std::string message = e.what();  // "KEY: …": said once
    if (message.starts_with(key + ": ")) message.erase(0, key.size() + 2);
    r.Fail(spec, key, message);
  }
}

Shape ReadShape(const SceneReader& r, const YAML::Node& node, const std::string& key) {
  r.CheckKeys(node, key,
              {"sphere", "box", "capsule", "cylinder", "ellipsoid", "halfspace", "mesh",
               "sdf_mesh", "threaded_bolt", "threaded_nut", "revolved_shell"});
  if (node.size() != 1)
    r.Fail(
        node, key,
        "give exactly one of sphere, box, capsule, cylinder, ellipsoid, halfspace, mesh, "
        "sdf_mesh, threaded_bolt, threaded_nut, revolved_shell");
  const std::string kind = node.begin()->first.as<std::string>();
  const YAML::Node spec = node.begin()->second;
  const std::string sub = key + "." + kind;
  if (kind == "mesh") return ReadMesh(r, spec, sub);
  if (kind == "sdf_mesh") return ReadSdfMesh(r, spec, sub);
  if (kind == "revolved_shell") return ReadRevolvedShell(r, spec, sub);
  if (kind == "threaded_bolt" || kind == "threaded_nut") {
    return ReadThreadedFastener(r, spec.IsNull() ? YAML::Node(YAML::NodeType::Map) : spec,
                                sub, kind == "threaded_bolt");
  }
  if (kind == "halfspace") {
    if (spec.IsMap() && spec.size() > 0) r.Fail(spec, sub, "takes no parameters");
    return HalfSpace{};
  }
  if (kind == "box") {
    r.CheckKeys(spec, sub, {"size"});
    if (!spec["size"]) r.Fail(spec, sub, "size is required");
    const Eigen::Vector3d size = r.Vector3(spec["size"], sub + ".size");
    if ((size.array() <= 0).any())
      r.Fail(spec["size"], sub + ".size", "must be positive");
    return Box{size};
  }
  if (kind == "ellipsoid") {
    r.CheckKeys(spec, sub, {"semi_axes"});
    if (!spec["semi_axes"]) r.Fail(spec, sub, "semi_axes is required");
    const Eigen::Vector3d semi_axes = r.Vector3(spec["semi_axes"], sub + ".semi_axes");
    if (!(semi_axes.array() > 0).all())
      r.Fail(spec["semi_axes"], sub + ".semi_axes", "must be positive");
    return Ellipsoid{semi_axes};
  }
  if (kind == "sphere") {
    r.CheckKeys(spec, sub, {"radius"});
    if (!spec["radius"]) r.Fail(spec, sub, "radius is required");
    return Sphere{r.Positive(spec["radius"], sub + ".radius")};
  }
  r.CheckKeys(spec, sub, {"radius", "length"});
  if (!spec["radius"] || !spec["length"])
    r.Fail(spec, sub, "radius and length are required");
  const double radius = r.Positive(spec["radius"], sub + ".radius");
  const double length = r.Positive(spec["length"], sub + ".length");
  if (kind == "capsule") return Capsule{radius, length};
  return Cylinder{radius, length};
}

}  // namespace

Eigen::Isometry3d ReadPose(const SceneReader& r, const YAML::Node& node,
                           const std::string& key) {
  r.CheckKeys(node, key, {"position", "rpy"});
  const Eigen::Vector3d position = node["position"]
                                       ? r.Vector3(node["position"], key + ".position")
                                       : Eigen::Vector3d::Zero();
  const Eigen::Vector3d rpy =
      node["rpy"] ? r.Vector3(node["rpy"], key + ".rpy") : Eigen::Vector3d::Zero();
  return Pose(position, rpy);
}

namespace {

// motion: {amplitude: [x, y, z], frequency: f, phase: φ, drift_velocity: [x, y, z]}
PrescribedMotion ReadMotion(const SceneReader& r, const YAML::Node& node,
                            const std::string& key, const Eigen::Isometry3d& pose) {
  r.CheckKeys(node, key, {"amplitude", "frequency", "phase", "drift_velocity"});
  PrescribedMotion motion;
  motion.X_WB0 = pose;
  if (node["amplitude"])
    motion.amplitude = r.Vector3(node["amplitude"], key + ".amplitude");
  if (node["frequency"])
    motion.frequency = r.NonNegative(node["frequency"], key + ".frequency");
  if (node["phase"]) motion.phase = r.Number(node["phase"], key + ".phase");
  if (node["drift_velocity"]) {
    motion.drift_velocity = r.Vector3(node["drift_velocity"], key + ".drift_velocity");
  }
  return motion;
}

// inertia: [ixx, iyy, izz, ixy, ixz, iyz] [kg·m²] about the centre of mass,
// body axes (URDF's order); must be symmetric positive definite.
Eigen::Matrix3d ReadInertia(const SceneReader& r, const YAML::Node& node,
                            const std::string& key) {
  if (!node.IsSequence() || node.size() != 6)
    r.Fail(node, key, "expected [ixx, iyy, izz, ixy, ixz, iyz]");
  double entry[6];
  for (int k = 0; k < 6; ++k)
    entry[k] = r.Number(node[k], key + "[" + std::to_string(k) + "]");
  Eigen::Matrix3d inertia;
  inertia << entry[0], entry[3], entry[4], entry[3], entry[1], entry[5], entry[4],
      entry[5], entry[2];
  if (inertia.llt().info() != Eigen::Success)
    r.Fail(node, key, "must be positive definite");
  return inertia;
}

// shape: {heightfield: {size: [lx, ly], base: d, heights: [[...], ...]}} of
// a fixed body: terrain, the heights [m] on a grid spanning lx × ly about the
// body's origin, rows from −y to +y, each from −x to +x, over a base down to
// z = −d; added as its prisms (HeightFieldPrisms), each a static geometry.
void ReadHeightFieldBody(const SceneReader& r, const YAML::Node& node,
                         const std::string& key, const ContactMaterial& material,
                         Scene* scene) {
  const YAML::Node spec = node["shape"]["heightfield"];
  const std::string sub = key + ".shape.heightfield";
  if (node["shape"].size() != 1) r.Fail(node["shape"], key + ".shape", "give one shape");
  r.CheckKeys(spec, sub, {"size", "base", "heights"});
  if (!(node["fixed"] && r.Boolean(node["fixed"], key + ".fixed")) || node["motion"])
    r.Fail(node, key, "a heightfield is terrain: it must be fixed: true");
  for (const char* dynamic_key : {"mass", "density", "inertia", "velocity"})
    if (node[dynamic_key])
      r.Fail(node[dynamic_key], key + "." + dynamic_key, "not allowed on a heightfield");
  for (const char* required : {"size", "base", "heights"})
    if (!spec[required]) r.Fail(spec, sub, std::string(required) + " is required");
  HeightField field;
  const Eigen::Vector2d size = r.Vector<2>(spec["size"], sub + ".size");
  field.half_size = 0.5 * size;
  field.base_depth = r.Positive(spec["base"], sub + ".base");
  const YAML::Node heights = spec["heights"];
  if (!heights.IsSequence() || heights.size() < 2 || !heights[0].IsSequence())
    r.Fail(heights, sub + ".heights", "expected a list of at least 2 rows of heights");
  field.rows = static_cast<int>(heights.size());
  field.cols = static_cast<int>(heights[0].size());
  for (int row = 0; row < field.rows; ++row) {
    const std::string row_key = sub + ".heights[" + std::to_string(row) + "]";
    if (!heights[row].IsSequence() || static_cast<int>(heights[row].size()) != field.cols)
      r.Fail(heights[row], row_key,
             "expected " + std::to_string(field.cols) + " heights, as the first row");
    for (int col = 0; col < field.cols; ++col)
      field.heights.push_back(
          r.Number(heights[row][col], row_key + "[" + std::to_string(col) + "]"));
  }
  const Eigen::Isometry3d pose = node["pose"] ? ReadPose(r, node["pose"], key + ".pose")
                                              : Eigen::Isometry3d::Identity();
  try {
    for (HeightFieldPrism& prism : HeightFieldPrisms(field, sub)) {
      scene->system.AddStaticGeometry(
          std::move(prism.mesh), pose * Eigen::Translation3d(prism.offset), material);
    }
  } catch (const std::invalid_argument& e) {
    r.Fail(spec, sub, std::string(e.what()).substr(sub.size() + 2));
  }
}

void ReadBody(const SceneReader& r, const YAML::Node& node, const std::string& key,
              const ContactMaterial& defaults, std::set<std::string>* names,
              Scene* scene) {
  r.CheckKeys(node, key,
              {"name", "shape", "mass", "density", "inertia", "pose", "velocity", "fixed",
               "motion", "contact"});
  if (!node["name"]) r.Fail(node, key, "name is required");
  const std::string name = r.String(node["name"], key + ".name");
  if (!names->insert(name).second)
    r.Fail(node["name"], key + ".name", "duplicate name '" + name + "'");
  if (!node["shape"]) r.Fail(node, key, "shape is required");
  if (node["shape"].IsMap() && node["shape"]["heightfield"]) {
    ReadHeightFieldBody(r, node, key, ReadContactOverrides(r, node, key, defaults),
                        scene);
    return;
  }
  const Shape shape = ReadShape(r, node["shape"], key + ".shape");
  const Eigen::Isometry3d pose = node["pose"] ? ReadPose(r, node["pose"], key + ".pose")
                                              : Eigen::Isometry3d::Identity();
  const ContactMaterial material = ReadContactOverrides(r, node, key, defaults);
  const bool fixed = node["fixed"] && r.Boolean(node["fixed"], key + ".fixed");
  if (fixed || node["motion"] || std::holds_alternative<HalfSpace>(shape)) {
    if (!fixed && !node["motion"])
      r.Fail(node, key, "a halfspace must be fixed: true or have a motion");
    if (fixed && node["motion"])
      r.Fail(node["motion"], key + ".motion", "not allowed on a fixed body");
    for (const char* dynamic_key : {"mass", "density", "inertia", "velocity"}) {
      if (node[dynamic_key]) {
        r.Fail(node[dynamic_key], key + "." + dynamic_key,
               "not allowed on a fixed or kinematic body");
      }
    }
    if (fixed) {
      scene->system.AddStaticGeometry(shape, pose, material);
    } else {
      const int body = scene->system.AddKinematicBody(
          ReadMotion(r, node["motion"], key + ".motion", pose));
      scene->system.AddGeometry(shape, -1, body, Eigen::Isometry3d::Identity(), material);
    }
    return;
  }
  if (!!node["mass"] == !!node["density"])
    r.Fail(node, key, "give exactly one of mass and density");
  const double mass = node["mass"]
                          ? r.Positive(node["mass"], key + ".mass")
                          : r.Positive(node["density"], key + ".density") * Volume(shape);
  Eigen::Vector3d linear = Eigen::Vector3d::Zero(), angular = Eigen::Vector3d::Zero();
  if (node["velocity"]) {
    const YAML::Node velocity = node["velocity"];
    r.CheckKeys(velocity, key + ".velocity", {"linear", "angular"});
    if (velocity["linear"])
      linear = r.Vector3(velocity["linear"], key + ".velocity.linear");
    if (velocity["angular"])
      angular = r.Vector3(velocity["angular"], key + ".velocity.angular");
  }
  std::optional<Eigen::Matrix3d> inertia;
  if (node["inertia"]) inertia = ReadInertia(r, node["inertia"], key + ".inertia");
  scene->system.AddFreeBody(name, shape, mass, pose, linear, angular, material, inertia);
}

// Geometry indices [first, last) of each named body or robot.
using GeometryRanges = std::map<std::string, std::pair<int, int>>;

// exclude: [[NAME, NAME], ...]: no contact between the two bodies or robots
// (all their geometries).
void ReadExclusions(const SceneReader& r, const YAML::Node& node,
                    const GeometryRanges& geometries, MultibodySystem* system) {
  if (!node.IsSequence())
    r.Fail(node, "exclude", "expected a list of [name, name] pairs");
  for (size_t k = 0; k < node.size(); ++k) {
    const std::string key = "exclude[" + std::to_string(k) + "]";
    const YAML::Node pair = node[k];
    if (!pair.IsSequence() || pair.size() != 2)
      r.Fail(pair, key, "expected [name, name]");
    std::pair<int, int> ranges[2];
    for (int side = 0; side < 2; ++side) {
      const std::string name = r.String(pair[side], key);
      const auto found = geometries.find(name);
      if (found == geometries.end())
        r.Fail(pair[side], key, "no body or robot '" + name + "'");
      ranges[side] = found->second;
    }
    for (int a = ranges[0].first; a < ranges[0].second; ++a) {
      for (int b = ranges[1].first; b < ranges[1].second; ++b) {
        if (a != b) system->ExcludeCollisionPair(a, b);
      }
    }
  }
}

Scene ReadScene(const SceneReader& r, const YAML::Node& root) {
  r.CheckKeys(root, "",
              {"time_step", "duration", "scheme", "implicit_damping", "gravity",
               "contact", "solver", "bodies", "robots", "exclude"});
  const Eigen::Vector3d gravity = root["gravity"] ? r.Vector3(root["gravity"], "gravity")
                                                  : Eigen::Vector3d(0, 0, -9.81);
  Scene scene{
      std::filesystem::path(r.path()).stem().string(), MultibodySystem(gravity), {}, 1.0};
  if (root["time_step"])
    scene.parameters.time_step = r.Positive(root["time_step"], "time_step");
  if (root["duration"]) {
    scene.duration = r.Positive(root["duration"], "duration");
    try {
      StepsInDuration(scene.duration, scene.parameters.time_step);
    } catch (const std::invalid_argument& error) {
      r.Fail(root["duration"], "duration", error.what());
    }
  }
  if (root["implicit_damping"]) {
    scene.parameters.implicit_joint_damping =
        r.Boolean(root["implicit_damping"], "implicit_damping");
  }
  if (root["scheme"])
    scene.parameters.scheme = ReadEnum<Scheme>(r, root["scheme"], "scheme");
  ContactMaterial defaults;
  if (root["contact"]) ReadContactDefaults(r, root["contact"], &scene, &defaults);
  if (root["solver"]) ReadSolver(r, root["solver"], &scene);
  if (root["bodies"] && !root["bodies"].IsSequence()) {
    r.Fail(root["bodies"], "bodies", "expected a list of bodies");
  }
  const size_t num_bodies = root["bodies"] ? root["bodies"].size() : 0;
  const size_t num_robots =
      root["robots"] && root["robots"].IsSequence() ? root["robots"].size() : 0;
  if (num_bodies + num_robots == 0) {
    r.Fail(root["bodies"] ? root["bodies"] : root, "bodies",
           "the scene has no bodies and no robots: nothing to simulate");
  }
  std::set<std::string> names;
  GeometryRanges geometries;
  for (size_t k = 0; k < num_bodies; ++k) {
    const int first = scene.system.collision_world().num_geometries();
    ReadBody(r, root["bodies"][k], "bodies[" + std::to_string(k) + "]", defaults, &names,
             &scene);
    geometries[root["bodies"][k]["name"].as<std::string>()] = {
        first, scene.system.collision_world().num_geometries()};
  }
  if (root["robots"]) {
    if (!root["robots"].IsSequence()) r.Fail(root["robots"], "robots", "expected a list");
    std::vector<MjcfTreeSource> mjcf_sources;
    for (size_t k = 0; k < root["robots"].size(); ++k) {
      const int first = scene.system.collision_world().num_geometries();
      // The file's world geoms come last and are not the robot's.
      const int world_geometries =
          ReadRobot(r, root["robots"][k], "robots[" + std::to_string(k) + "]", defaults,
                    &names, &scene, &mjcf_sources);
      geometries[root["robots"][k]["name"].as<std::string>()] = {
          first, scene.system.collision_world().num_geometries() - world_geometries};
    }
    AddMjcfLinksBetweenRobots(r, mjcf_sources, &scene);
  }
  if (root["exclude"]) ReadExclusions(r, root["exclude"], geometries, &scene.system);
  return scene;
}

}  // namespace

namespace {

// Parses with `load` and reads the scene; errors name `origin`.
template <class Load>
Scene LoadScene(const std::string& origin, Load&& load) {
  YAML::Node root;
  try {
    root = load();
  } catch (const YAML::Exception& e) {
    throw SceneFileError(origin + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
  const SceneReader reader(origin, !IsMjcfFile(origin));
  const MjcfRootCache each_file_read_once;
  try {
    return ReadScene(reader, root);
  } catch (const YAML::Exception& e) {
    throw SceneFileError(origin + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
}

}  // namespace

Scene LoadSceneFile(const std::string& path, const std::string& keyframe) {
  if (IsMjcfFile(path)) {
    const MjcfRootCache each_file_read_once;  // by MjcfSceneText and the load
    return LoadSceneText(MjcfSceneText(path, keyframe), path);
  }
  if (!keyframe.empty())
    throw SceneFileError(path +
                         ": a keyframe is taken by an MJCF file run by itself; a "
                         "scene names it in a robot's entry (keyframe:)");
  if (!std::filesystem::is_regular_file(path))
    throw SceneFileError(path + ": file not found");
  return LoadScene(path, [&] { return YAML::LoadFile(path); });
}

Scene LoadSceneText(const std::string& text, const std::string& origin) {
  return LoadScene(origin, [&] { return YAML::Load(text); });
}

}  // namespace coulomb
