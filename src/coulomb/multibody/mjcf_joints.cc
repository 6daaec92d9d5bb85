#include "coulomb/multibody/mjcf_joints.h"

#include <cmath>
#include <sstream>
#include <stdexcept>

#include "coulomb/multibody/mjcf_defaults.h"

namespace coulomb {
namespace {

using boost::property_tree::ptree;

// One number of a joint's attribute (`otherwise` when absent).
double Number(const ptree& joint, const std::string& name, const std::string& attribute,
              double otherwise) {
  const auto text = joint.get_optional<std::string>(attribute);
  if (!text) return otherwise;
  const std::string what = "joint '" + name + "': " + attribute;
  const std::vector<double> numbers = ParseMjcfNumbers(*text, what);
  if (numbers.size() != 1)
    throw std::runtime_error(what + " '" + *text + "': expected one number");
  return numbers[0];
}

MjcfJoint::Type JointType(const std::string& type, const std::string& name) {
  if (type == "hinge") return MjcfJoint::Type::kHinge;
  if (type == "slide") return MjcfJoint::Type::kSlide;
  if (type == "ball") return MjcfJoint::Type::kBall;
  if (type == "free") return MjcfJoint::Type::kFree;
  throw std::runtime_error("joint '" + name + "': unknown type '" + type + "'");
}

// Walks <worldbody>, each joint read in the class its body gives it.
class JointReader {
 public:
  JointReader(const ptree& root, std::vector<MjcfJoint>* joints)
      : defaults_(root), joints_(joints) {
    const std::string angle = root.get("compiler.<xmlattr>.angle", "degree");
    if (angle != "degree" && angle != "radian")
      throw std::runtime_error("<compiler angle=\"" + angle +
                               "\">: expected degree or radian");
    degree_ = angle == "degree" ? M_PI / 180.0 : 1.0;
  }

  // The joints of `element` (a body, a frame, or the world body) and of the
  // bodies in it, `child_class` the class they take by default.
  void Read(const ptree& element, const std::string& child_class) {
    const ptree none;
    for (const auto& [tag, child] : element) {
      const ptree& own = child.get_child("<xmlattr>", none);
      if (tag == "body" || tag == "frame") {
        Read(child, own.get("childclass", child_class));
      } else if (tag == "freejoint") {
        joints_->push_back({own.get("name", ""), MjcfJoint::Type::kFree});
      } else if (tag == "joint") {
        joints_->push_back(
            Joint(defaults_.JointAttributes(own, own.get("class", child_class))));
      }
    }
  }

 private:
  MjcfJoint Joint(const ptree& attributes) const {
    MjcfJoint joint{attributes.get("name", "")};
    const std::string& name = joint.name;
    joint.type = JointType(attributes.get("type", "hinge"), name);
    joint.stiffness = Number(attributes, name, "stiffness", 0.0);
    if (!(joint.stiffness >= 0.0))
      throw std::runtime_error("joint '" + name + "': negative stiffness");
    const bool one_dof =
        joint.type == MjcfJoint::Type::kHinge || joint.type == MjcfJoint::Type::kSlide;
    if (joint.stiffness > 0.0 && !one_dof)
      throw std::runtime_error(
          "joint '" + name + "': a " + attributes.get("type", "") +
          " joint's stiffness is not read (hinge and slide joints' are)");
    if (joint.stiffness > 0.0 && name.empty())
      throw std::runtime_error("a joint without a name has a stiffness: give it a name");
    const double unit = joint.type == MjcfJoint::Type::kHinge ? degree_ : 1.0;
    joint.spring_reference = unit * Number(attributes, name, "springref", 0.0);
    joint.reference = unit * Number(attributes, name, "ref", 0.0);
    return joint;
  }

  MjcfDefaults defaults_;
  std::vector<MjcfJoint>* joints_;
  double degree_ = 1.0;  // radians per unit of a hinge's angles
};

}  // namespace

int MjcfJoint::num_positions() const {
  switch (type) {
    case Type::kBall:
      return 4;
    case Type::kFree:
      return 7;
    default:
      return 1;
  }
}

int MjcfJoint::num_velocities() const {
  switch (type) {
    case Type::kBall:
      return 3;
    case Type::kFree:
      return 6;
    default:
      return 1;
  }
}

std::vector<MjcfElementJoints> ReadMjcfTopLevelJoints(const std::string& path) {
  const ptree root = ReadMjcfRoot(path);
  std::vector<MjcfElementJoints> elements;
  const auto world = root.get_child_optional("worldbody");
  if (!world) return elements;
  const ptree none;
  for (const auto& [tag, child] : *world) {
    if (tag != "body" && tag != "frame") continue;
    elements.push_back({tag == "body", {}});
    JointReader reader(root, &elements.back().joints);
    reader.Read(child, child.get_child("<xmlattr>", none).get("childclass", "main"));
  }
  return elements;
}

std::vector<MjcfJoint> ReadMjcfJoints(const std::string& path) {
  std::vector<MjcfJoint> joints;
  for (MjcfElementJoints& element : ReadMjcfTopLevelJoints(path))
    joints.insert(joints.end(), element.joints.begin(), element.joints.end());
  return joints;
}

MjcfKeyframe ReadMjcfKeyframe(const std::string& path, const std::string& name) {
  const ptree root = ReadMjcfRoot(path);
  for (const auto& [section, content] : root) {
    if (section != "keyframe") continue;
    for (const auto& [tag, key] : content) {
      if (tag != "key" || key.get("<xmlattr>.name", "") != name) continue;
      const std::string what = "keyframe '" + name + "': ";
      return {name,
              ParseMjcfNumbers(key.get("<xmlattr>.qpos", ""), what + "qpos"),
              ParseMjcfNumbers(key.get("<xmlattr>.ctrl", ""), what + "ctrl"),
              ParseMjcfNumbers(key.get("<xmlattr>.qvel", ""), what + "qvel"),
              ParseMjcfNumbers(key.get("<xmlattr>.mpos", ""), what + "mpos"),
              ParseMjcfNumbers(key.get("<xmlattr>.mquat", ""), what + "mquat")};
    }
  }
  throw std::runtime_error("no keyframe named '" + name + "' in <keyframe>");
}

}  // namespace coulomb
