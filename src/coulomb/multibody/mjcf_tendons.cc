#include "coulomb/multibody/mjcf_tendons.h"

#include <set>
#include <stdexcept>

#include "coulomb/multibody/mjcf_defaults.h"

namespace coulomb {
namespace {

using boost::property_tree::ptree;

MjcfFixedTendon ReadFixedTendon(const ptree& element, size_t index) {
  MjcfFixedTendon tendon{element.get("<xmlattr>.name", ""), {}};
  const std::string what = tendon.name.empty()
                               ? "fixed tendon " + std::to_string(index + 1)
                               : "fixed tendon '" + tendon.name + "'";
  for (const auto& [tag, joint] : element) {
    if (tag != "joint") continue;
    const auto name = joint.get_optional<std::string>("<xmlattr>.joint");
    const auto coefficient = joint.get_optional<std::string>("<xmlattr>.coef");
    if (!name || !coefficient)
      throw std::runtime_error(what + ": a <joint> needs its joint and coef attributes");
    tendon.joints.push_back(
        {*name,
         ParseMjcfNumbers(*coefficient, what + ": coef of joint '" + *name + "'", 1)[0]});
  }
  if (tendon.joints.empty()) throw std::runtime_error(what + ": no <joint> in it");
  return tendon;
}

}  // namespace

std::vector<MjcfFixedTendon> ReadMjcfFixedTendons(const std::string& path) {
  const ptree root = ReadMjcfRoot(path);
  std::vector<MjcfFixedTendon> tendons;
  std::set<std::string> names;
  for (const auto& [section, content] : root) {
    if (section != "tendon") continue;
    for (const auto& [tag, element] : content) {
      if (tag != "fixed") continue;
      tendons.push_back(ReadFixedTendon(element, tendons.size()));
      const std::string& name = tendons.back().name;
      if (!name.empty() && !names.insert(name).second)
        throw std::runtime_error("two tendons are named '" + name + "'");
    }
  }
  return tendons;
}

}  // namespace coulomb
