#include "coulomb/sim/scene_mjcf_reader.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "coulomb/multibody/mjcf_actuators.h"
#include "coulomb/multibody/mjcf_contact_excludes.h"
#include "coulomb/multibody/mjcf_gravity_compensation.h"
#include "coulomb/multibody/mjcf_sensors.h"
#include "coulomb/multibody/mjcf_tendons.h"
#include "coulomb/multibody/mjcf_unread.h"
#include "coulomb/sim/mjcf_robot.h"

namespace coulomb {
namespace {

// reader(path) for a robot's MJCF file, its error a scene-file error at the
// robot's `mjcf` key naming the file.
template <typename Reader>
auto ReadMjcf(const SceneReader& r, const YAML::Node& node, const std::string& key,
              const std::string& path, Reader reader) -> decltype(reader(path)) {
  try {
    return reader(path);
  } catch (const std::exception& e) {
    r.Fail(node["mjcf"], key + ".mjcf", path + ": " + e.what());
  }
}

}  // namespace

MjcfFileElements ReadMjcfFileElements(const SceneReader& r, const YAML::Node& node,
                                      const std::string& key, const std::string& path) {
  MjcfFileElements elements;
  try {
    elements.joints = ReadMjcfJoints(path);
  } catch (const std::exception& e) {
    r.Fail(node["mjcf"], key + ".mjcf", path + ": " + e.what());
  }
  if (node["keyframe"]) {
    const std::string name = r.String(node["keyframe"], key + ".keyframe");
    try {
      elements.keyframe = ReadMjcfKeyframe(path, name);
    } catch (const std::exception& e) {
      r.Fail(node["keyframe"], key + ".keyframe", path + ": " + e.what());
    }
  }
  return elements;
}

// The actuators of an MJCF file (ReadMjcfActuators) as PD controllers of
// their joints, their controls from the keyframe (else 0), but on the
// joints the robot's `controllers` name: those say the joint's controller
// instead. One actuator per joint.
void AddMjcfActuators(const SceneReader& r, const YAML::Node& node,
                      const std::string& key, const std::string& path,
                      const MjcfKeyframe& keyframe, int tree, MultibodySystem* system) {
  const auto fail = [&](const std::string& what) {
    r.Fail(node["mjcf"], key + ".mjcf",
           path + ": " + what + " (or set the robot's actuators: false)");
  };
  std::vector<MjcfActuator> actuators;
  try {
    actuators = ReadMjcfActuators(path);
  } catch (const std::exception& e) {
    fail(e.what());
  }
  if (!keyframe.ctrl.empty() && keyframe.ctrl.size() != actuators.size()) {
    r.Fail(node["keyframe"], key + ".keyframe",
           path + ": keyframe '" + keyframe.name + "': ctrl has " +
               std::to_string(keyframe.ctrl.size()) + " numbers, the file's actuators " +
               std::to_string(actuators.size()));
  }
  std::set<std::string> actuated;
  for (size_t i = 0; i < actuators.size(); ++i) {
    const MjcfActuator& actuator = actuators[i];
    const std::string& name = actuator.joint.empty() ? actuator.tendon : actuator.joint;
    if (!actuated.insert(name).second)
      fail("actuator '" + actuator.name + "': a second actuator on " +
           (actuator.joint.empty() ? "tendon '" : "joint '") + name + "'");
    if (node["controllers"] && node["controllers"][name]) continue;
    try {
      AddMjcfActuator(actuator, keyframe.ctrl.empty() ? 0.0 : keyframe.ctrl[i], tree,
                      system);
    } catch (const std::invalid_argument& e) {
      fail("actuator '" + actuator.name + "': " + e.what());
    }
  }
}

namespace {

// A fixed tendon's length with its joints at their springref (MuJoCo's
// qpos_spring): its spring's rest length when the file gives none.
double LengthAtSpringReference(const MjcfFixedTendon& tendon,
                               const std::vector<MjcfJoint>& joints) {
  double length = 0.0;
  for (const MjcfFixedTendon::Joint& term : tendon.joints) {
    const auto joint =
        std::find_if(joints.begin(), joints.end(),
                     [&](const MjcfJoint& j) { return j.name == term.name; });
    if (joint != joints.end()) length += term.coefficient * joint->spring_reference;
  }
  return length;
}

}  // namespace

void AddMjcfFixedTendons(const SceneReader& r, const YAML::Node& node,
                         const std::string& key, const std::string& path,
                         const std::vector<MjcfJoint>& joints, int tree,
                         MultibodySystem* system) {
  const auto named_by = [&node](const char* setting, const std::string& name) {
    return node[setting] && node[setting][name];
  };
  for (const MjcfFixedTendon& tendon :
       ReadMjcf(r, node, key, path, ReadMjcfFixedTendons)) {
    if (tendon.name.empty()) continue;  // nothing can name it
    std::vector<std::pair<std::string, double>> terms;
    for (const MjcfFixedTendon::Joint& joint : tendon.joints)
      terms.emplace_back(joint.name, joint.coefficient);
    try {
      system->AddFixedTendon(tree, tendon.name, terms);
      if ((tendon.stiffness > 0.0 || tendon.damping > 0.0) &&
          !named_by("springs", tendon.name))
        system->AddJointSpringDamper(
            tree, tendon.name, tendon.stiffness,
            tendon.spring_length.value_or(LengthAtSpringReference(tendon, joints)),
            tendon.damping);
      system->SetJointFriction(tree, tendon.name, tendon.friction);
      if (std::isfinite(tendon.lower))
        system->SetJointLimits(tree, tendon.name, tendon.lower, tendon.upper);
    } catch (const std::invalid_argument& e) {
      r.Fail(node["mjcf"], key + ".mjcf", path + ": " + e.what());
    }
  }
}

// The body pairs of an MJCF file's <contact><exclude>: no contact between
// their geometries. Body "world" is the file's world geoms; a body that is
// not the robot's is refused.
void ExcludeMjcfBodyPairs(const SceneReader& r, const YAML::Node& node,
                          const std::string& key, const std::string& path, int tree,
                          MultibodySystem* system) {
  const auto fail = [&](const std::string& what) {
    r.Fail(node["mjcf"], key + ".mjcf", path + ": " + what);
  };
  const MultibodyTree& model = system->tree(tree).model;
  for (const MjcfExcludedPair& pair :
       ReadMjcf(r, node, key, path, ReadMjcfContactExcludes)) {
    const auto find = [&](const std::string& name) {
      if (name == "world") return -1;
      const int body = model.FindBody(name);
      if (body < 0) fail("<contact><exclude>: no body named '" + name + "'");
      return body;
    };
    const int body_a = find(pair.body_a), body_b = find(pair.body_b);
    system->ExcludeBodyPair(tree, body_a, body_b);
  }
}

const MjcfMocapBody* MjcfMocapLinks::Find(const std::string& name) const {
  for (const MjcfMocapBody& body : bodies)
    if (body.name == name) return &body;
  return nullptr;
}

namespace {

// The mocap bodies' start poses from the key's mpos and mquat (each given
// for all of them, or not at all).
void StartAtKeyframe(const SceneReader& r, const YAML::Node& node, const std::string& key,
                     const std::string& path, MjcfMocapLinks* links) {
  const std::string name = r.String(node["keyframe"], key + ".keyframe");
  MjcfKeyframe keyframe;
  try {
    keyframe = ReadMjcfKeyframe(path, name);
  } catch (const std::exception& e) {
    r.Fail(node["keyframe"], key + ".keyframe", path + ": " + e.what());
  }
  const size_t n = links->bodies.size();
  for (const auto& [values, per_body] :
       {std::pair{&keyframe.mpos, size_t{3}}, std::pair{&keyframe.mquat, size_t{4}}}) {
    if (!values->empty() && values->size() != per_body * n) {
      r.Fail(node["keyframe"], key + ".keyframe",
             path + ": keyframe '" + name + "': " + (per_body == 3 ? "mpos" : "mquat") +
                 " has " + std::to_string(values->size()) + " numbers, expected " +
                 std::to_string(per_body) + " for each of the " + std::to_string(n) +
                 " mocap bodies");
    }
  }
  for (size_t b = 0; b < n; ++b) {
    if (!keyframe.mpos.empty())
      links->start[b].translation() = Eigen::Vector3d(&keyframe.mpos[3 * b]);
    const double* q = keyframe.mquat.data() + 4 * b;
    if (!keyframe.mquat.empty() && Eigen::Vector4d(q).norm() > 0.0)
      links->start[b].linear() =
          Eigen::Quaterniond(q[0], q[1], q[2], q[3]).normalized().toRotationMatrix();
  }
}

}  // namespace

MjcfMocapLinks ReadMjcfMocapLinks(const SceneReader& r, const YAML::Node& node,
                                  const std::string& key, const std::string& path) {
  MjcfMocapLinks links;
  links.bodies = ReadMjcf(r, node, key, path, ReadMjcfMocapBodies);
  if (links.bodies.empty()) return links;
  for (const MjcfMocapBody& body : links.bodies) links.start.push_back(body.X_WB);
  if (node["keyframe"]) StartAtKeyframe(r, node, key, path, &links);
  for (const MjcfConnect& connect : ReadMjcf(r, node, key, path, ReadMjcfConnects)) {
    const bool a = links.Find(connect.body_a), b = links.Find(connect.body_b);
    if (a != b && !connect.body_b.empty()) links.connects.push_back(connect);
  }
  return links;
}

namespace {

// A connection of body a's point p_a held where it is in B's frame when A's
// frame is X_AB in it: B a body of the tree, or the world (body_b < 0)
// whose frame T is at X_WT, a mocap body's when `mocap` is named.
BodyConnection HeldConnection(const MjcfConnect& connect, int body_a,
                              const Eigen::Vector3d& p_a, int body_b,
                              const Eigen::Isometry3d& X_AB, const std::string& mocap,
                              const Eigen::Isometry3d& X_WT) {
  return {.body_a = body_a,
          .p_a = p_a,
          .body_b = body_b,
          .p_b = X_AB.inverse() * p_a,
          .weld = connect.weld,
          .R_ab = X_AB.linear(),
          .name = connect.name,
          .active = connect.active,
          .X_WT = X_WT,
          .mocap = mocap};
}

// Body2's frame in body1's as the connect holds them: the given frames'
// (sites, a weld's relpose), or as they are at qpos0 (X_WA, X_WB).
Eigen::Isometry3d HeldRelativePose(const MjcfConnect& connect,
                                   const Eigen::Isometry3d& X_WA,
                                   const Eigen::Isometry3d& X_WB) {
  return connect.frames_given ? connect.X_AS1 * connect.X_BS2.inverse()
                              : X_WA.inverse() * X_WB;
}

// The connect of the tree's body to a mocap body, held to the world frame T
// that follows it; body1 the mocap body, the relation turned round to hold
// the tree's body. Nothing when the tree's side is another robot's.
std::optional<BodyConnection> MocapConnection(const MjcfConnect& connect,
                                              const MjcfMocapLinks& mocaps,
                                              const MultibodyTree& model,
                                              const Eigen::VectorXd& q_reference) {
  const MjcfMocapBody* first = mocaps.Find(connect.body_a);
  const MjcfMocapBody& mocap = first ? *first : *mocaps.Find(connect.body_b);
  const int body = model.FindBody(first ? connect.body_b : connect.body_a);
  if (body < 0) return std::nullopt;
  const Eigen::Isometry3d X_WR = model.BodyPoseAt(q_reference, body);
  if (!first) {
    return HeldConnection(connect, body, connect.anchor, -1,
                          HeldRelativePose(connect, X_WR, mocap.X_WB), mocap.name,
                          mocap.X_WB);
  }
  const Eigen::Isometry3d X_MR = HeldRelativePose(connect, mocap.X_WB, X_WR);
  return HeldConnection(connect, body, X_MR.inverse() * connect.anchor, -1,
                        X_MR.inverse(), mocap.name, mocap.X_WB);
}

}  // namespace

// An MJCF file's connects of bodies as body connections, body2's point the
// one that coincides with body1's anchor at `q_reference` (qpos0).
void AddMjcfConnects(const SceneReader& r, const YAML::Node& node, const std::string& key,
                     const std::string& path, const Eigen::VectorXd& q_reference,
                     const MjcfMocapLinks& mocaps, int tree, MultibodySystem* system) {
  const auto fail = [&](const std::string& what) {
    r.Fail(node["mjcf"], key + ".mjcf", path + ": " + what);
  };
  const MultibodyTree& model = system->tree(tree).model;
  std::vector<BodyConnection> connections;
  for (const MjcfConnect& connect : ReadMjcf(r, node, key, path, ReadMjcfConnects)) {
    const int body_a = model.FindBody(connect.body_a);
    const int body_b = connect.body_b.empty() ? -1 : model.FindBody(connect.body_b);
    if (body_a < 0 || (body_b < 0 && !connect.body_b.empty()))
      fail("<equality><" + std::string(connect.weld ? "weld" : "connect") +
           (connect.by_sites ? "> on the body of a site, '" +
                                   (body_a < 0 ? connect.body_a : connect.body_b) + "'"
                             : " body1=\"" + connect.body_a + "\">") +
           ": a body of the robot is not named so");
    const Eigen::Isometry3d X_WB = body_b < 0 ? Eigen::Isometry3d::Identity()
                                              : model.BodyPoseAt(q_reference, body_b);
    connections.push_back(HeldConnection(
        connect, body_a, connect.anchor, body_b,
        HeldRelativePose(connect, model.BodyPoseAt(q_reference, body_a), X_WB), "",
        Eigen::Isometry3d::Identity()));
  }
  for (const MjcfConnect& connect : mocaps.connects)
    if (auto held = MocapConnection(connect, mocaps, model, q_reference))
      connections.push_back(*held);
  for (const BodyConnection& connection : connections) {
    try {
      system->AddBodyConnection(tree, connection);
    } catch (const std::invalid_argument& e) {
      fail(e.what());
    }
  }
}

namespace {

// The source whose tree has body `name` (and that body), or {null, −1}.
std::pair<const MjcfTreeSource*, int> FindSourceBody(
    const std::vector<const MjcfTreeSource*>& sources, const MultibodySystem& system,
    const std::string& name) {
  for (const MjcfTreeSource* source : sources) {
    const int body =
        source->tree < 0 ? -1 : system.tree(source->tree).model.FindBody(name);
    if (body >= 0) return {source, body};
  }
  return {nullptr, -1};
}

// The geometries of body `name` of a robot of `sources` that does not move;
// null for none.
const std::vector<int>* FindFixedBody(const std::vector<const MjcfTreeSource*>& sources,
                                      const std::string& name) {
  for (const MjcfTreeSource* source : sources) {
    const auto found = source->fixed_body_geometries.find(name);
    if (found != source->fixed_body_geometries.end()) return &found->second;
  }
  return nullptr;
}

// Bodies `name_a` and `name_b` of `path` on two robots' trees, with their
// sources; nothing when both are one robot's (read with it) or neither is a
// moving robot's (the link is none of the scene's), and a warning when one
// is no moving robot of the scene (`what`: the element).
struct BodiesOfTwoRobots {
  const MjcfTreeSource* a;
  int body_a;
  const MjcfTreeSource* b;
  int body_b;
};
std::optional<BodiesOfTwoRobots> FindBodiesOfTwoRobots(
    const SceneReader& r, const std::string& path,
    const std::vector<const MjcfTreeSource*>& sources, const std::string& name_a,
    const std::string& name_b, const std::string& what, Scene* scene) {
  const auto [a, body_a] = FindSourceBody(sources, scene->system, name_a);
  const auto [b, body_b] = FindSourceBody(sources, scene->system, name_b);
  if ((a && b && a->tree == b->tree) || (!a && !b)) return std::nullopt;
  if (!a || !b) {
    scene->warnings.push_back(r.KeyPrefix(sources.front()->key + ".mjcf") + path + ": " +
                              what + ": body '" + (a ? name_b : name_a) +
                              "' is no moving robot of the scene: not read");
    return std::nullopt;
  }
  return BodiesOfTwoRobots{a, body_a, b, body_b};
}

// The connects and welds of `path` between two of its robots' trees.
void ConnectRobotsOfFile(const SceneReader& r, const std::string& path,
                         const std::vector<const MjcfTreeSource*>& sources,
                         Scene* scene) {
  const MjcfTreeSource& first = *sources.front();
  const std::vector<MjcfMocapBody> mocaps =
      ReadMjcf(r, first.node, first.key, path, ReadMjcfMocapBodies);
  const auto is_mocap = [&](const std::string& name) {
    return std::any_of(mocaps.begin(), mocaps.end(),
                       [&](const MjcfMocapBody& m) { return m.name == name; });
  };
  for (const MjcfConnect& connect :
       ReadMjcf(r, first.node, first.key, path, ReadMjcfConnects)) {
    if (connect.body_b.empty() || is_mocap(connect.body_a) || is_mocap(connect.body_b))
      continue;  // to the world or a mocap body: read with the robot
    const std::string what = "<equality><" +
                             std::string(connect.weld ? "weld" : "connect") + "> '" +
                             connect.name + "'";
    const std::optional<BodiesOfTwoRobots> bodies = FindBodiesOfTwoRobots(
        r, path, sources, connect.body_a, connect.body_b, what, scene);
    if (!bodies) continue;
    const MultibodySystem& system = scene->system;
    const Eigen::Isometry3d X_AB =
        HeldRelativePose(connect,
                         system.tree(bodies->a->tree)
                             .model.BodyPoseAt(bodies->a->q_reference, bodies->body_a),
                         system.tree(bodies->b->tree)
                             .model.BodyPoseAt(bodies->b->q_reference, bodies->body_b));
    BodyConnection connection =
        HeldConnection(connect, bodies->body_a, connect.anchor, bodies->body_b, X_AB, "",
                       Eigen::Isometry3d::Identity());
    connection.tree_b = bodies->b->tree;
    try {
      scene->system.AddBodyConnection(bodies->a->tree, connection);
    } catch (const std::invalid_argument& e) {
      r.Fail(bodies->a->node["mjcf"], bodies->a->key + ".mjcf",
             path + ": " + what + ": " + e.what());
    }
  }
}

// Whether `fixed` is a body of a robot that does not move (a table, a mocap
// body): then its contacts with `other`, when that is a moving robot's body,
// are excluded (two bodies that do not move never meet).
bool ExcludeFixedBody(const std::vector<const MjcfTreeSource*>& sources,
                      const std::string& fixed, const std::string& other,
                      MultibodySystem* system) {
  const std::vector<int>* geometries = FindFixedBody(sources, fixed);
  if (!geometries) return false;
  const auto [source, body] = FindSourceBody(sources, *system, other);
  if (source) system->ExcludeBodyAndGeometries(source->tree, body, *geometries);
  return source || FindFixedBody(sources, other);
}

// The excludes of `path` of two of its robots' bodies.
void ExcludeBodiesOfRobots(const SceneReader& r, const std::string& path,
                           const std::vector<const MjcfTreeSource*>& sources,
                           Scene* scene) {
  const MjcfTreeSource& first = *sources.front();
  for (const MjcfExcludedPair& pair :
       ReadMjcf(r, first.node, first.key, path, ReadMjcfContactExcludes)) {
    if (pair.body_a == "world" || pair.body_b == "world") continue;  // the robot's
    if (ExcludeFixedBody(sources, pair.body_a, pair.body_b, &scene->system) ||
        ExcludeFixedBody(sources, pair.body_b, pair.body_a, &scene->system))
      continue;
    const std::optional<BodiesOfTwoRobots> bodies = FindBodiesOfTwoRobots(
        r, path, sources, pair.body_a, pair.body_b,
        "<contact><exclude> of '" + pair.body_a + "' and '" + pair.body_b + "'", scene);
    if (bodies) {
      scene->system.ExcludeBodyPair(bodies->a->tree, bodies->body_a, bodies->b->tree,
                                    bodies->body_b);
    }
  }
}

}  // namespace

void AddMjcfLinksBetweenRobots(const SceneReader& r,
                               const std::vector<MjcfTreeSource>& sources, Scene* scene) {
  std::map<std::string, std::vector<const MjcfTreeSource*>> by_file;
  for (const MjcfTreeSource& source : sources) by_file[source.path].push_back(&source);
  for (const auto& [path, file_sources] : by_file) {
    ConnectRobotsOfFile(r, path, file_sources, scene);
    ExcludeBodiesOfRobots(r, path, file_sources, scene);
  }
}

void AddMjcfGravityCompensations(const SceneReader& r, const YAML::Node& node,
                                 const std::string& key, const std::string& path,
                                 int tree, MultibodySystem* system) {
  const MultibodyTree& model = system->tree(tree).model;
  for (const MjcfGravityCompensation& compensation :
       ReadMjcf(r, node, key, path, ReadMjcfGravityCompensations)) {
    const int body = model.FindBody(compensation.body);
    try {
      system->AddGravityCompensation(tree,
                                     {body, compensation.center, compensation.mass});
    } catch (const std::invalid_argument& e) {
      r.Fail(node["mjcf"], key + ".mjcf",
             path + ": body '" + compensation.body + "': gravcomp: " + e.what());
    }
  }
}

namespace {

// The sensor `read` of a file as a tree's.
Sensor ToSensor(const MjcfSensor& read) {
  static const std::map<std::string, Sensor::Kind> kKinds{
      {"jointpos", Sensor::Kind::kJointPosition},
      {"jointvel", Sensor::Kind::kJointVelocity},
      {"tendonpos", Sensor::Kind::kTendonLength},
      {"tendonvel", Sensor::Kind::kTendonVelocity},
      {"jointactuatorfrc", Sensor::Kind::kJointActuatorForce},
      {"actuatorfrc", Sensor::Kind::kActuatorForce},
      {"actuatorpos", Sensor::Kind::kActuatorPosition},
      {"actuatorvel", Sensor::Kind::kActuatorVelocity},
      {"clock", Sensor::Kind::kClock},
      {"e_potential", Sensor::Kind::kPotentialEnergy},
      {"e_kinetic", Sensor::Kind::kKineticEnergy},
      {"framepos", Sensor::Kind::kFramePosition},
      {"framequat", Sensor::Kind::kFrameOrientation},
      {"framexaxis", Sensor::Kind::kFrameXAxis},
      {"frameyaxis", Sensor::Kind::kFrameYAxis},
      {"framezaxis", Sensor::Kind::kFrameZAxis},
      {"framelinvel", Sensor::Kind::kFrameLinearVelocity},
      {"frameangvel", Sensor::Kind::kFrameAngularVelocity},
      {"gyro", Sensor::Kind::kGyro},
      {"velocimeter", Sensor::Kind::kVelocimeter},
      {"subtreecom", Sensor::Kind::kSubtreeCom},
      {"subtreelinvel", Sensor::Kind::kSubtreeLinearVelocity},
      {"subtreeangmom", Sensor::Kind::kSubtreeAngularMomentum},
      {"rangefinder", Sensor::Kind::kRangefinder},
      {"touch", Sensor::Kind::kTouch},
      {"accelerometer", Sensor::Kind::kAccelerometer},
      {"framelinacc", Sensor::Kind::kFrameLinearAcceleration},
      {"frameangacc", Sensor::Kind::kFrameAngularAcceleration},
      {"force", Sensor::Kind::kForce},
      {"torque", Sensor::Kind::kTorque}};
  static const std::map<std::string, Sensor::Volume> kVolumes{
      {"sphere", Sensor::Volume::kSphere},
      {"capsule", Sensor::Volume::kCapsule},
      {"ellipsoid", Sensor::Volume::kEllipsoid},
      {"cylinder", Sensor::Volume::kCylinder},
      {"box", Sensor::Volume::kBox}};
  return {.name = read.name,
          .kind = kKinds.at(read.type),
          .terms = {},
          .body = -1,
          .X_BS = read.site.X_BS,
          .reference_body = -1,
          .X_BR = read.reference.X_BS,
          .volume = kVolumes.at(read.site.type),
          .size = read.site.size,
          .cutoff = read.cutoff};
}

}  // namespace

void AddMjcfSensors(const SceneReader& r, const YAML::Node& node, const std::string& key,
                    const std::string& path, int tree, Scene* scene) {
  const MjcfSensors sensors = ReadMjcf(r, node, key, path, ReadMjcfSensors);
  for (const MjcfSensor& sensor : sensors.read) {
    try {
      scene->system.AddSensor(tree, ToSensor(sensor), sensor.object,
                              sensor.reference.body);
    } catch (const std::invalid_argument& e) {
      r.Fail(node["mjcf"], key + ".mjcf", path + ": " + e.what());
    }
  }
  if (sensors.unread.empty()) return;
  std::string list;
  for (const std::string& sensor : sensors.unread)
    list += (list.empty() ? "" : ", ") + sensor;
  const size_t count = sensors.unread.size();
  scene->warnings.push_back(
      r.KeyPrefix(key + ".mjcf") + path + ": " + std::to_string(count) +
      (count == 1 ? " sensor is" : " sensors are") +
      " not read (another kind, or a frame not of a site or body): " + list);
}

// What of an MJCF file is not simulated, as the scene's warnings.
void WarnOfUnreadMjcfElements(const SceneReader& r, const YAML::Node& node,
                              const std::string& key, const std::string& path,
                              Scene* scene) {
  for (const std::string& what : ReadMjcf(r, node, key, path, UnreadMjcfElements))
    scene->warnings.push_back(r.KeyPrefix(key + ".mjcf") + path + ": " + what);
}

}  // namespace coulomb
