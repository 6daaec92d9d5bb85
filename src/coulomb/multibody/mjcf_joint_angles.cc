#include "coulomb/multibody/mjcf_joint_angles.h"

#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "coulomb/multibody/mjcf_defaults.h"

namespace coulomb {
namespace {

using boost::property_tree::ptree;

// The joints of `element` (a body, or the world body) and of the bodies in
// it, `child_class` the class they take by default.
void ConvertJoints(const MjcfDefaults& defaults, const std::string& child_class,
                   ptree* element) {
  static const ptree none;
  for (auto& [tag, child] : *element) {
    if (tag == "body") {
      ConvertJoints(defaults, child.get("<xmlattr>.childclass", child_class), &child);
      continue;
    }
    if (tag != "joint") continue;
    const ptree own = child.get_child("<xmlattr>", none);
    const ptree values = defaults.JointAttributes(own, own.get("class", child_class));
    const std::string type = values.get("type", "hinge");
    const double unit =
        type == "hinge" || type == "ball" ? std::numbers::pi / 180.0 : 1.0;
    for (const auto& [attribute, count] :
         {std::pair{"range", 2}, std::pair{"ref", 1}, std::pair{"springref", 1}}) {
      const auto text = values.get_optional<std::string>(attribute);
      if (!text) continue;
      std::vector<double> numbers =
          ParseMjcfNumbers(*text, "joint '" + own.get("name", "") + "': " + attribute);
      // Written as it is when of the wrong count: the joint's reader says so.
      if (numbers.size() == static_cast<size_t>(count))
        for (double& number : numbers) number *= unit;
      child.put(std::string("<xmlattr>.") + attribute,
                numbers.size() == static_cast<size_t>(count) ? FormatMjcfNumbers(numbers)
                                                             : *text);
    }
  }
}

}  // namespace

void ConvertMjcfJointAnglesToRadians(ptree* root) {
  ptree compiler;  // the one <compiler> (MergeRepeatedSections), moved first
  if (const auto found = root->find("compiler"); found != root->not_found()) {
    compiler = found->second;
    root->erase(root->to_iterator(found));
  }
  const std::string angle = compiler.get("<xmlattr>.angle", "degree");
  if (angle == "degree") {
    const MjcfDefaults defaults(*root);
    for (auto& [section, content] : *root)
      if (section == "worldbody") ConvertJoints(defaults, "main", &content);
    compiler.put("<xmlattr>.angle", "radian");
  }
  root->push_front({"compiler", compiler});
}

}  // namespace coulomb
