#pragma once

#include <map>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "coulomb/multibody/mjcf_connects.h"
#include "coulomb/multibody/mjcf_joints.h"
#include "coulomb/multibody/mjcf_mocap_bodies.h"
#include "coulomb/sim/scene_reader.h"

namespace coulomb {

// The parts of a scene's robot that come from its MJCF file beyond
// Pinocchio's model (scenes/README.md): the joints and keyframe, the
// actuators, contact exclusions, connects, and what is not read. Errors
// are scene-file errors at the robot's `mjcf` (or `keyframe`) key, naming
// the file.

// What a robot's MJCF file says beyond Pinocchio's model: its joints, and
// the keyframe the robot's `keyframe` names (empty when none).
struct MjcfFileElements {
  std::vector<MjcfJoint> joints;
  MjcfKeyframe keyframe;
};

MjcfFileElements ReadMjcfFileElements(const SceneReader& r, const YAML::Node& node,
                                      const std::string& key, const std::string& path);

// The file's named fixed tendons (ReadMjcfFixedTendons), as the tree's,
// with their springs (at rest at their springlength, else at their length
// with the file's `joints` at their springref, as MuJoCo's) but where the
// robot's `springs` name the tendon, their friction and their limits, which
// the robot's `joint_friction` and `limits` replace.
void AddMjcfFixedTendons(const SceneReader& r, const YAML::Node& node,
                         const std::string& key, const std::string& path,
                         const std::vector<MjcfJoint>& joints, int tree,
                         MultibodySystem* system);

// The actuators of the file (ReadMjcfActuators) as PD controllers of their
// joints or tendons, their controls from the keyframe (else 0), but on the
// joints and tendons the robot's `controllers` name: those say the
// controller instead.
void AddMjcfActuators(const SceneReader& r, const YAML::Node& node,
                      const std::string& key, const std::string& path,
                      const MjcfKeyframe& keyframe, int tree, MultibodySystem* system);

// <contact><exclude> pairs: no contact between their geometries.
void ExcludeMjcfBodyPairs(const SceneReader& r, const YAML::Node& node,
                          const std::string& key, const std::string& path, int tree,
                          MultibodySystem* system);

// An MJCF file's mocap bodies, and its connects and welds that hold a body
// to one of them, read from the whole file (a body's share leaves them
// out): each robot of the file takes those of its own bodies. With the
// robot's `keyframe`, each mocap body starts where the key's mpos and mquat
// put it (as MuJoCo's mj_resetDataKeyframe), else where the file does.
struct MjcfMocapLinks {
  std::vector<MjcfMocapBody> bodies;
  std::vector<Eigen::Isometry3d> start;  // per body
  std::vector<MjcfConnect> connects;     // one side a mocap body, the other not
  // The mocap body `name`, or null.
  const MjcfMocapBody* Find(const std::string& name) const;
};
MjcfMocapLinks ReadMjcfMocapLinks(const SceneReader& r, const YAML::Node& node,
                                  const std::string& key, const std::string& path);

// Connects of bodies as body connections, body2's point the one that
// coincides with body1's anchor at `q_reference` (qpos0); and the robot's
// connects to a mocap body as connections to the world whose frame T is
// the mocap body's (BodyConnection::mocap), its point and orientation
// those of the mocap body where the file puts it.
void AddMjcfConnects(const SceneReader& r, const YAML::Node& node, const std::string& key,
                     const std::string& path, const Eigen::VectorXd& q_reference,
                     const MjcfMocapLinks& mocaps, int tree, MultibodySystem* system);

// A robot read from an MJCF file: its `robots` entry and key, the file (as
// resolved), its tree, and MuJoCo's qpos0 of it; for the connects and welds
// between the file's top-level bodies (AddMjcfLinksBetweenRobots). A robot
// that does not move (a table, a mocap body) has tree −1 and its bodies'
// geometries, by body name, for the excludes.
struct MjcfTreeSource {
  YAML::Node node;
  std::string key;
  std::string path;
  int tree = -1;
  Eigen::VectorXd q_reference;
  std::map<std::string, std::vector<int>> fixed_body_geometries;
};

// Each MJCF file's connects and welds between bodies of two of the scene's
// robots (a body's share leaves them out: a grasped object, two parts
// held together) as connections of body1's tree to body2's
// (BodyConnection::tree_b), held as at qpos0, and its excludes of two
// robots' bodies (one of them may not move: a table, a mocap body). A
// connect or weld of a body the scene moves to one that it does not move
// or load, or an exclude of a body it loads and one it does not load, is a
// warning; a link between two bodies it does not load is none of its own.
void AddMjcfLinksBetweenRobots(const SceneReader& r,
                               const std::vector<MjcfTreeSource>& sources, Scene* scene);

// Bodies' gravcomp as gravity compensations of the tree's links.
void AddMjcfGravityCompensations(const SceneReader& r, const YAML::Node& node,
                                 const std::string& key, const std::string& path,
                                 int tree, MultibodySystem* system);

// The file's sensors as the tree's (Sensor), in file order; those not read
// as one scene warning.
void AddMjcfSensors(const SceneReader& r, const YAML::Node& node, const std::string& key,
                    const std::string& path, int tree, Scene* scene);

// What of the file is not simulated, as the scene's warnings.
void WarnOfUnreadMjcfElements(const SceneReader& r, const YAML::Node& node,
                              const std::string& key, const std::string& path,
                              Scene* scene);

}  // namespace coulomb
