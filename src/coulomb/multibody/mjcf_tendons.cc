#include "coulomb/multibody/mjcf_tendons.h"

#include <set>
#include <stdexcept>

#include "coulomb/multibody/mjcf_defaults.h"

namespace coulomb {
namespace {

using boost::property_tree::ptree;

// A non-negative number of the tendon's attributes (0 when absent).
double NonNegative(const ptree& attributes, const std::string& name,
                   const std::string& what) {
  const double value =
      ParseMjcfNumbers(attributes.get(name, "0"), what + ": " + name, 1)[0];
  if (value < 0.0) throw std::runtime_error(what + ": negative " + name);
  return value;
}

// The tendon's spring, friction and limits from its attributes.
void ReadTendonForces(const ptree& attributes, const std::string& what,
                      MjcfFixedTendon* tendon) {
  tendon->stiffness = NonNegative(attributes, "stiffness", what);
  tendon->damping = NonNegative(attributes, "damping", what);
  tendon->friction = NonNegative(attributes, "frictionloss", what);
  const std::vector<double> lengths =
      ParseMjcfNumbers(attributes.get("springlength", "-1 -1"), what + ": springlength");
  if (lengths.empty() || lengths.size() > 2)
    throw std::runtime_error(what + ": springlength: expected one or two numbers");
  if (lengths.size() == 2 && lengths[0] != lengths[1])
    throw std::runtime_error(what + ": springlength: a dead band is not read");
  if (lengths[0] >= 0.0) tendon->spring_length = lengths[0];
  const std::string limited = attributes.get("limited", "auto");
  if (limited == "true" || (limited == "auto" && attributes.count("range"))) {
    const std::vector<double> range =
        ParseMjcfNumbers(attributes.get("range", ""), what + ": range", 2);
    if (!(range[0] < range[1]))
      throw std::runtime_error(what + ": range: expected lower < upper");
    tendon->lower = range[0];
    tendon->upper = range[1];
  }
}

MjcfFixedTendon ReadFixedTendon(const ptree& element, size_t index,
                                const MjcfDefaults& defaults) {
  static const ptree none;
  MjcfFixedTendon tendon;
  tendon.name = element.get("<xmlattr>.name", "");
  const std::string what = tendon.name.empty()
                               ? "fixed tendon " + std::to_string(index + 1)
                               : "fixed tendon '" + tendon.name + "'";
  const ptree& own = element.get_child("<xmlattr>", none);
  ReadTendonForces(defaults.TendonAttributes(own, own.get("class", "main")), what,
                   &tendon);
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
  const MjcfDefaults defaults(root);
  std::vector<MjcfFixedTendon> tendons;
  std::set<std::string> names;
  for (const auto& [section, content] : root) {
    if (section != "tendon") continue;
    for (const auto& [tag, element] : content) {
      if (tag != "fixed") continue;
      tendons.push_back(ReadFixedTendon(element, tendons.size(), defaults));
      const std::string& name = tendons.back().name;
      if (!name.empty() && !names.insert(name).second)
        throw std::runtime_error("two tendons are named '" + name + "'");
    }
  }
  return tendons;
}

}  // namespace coulomb
