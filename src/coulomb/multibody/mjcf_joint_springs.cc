#include "coulomb/multibody/mjcf_joint_springs.h"

#include <cmath>
#include <stdexcept>

#include "coulomb/multibody/mjcf_defaults.h"

namespace coulomb {
namespace {

using boost::property_tree::ptree;

// Walks <worldbody>, each joint read in the class its body gives it.
class JointSpringReader {
 public:
  JointSpringReader(const ptree& root, std::vector<MjcfJointSpring>* springs)
      : defaults_(root), springs_(springs) {
    const std::string angle = root.get("compiler.<xmlattr>.angle", "degree");
    if (angle != "degree" && angle != "radian")
      throw std::runtime_error("<compiler angle=\"" + angle +
                               "\">: expected degree or radian");
    degrees_ = angle == "degree";
  }

  // The joints of `element` (a body, a frame, or the world body) and of the
  // bodies in it, `child_class` the class they take by default.
  void Read(const ptree& element, const std::string& child_class) {
    const ptree none;
    for (const auto& [tag, child] : element) {
      const ptree& own = child.get_child("<xmlattr>", none);
      if (tag == "body" || tag == "frame") {
        Read(child, own.get("childclass", child_class));
      } else if (tag == "joint") {
        ReadJoint(defaults_.JointAttributes(own, own.get("class", child_class)));
      }
    }
  }

 private:
  double Number(const ptree& joint, const std::string& name,
                const std::string& attribute) {
    const std::string text = joint.get(attribute, "0");
    double value = 0.0;
    try {
      size_t read = 0;
      value = std::stod(text, &read);
      if (text.find_first_not_of(" \t\n", read) != std::string::npos)
        throw std::exception();
    } catch (const std::exception&) {
      throw std::runtime_error("joint '" + name + "': " + attribute + " '" + text +
                               "' is not a number");
    }
    if (!std::isfinite(value))
      throw std::runtime_error("joint '" + name + "': " + attribute + " is not finite");
    return value;
  }

  void ReadJoint(const ptree& joint) {
    const std::string name = joint.get("name", "");
    const double stiffness = Number(joint, name, "stiffness");
    if (stiffness < 0.0)
      throw std::runtime_error("joint '" + name + "': negative stiffness");
    if (stiffness == 0.0) return;
    const std::string type = joint.get("type", "hinge");
    if (type != "hinge" && type != "slide")
      throw std::runtime_error(
          "joint '" + name + "': a " + type +
          " joint's stiffness is not read (hinge and slide joints' are)");
    if (name.empty())
      throw std::runtime_error("a joint without a name has a stiffness: give it a name");
    double rest = Number(joint, name, "springref");
    if (type == "hinge" && degrees_) rest *= M_PI / 180.0;
    springs_->push_back({name, stiffness, rest});
  }

  MjcfDefaults defaults_;
  std::vector<MjcfJointSpring>* springs_;
  bool degrees_ = true;
};

}  // namespace

std::vector<MjcfJointSpring> ReadMjcfJointSprings(const std::string& path) {
  const ptree root = ReadMjcfRoot(path);
  std::vector<MjcfJointSpring> springs;
  JointSpringReader reader(root, &springs);
  const auto world = root.get_child_optional("worldbody");
  if (world) reader.Read(*world, "main");
  return springs;
}

}  // namespace coulomb
