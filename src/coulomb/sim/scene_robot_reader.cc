#include "coulomb/sim/scene_robot_reader.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <set>

#include "coulomb/base/replace_all.h"
#include "coulomb/multibody/mjcf_body_file.h"
#include "coulomb/multibody/mjcf_equalities.h"
#include "coulomb/multibody/mjcf_joints.h"
#include "coulomb/multibody/urdf_mimic.h"
#include "coulomb/sim/mjcf_robot.h"
#include "coulomb/sim/scene_mjcf_reader.h"

namespace coulomb {
namespace {

void ReadJointPositions(const SceneReader& r, const YAML::Node& node,
                        const std::string& key, const MultibodyTree& model,
                        Eigen::VectorXd* q) {
  if (!node.IsMap()) r.Fail(node, key, "expected a mapping of joint names to positions");
  for (const auto& entry : node) {
    const std::string joint = entry.first.as<std::string>();
    try {
      (*q)[model.FindOneDofJoint(joint).position] =
          r.Number(entry.second, key + "." + joint);
    } catch (const std::invalid_argument& e) {
      r.Fail(entry.first, key + "." + joint, e.what());
    }
  }
}

// Applies `setting` to a one-dof joint, turning std::invalid_argument (no
// such joint, bad values) into a scene-file error at `node`.
template <typename Setting>
void ForEachJoint(const SceneReader& r, const YAML::Node& node, const std::string& key,
                  Setting setting) {
  if (!node.IsMap()) r.Fail(node, key, "expected a mapping of joint names");
  for (const auto& entry : node) {
    const std::string joint = entry.first.as<std::string>();
    try {
      setting(joint, entry.second, key + "." + joint);
    } catch (const std::invalid_argument& e) {
      r.Fail(entry.first, key + "." + joint, e.what());
    }
  }
}

// controllers: {JOINT or TENDON: {kp, kd, target, target_velocity,
// feedforward, effort_limit}}; effort_limit defaults to the URDF's.
PdControllerConstraint::Parameters ReadGains(const SceneReader& r, const YAML::Node& node,
                                             const std::string& key, double urdf_effort) {
  r.CheckKeys(node, key,
              {"kp", "kd", "target", "target_velocity", "feedforward", "effort_limit"});
  PdControllerConstraint::Parameters gains;
  if (node["kp"]) gains.proportional_gain = r.NonNegative(node["kp"], key + ".kp");
  if (node["kd"]) gains.derivative_gain = r.NonNegative(node["kd"], key + ".kd");
  if (node["target"]) gains.target_position = r.Number(node["target"], key + ".target");
  if (node["target_velocity"])
    gains.target_velocity = r.Number(node["target_velocity"], key + ".target_velocity");
  if (node["feedforward"])
    gains.feedforward = r.Number(node["feedforward"], key + ".feedforward");
  gains.effort_limit = node["effort_limit"]
                           ? r.Positive(node["effort_limit"], key + ".effort_limit", true)
                           : urdf_effort;
  return gains;
}

void ReadJointSettings(const SceneReader& r, const YAML::Node& node,
                       const std::string& key, int tree, MultibodySystem* system) {
  if (node["joint_limits"] && !r.Boolean(node["joint_limits"], key + ".joint_limits")) {
    system->tree(tree).limits.clear();
  }
  const MultibodyTree& model = system->tree(tree).model;
  if (node["limits"]) {
    ForEachJoint(
        r, node["limits"], key + ".limits",
        [&](const std::string& joint, const YAML::Node& range, const std::string& at) {
          if (!range.IsSequence() || range.size() != 2)
            r.Fail(range, at, "expected [lower, upper]");
          system->SetJointLimits(tree, joint, r.Number(range[0], at + "[0]", true),
                                 r.Number(range[1], at + "[1]", true));
        });
  }
  if (node["controllers"]) {
    ForEachJoint(
        r, node["controllers"], key + ".controllers",
        [&](const std::string& joint, const YAML::Node& spec, const std::string& at) {
          const double urdf_effort = system->FindTendon(tree, joint) >= 0
                                         ? std::numeric_limits<double>::infinity()
                                         : model.FindOneDofJoint(joint).effort_limit;
          system->AddJointPdController(tree, joint, ReadGains(r, spec, at, urdf_effort));
        });
  }
  if (node["armature"]) {
    ForEachJoint(
        r, node["armature"], key + ".armature",
        [&](const std::string& joint, const YAML::Node& value, const std::string& at) {
          system->tree(tree).model.SetJointArmature(joint, r.NonNegative(value, at));
        });
  }
  if (node["joint_friction"]) {
    ForEachJoint(
        r, node["joint_friction"], key + ".joint_friction",
        [&](const std::string& joint, const YAML::Node& value, const std::string& at) {
          system->SetJointFriction(tree, joint, r.NonNegative(value, at));
        });
  }
  if (node["springs"]) {
    ForEachJoint(
        r, node["springs"], key + ".springs",
        [&](const std::string& joint, const YAML::Node& spec, const std::string& at) {
          r.CheckKeys(spec, at, {"stiffness", "rest", "damping"});
          const auto value = [&](const char* field) {
            return spec[field] ? r.Number(spec[field], at + "." + field) : 0.0;
          };
          system->AddJointSpringDamper(tree, joint, value("stiffness"), value("rest"),
                                       value("damping"));
        });
  }
}

// The springs and damping the robot's file gives its one-dof joints (an
// MJCF joint's stiffness, springref and damping, a URDF joint's <dynamics
// damping>) as springs and dampers, but on the joints the robot's `springs`
// name: those say the joint's spring and damper instead.
void AddFileJointSpringDampers(const YAML::Node& node,
                               const std::vector<MjcfJoint>& joints, int tree,
                               MultibodySystem* system) {
  std::map<std::string, MjcfJoint> springs;
  for (const MjcfJoint& joint : joints)
    if (joint.stiffness > 0.0) springs[joint.name] = joint;
  const MultibodyTree& model = system->tree(tree).model;
  for (const std::string& joint : model.OneDofJointNames()) {
    const double damping = model.joint_damping(joint);
    const MjcfJoint spring = springs.count(joint) ? springs[joint] : MjcfJoint{};
    if ((damping > 0.0 || spring.stiffness > 0.0) &&
        !(node["springs"] && node["springs"][joint]))
      system->AddJointSpringDamper(tree, joint, spring.stiffness, spring.spring_reference,
                                   damping);
  }
}

// The dry friction of the file's one-dof joints (a URDF's <dynamics
// friction>, an MJCF joint's frictionloss), which the robot's
// `joint_friction` replaces joint by joint.
void AddFileJointFriction(int tree, MultibodySystem* system) {
  const MultibodyTree& model = system->tree(tree).model;
  for (const std::string& joint : model.OneDofJointNames())
    system->SetJointFriction(tree, joint, model.joint_friction(joint));
}

// What the robot's file gives its joints besides limits (springs and
// dampers, dry friction, an MJCF file's fixed tendons and actuators), before the scene's
// settings, which replace them joint by joint.
void AddFileJointElements(const SceneReader& r, const YAML::Node& node,
                          const std::string& key, const std::string& path,
                          const MjcfFileElements& mjcf, int tree,
                          MultibodySystem* system) {
  AddFileJointSpringDampers(node, mjcf.joints, tree, system);
  AddFileJointFriction(tree, system);
  if (node["actuators"] && node["urdf"])
    r.Fail(node["actuators"], key + ".actuators", "only an MJCF file has actuators");
  if (node["keyframe"] && node["urdf"])
    r.Fail(node["keyframe"], key + ".keyframe", "only an MJCF file has keyframes");
  if (node["mjcf"]) AddMjcfFixedTendons(r, node, key, path, mjcf.joints, tree, system);
  if (node["mjcf"] &&
      (!node["actuators"] || r.Boolean(node["actuators"], key + ".actuators"))) {
    AddMjcfActuators(r, node, key, path, mjcf.keyframe, tree, system);
  }
}

// The file's joint couplers (a URDF's mimic joints, an MJCF file's joint and
// tendon equalities, about the file's `joints`' refs), their terms not yet
// set.
std::vector<JointCoupler> ReadFileCouplers(const SceneReader& r, const YAML::Node& node,
                                           const std::string& key,
                                           const std::string& path,
                                           const std::vector<MjcfJoint>& joints) {
  const char* format = node["urdf"] ? "urdf" : "mjcf";
  std::vector<JointCoupler> couplers;
  try {
    if (node["urdf"]) {
      for (const UrdfMimicJoint& mimic : ReadUrdfMimicJoints(path))
        couplers.push_back(
            {.joint = mimic.joint,
             .reference = mimic.reference,
             .polynomial = {mimic.offset, mimic.multiplier, 0.0, 0.0, 0.0}});
    } else {
      for (const MjcfCoupling& coupling : ReadMjcfCouplings(path, joints))
        couplers.push_back({.joint = coupling.driven,
                            .reference = coupling.reference,
                            .polynomial = coupling.polynomial,
                            .reference_origin = coupling.reference_origin});
    }
  } catch (const std::exception& e) {
    r.Fail(node[format], key + "." + format, path + ": " + e.what());
  }
  return couplers;
}

// A coupled joint the scene's `joints` do not place starts where its
// coupler puts it, q = p(q_reference), so that the coupling holds from the
// first step (a tendon's joints are left where they are).
void PlaceCoupledJoints(const YAML::Node& node, const std::vector<JointCoupler>& couplers,
                        const MultibodyTree& model, Eigen::VectorXd* q) {
  const std::vector<std::string> joints = model.OneDofJointNames();
  const auto is_joint = [&joints](const std::string& name) {
    return std::find(joints.begin(), joints.end(), name) != joints.end();
  };
  for (const JointCoupler& coupler : couplers) {
    if ((node["joints"] && node["joints"][coupler.joint]) || !is_joint(coupler.joint) ||
        !(coupler.reference.empty() || is_joint(coupler.reference)))
      continue;
    const double r = coupler.reference.empty()
                         ? 0.0
                         : (*q)[model.FindOneDofJoint(coupler.reference).position];
    (*q)[model.FindOneDofJoint(coupler.joint).position] = coupler.Polynomial(r).first;
  }
}

// Whether the robot floats: its `base`, by default floating for a URDF and,
// for an MJCF file, as in MuJoCo: floating when its root body has a free
// joint, else hung from the world by its joints.
bool ReadFloatingBase(const SceneReader& r, const YAML::Node& node,
                      const std::string& key, const std::string& file_key,
                      const std::string& path) {
  if (node["base"]) {
    const std::string base = r.String(node["base"], key + ".base");
    if (base != "fixed" && base != "floating")
      r.Fail(node["base"], key + ".base", "expected fixed or floating");
    return base == "floating";
  }
  if (!node["mjcf"]) return true;
  try {
    return MultibodyTree::MjcfRootFloats(path);
  } catch (const std::exception& e) {
    r.Fail(node["mjcf"], file_key, e.what());
  }
}

// A robot that cannot move (a fixed base and no moving joint: a table, a
// shelf) becomes static geometry; it has no joints to set.
// A mocap body (`world_body`: its body of the world) takes its geometry.
// Its bodies' geometries, by body name.
std::map<std::string, std::vector<int>> AddFixedRobot(
    const SceneReader& r, const YAML::Node& node, const std::string& key,
    const std::string& path, MultibodyTree model, const ContactMaterial& material,
    int world_body, MultibodySystem* system) {
  for (const std::string setting : {"joints", "limits", "controllers", "springs",
                                    "armature", "joint_friction", "keyframe"}) {
    // A mocap body's keyframe places it (MjcfMocapLinks::start).
    if (node[setting] && !(world_body > 0 && setting == "keyframe")) {
      r.Fail(node[setting], key + "." + setting,
             "the robot cannot move (a fixed base and no moving joint): it has no "
             "joints to set; remove '" +
                 setting + "'");
    }
  }
  std::vector<std::string> bodies;  // of AddFixedModel's geometries, in its order
  for (const BodyGeometry& geometry : model.collision_geometries())
    bodies.push_back(model.body_name(geometry.body));
  const char* format = node["urdf"] ? "urdf" : "mjcf";
  std::map<std::string, std::vector<int>> geometries;
  try {  // its geometry is validated here
    const std::vector<int> ids =
        system->AddFixedModel(std::move(model), material, world_body);
    for (size_t g = 0; g < bodies.size(); ++g) geometries[bodies[g]].push_back(ids[g]);
  } catch (const std::invalid_argument& e) {
    r.Fail(node[format], key + "." + format, path + ": " + e.what());
  }
  return geometries;
}

// The mocap body of the robot's MJCF `body` (none: 0, the static world):
// where its `pose` puts it, else where its file does.
int AddMocapOf(const SceneReader& r, const YAML::Node& node, const std::string& key,
               const MjcfMocapLinks& mocaps, const Eigen::Isometry3d& pose,
               MultibodySystem* system) {
  const MjcfMocapBody* mocap =
      node["body"] ? mocaps.Find(r.String(node["body"], key + ".body")) : nullptr;
  if (!mocap) return 0;
  try {
    return system->AddMocapBody(
        mocap->name, node["pose"] ? pose : mocaps.start[mocap - mocaps.bodies.data()]);
  } catch (const std::invalid_argument& e) {
    r.Fail(node["body"], key + ".body", e.what());
  }
}

// The robot of the file at `path` (the scene's file, or one body's share
// of an MJCF file: MjcfBodyFile), as ReadRobot adds it; `mocaps` its
// original file's (MjcfMocapLinks), none for a URDF. A moving robot's tree
// and qpos0 go into *source (when given).
int AddRobotFromFile(const SceneReader& r, const YAML::Node& node, const std::string& key,
                     const ContactMaterial& defaults, const std::string& name,
                     const std::string& path, const MjcfMocapLinks& mocaps, Scene* scene,
                     MjcfTreeSource* source) {
  const char* format = node["urdf"] ? "urdf" : "mjcf";
  const YAML::Node& file = node[format];
  const std::string file_key = key + "." + format;
  const bool floating = ReadFloatingBase(r, node, key, file_key, path);
  const Eigen::Isometry3d pose = node["pose"] ? ReadPose(r, node["pose"], key + ".pose")
                                              : Eigen::Isometry3d::Identity();
  const bool world_geoms =
      !node["world_geoms"] || r.Boolean(node["world_geoms"], key + ".world_geoms");
  std::optional<MultibodyTree> model;
  try {
    model.emplace(node["urdf"]
                      ? MultibodyTree::FromUrdf(path, floating, pose)
                      : MultibodyTree::FromMjcf(path, floating, pose, world_geoms));
  } catch (const std::exception& e) {
    r.Fail(file, file_key, e.what());
  }
  if (!world_geoms) model->DropWorldGeometries();
  const int world_geometries = static_cast<int>(model->world_geometries().size());
  const ContactMaterial material = ReadContactOverrides(r, node, key, defaults);
  // The robot's own friction replaces its file's geoms'.
  if (node["contact"] && node["contact"]["friction"]) model->DropGeometryFrictions();
  if (model->num_velocities() == 0) {
    const int world_body = AddMocapOf(r, node, key, mocaps, pose, &scene->system);
    auto geometries = AddFixedRobot(r, node, key, path, std::move(*model), material,
                                    world_body, &scene->system);
    if (source) source->fixed_body_geometries = std::move(geometries);
    return world_geometries;
  }
  Eigen::VectorXd q = model->NeutralConfiguration();
  if (floating) {  // an MJCF free root where its file puts it, unless posed
    const Eigen::Isometry3d& X_WB = node["pose"] ? pose : model->mjcf_root_pose();
    const Eigen::Quaterniond rotation(X_WB.linear());
    q.head<7>() << X_WB.translation(), rotation.x(), rotation.y(), rotation.z(),
        rotation.w();
  }
  const MjcfFileElements mjcf =
      node["mjcf"] ? ReadMjcfFileElements(r, node, key, path) : MjcfFileElements{};
  Eigen::VectorXd v = Eigen::VectorXd::Zero(model->num_velocities());
  Eigen::VectorXd q_reference = q;  // MuJoCo's qpos0, where the file's connects close
  try {
    Eigen::VectorXd unused = v;
    SetMjcfInitialState(mjcf.joints, MjcfKeyframe{}, false, *model, &q_reference,
                        &unused);
    SetMjcfInitialState(mjcf.joints, mjcf.keyframe, floating && !node["pose"], *model, &q,
                        &v);
  } catch (const std::invalid_argument& e) {
    r.Fail(node["keyframe"] ? node["keyframe"] : file,
           key + (node["keyframe"] ? ".keyframe" : "." + std::string(format)),
           path + ": " + e.what());
  }
  if (node["joints"]) ReadJointPositions(r, node["joints"], key + ".joints", *model, &q);
  const std::vector<JointCoupler> couplers =
      ReadFileCouplers(r, node, key, path, mjcf.joints);
  PlaceCoupledJoints(node, couplers, *model, &q);
  int tree = -1;
  try {  // the URDF's own joint limits are validated here
    tree = scene->system.AddRobot(name, std::move(*model), q, v, material);
  } catch (const std::invalid_argument& e) {
    r.Fail(file, file_key, path + ": " + e.what());
  }
  if (source) {
    source->tree = tree;
    source->q_reference = q_reference;
  }
  AddFileJointElements(r, node, key, path, mjcf, tree, &scene->system);
  for (const JointCoupler& coupler : couplers) {
    try {
      scene->system.AddJointCoupler(tree, coupler);
    } catch (const std::invalid_argument& e) {
      r.Fail(file, file_key, path + ": " + e.what());
    }
  }
  if (node["mjcf"]) {
    AddMjcfConnects(r, node, key, path, q_reference, mocaps, tree, &scene->system);
    ExcludeMjcfBodyPairs(r, node, key, path, tree, &scene->system);
    AddMjcfGravityCompensations(r, node, key, path, tree, &scene->system);
    AddMjcfSensors(r, node, key, path, tree, scene);
    WarnOfUnreadMjcfElements(r, node, key, path, scene);
  }
  ReadJointSettings(r, node, key, tree, &scene->system);
  return world_geometries;
}

}  // namespace

int ReadRobot(const SceneReader& r, const YAML::Node& node, const std::string& key,
              const ContactMaterial& defaults, std::set<std::string>* names, Scene* scene,
              std::vector<MjcfTreeSource>* sources) {
  r.CheckKeys(node, key,
              {"name", "urdf", "mjcf", "body", "base", "pose", "joints", "contact",
               "joint_limits", "limits", "controllers", "springs", "armature",
               "actuators", "joint_friction", "keyframe", "world_geoms"});
  for (const char* setting : {"world_geoms", "body"}) {
    if (node[setting] && !node["mjcf"]) {
      r.Fail(node[setting], key + "." + setting,
             "applies to an MJCF file only; remove '" + std::string(setting) + "'");
    }
  }
  if (!node["name"] || !node["urdf"] == !node["mjcf"])
    r.Fail(node, key, "name and one of urdf or mjcf are required");
  const char* format = node["urdf"] ? "urdf" : "mjcf";
  const std::string name = r.String(node["name"], key + ".name");
  if (!names->insert(name).second) {
    r.Fail(node["name"], key + ".name", "duplicate name '" + name + "'");
  }
  const std::string path = r.ResolveFile(r.String(node[format], key + "." + format));
  if (node["urdf"])
    return AddRobotFromFile(r, node, key, defaults, name, path, {}, scene, nullptr);
  // An MJCF file is read through a copy (its includes expanded; with
  // `body:`, that body's share) whose name the messages replace with the
  // file's and the body's.
  const std::optional<std::string> body =
      node["body"] ? std::optional(r.String(node["body"], key + ".body")) : std::nullopt;
  std::optional<MjcfBodyFile> share;
  try {  // a body without `pose` where the file puts it
    share.emplace(path, body, body && !node["pose"]);
  } catch (const std::exception& e) {
    const char* setting = body ? "body" : "mjcf";
    r.Fail(node[setting], key + "." + setting, e.what());
  }
  const MjcfMocapLinks mocaps = ReadMjcfMocapLinks(r, node, key, path);
  const std::string alias = path + (share->whole_file() ? "" : " (body '" + *body + "')");
  const auto named = [&](const std::string& text) {
    return ReplaceAll(text, share->path(), alias);
  };
  const size_t first_warning = scene->warnings.size();
  int world_geometries = 0;
  MjcfTreeSource source{node, key, path, -1, {}, {}};
  try {
    world_geometries = AddRobotFromFile(r, node, key, defaults, name, share->path(),
                                        mocaps, scene, &source);
  } catch (const SceneFileError& e) {
    throw SceneFileError(named(e.what()));
  }
  for (size_t w = first_warning; w < scene->warnings.size(); ++w)
    scene->warnings[w] = named(scene->warnings[w]);
  for (const std::string& note : share->left_out())
    scene->warnings.push_back(r.KeyPrefix(key + ".mjcf") + alias + ": " + note);
  if (source.tree >= 0 || !source.fixed_body_geometries.empty())
    sources->push_back(std::move(source));
  return world_geometries;
}

}  // namespace coulomb
