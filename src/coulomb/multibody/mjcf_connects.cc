#include "coulomb/multibody/mjcf_connects.h"

#include <sstream>
#include <stdexcept>

#include "coulomb/multibody/mjcf_defaults.h"

namespace coulomb {

std::vector<MjcfConnect> ReadMjcfConnects(const std::string& path) {
  const boost::property_tree::ptree root = ReadMjcfRoot(path);
  const boost::property_tree::ptree none;
  std::vector<MjcfConnect> connects;
  for (const auto& [section, content] : root) {
    if (section != "equality") continue;
    for (const auto& [tag, element] : content) {
      const auto& attributes = element.get_child("<xmlattr>", none);
      const std::string body_a = attributes.get("body1", "");
      if (tag != "connect" || body_a.empty() ||
          attributes.get("active", "true") == "false")
        continue;
      MjcfConnect connect{body_a, attributes.get("body2", "")};
      std::istringstream in(attributes.get("anchor", ""));
      for (int i = 0; i < 3; ++i) in >> connect.anchor[i];
      std::string rest;
      if (in.fail() || (in >> rest) || !connect.anchor.allFinite()) {
        throw std::runtime_error("<equality><connect body1=\"" + body_a +
                                 "\">: anchor must be three finite numbers");
      }
      connects.push_back(connect);
    }
  }
  return connects;
}

}  // namespace coulomb
