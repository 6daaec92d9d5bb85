#pragma once

#include <string>
#include <vector>

namespace coulomb {

// What an MJCF file says of its joints beyond Pinocchio's model: each
// joint of <worldbody> in document order (MuJoCo's order of qpos), its
// attributes resolved against the default classes (MjcfDefaults: its own
// class, its body's childclass, the top default). Angles in radians: a
// hinge's ref and springref are in degrees unless <compiler
// angle="radian"> (MuJoCo's default unit is the degree).
//
// A hinge's or slide's spring is MuJoCo's passive force −k (q − q_s), k
// [N·m/rad or N/m] its stiffness, q_s its springref. Pinocchio's parser
// gives a joint MuJoCo's q (it moves the joint's placement by its ref),
// so q_s is the rest position in the model's coordinates too, and MuJoCo's
// initial configuration qpos0 puts each hinge and slide at its ref.
struct MjcfJoint {
  enum class Type { kHinge, kSlide, kBall, kFree };
  std::string name;  // empty for an unnamed joint
  Type type = Type::kHinge;
  double stiffness = 0.0;         // k ≥ 0
  double spring_reference = 0.0;  // q_s [rad or m]
  double reference = 0.0;         // ref [rad or m]: qpos0
  // Entries of qpos: 1 for a hinge or slide, 4 for a ball (w x y z), 7 for a
  // free joint (position, then w x y z); of qvel: 1, 3 (angular velocity in
  // the child frame), 6 (linear velocity in world, angular in the body).
  int num_positions() const;
  int num_velocities() const;
};

// The joints of the MJCF file at `path`. Throws std::runtime_error naming
// the joint for an unknown type, a negative or non-finite stiffness, a
// springref or ref that is not a number, a ball or free joint with a
// stiffness (not read), or a joint without a name that has one.
std::vector<MjcfJoint> ReadMjcfJoints(const std::string& path);

// The same joints grouped by the element of <worldbody> they are in (a
// body, or a frame), in file order: MuJoCo's qpos lists each element's
// joints after the last one's.
struct MjcfElementJoints {
  bool is_body = true;  // else a <frame>
  std::vector<MjcfJoint> joints;
};
std::vector<MjcfElementJoints> ReadMjcfTopLevelJoints(const std::string& path);

// A <keyframe><key> of an MJCF file: a configuration and velocities
// (MuJoCo's qpos and qvel, in the order of ReadMjcfJoints) and the
// actuators' controls (MuJoCo's ctrl, in the order of ReadMjcfActuators),
// each empty when not given.
struct MjcfKeyframe {
  std::string name;
  std::vector<double> qpos;
  std::vector<double> ctrl;
  std::vector<double> qvel;
  std::vector<double> mpos, mquat;  // its mocap bodies' poses (empty: the file's)
};

// The file's keyframe named `name`. Throws std::runtime_error when there is
// none of that name, or its qpos, qvel, ctrl, mpos or mquat are not finite
// numbers.
MjcfKeyframe ReadMjcfKeyframe(const std::string& path, const std::string& name);

}  // namespace coulomb
