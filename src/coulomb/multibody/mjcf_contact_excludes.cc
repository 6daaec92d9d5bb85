#include "coulomb/multibody/mjcf_contact_excludes.h"

#include <stdexcept>

#include "coulomb/multibody/mjcf_defaults.h"

namespace coulomb {

std::vector<MjcfExcludedPair> ReadMjcfContactExcludes(const std::string& path) {
  const boost::property_tree::ptree root = ReadMjcfRoot(path);
  std::vector<MjcfExcludedPair> pairs;
  for (const auto& [section, content] : root) {
    if (section != "contact") continue;
    for (const auto& [tag, element] : content) {
      if (tag != "exclude") continue;
      const auto body_a = element.get_optional<std::string>("<xmlattr>.body1");
      const auto body_b = element.get_optional<std::string>("<xmlattr>.body2");
      if (!body_a || !body_b)
        throw std::runtime_error("<contact><exclude> needs body1 and body2");
      pairs.push_back({*body_a, *body_b});
    }
  }
  return pairs;
}

}  // namespace coulomb
