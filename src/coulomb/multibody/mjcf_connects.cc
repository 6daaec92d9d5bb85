#include "coulomb/multibody/mjcf_connects.h"

#include <iterator>
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
      if ((tag != "connect" && tag != "weld") || body_a.empty() ||
          attributes.get("active", "true") == "false")
        continue;
      MjcfConnect connect{body_a, attributes.get("body2", "")};
      if (tag == "weld") {  // its pose at qpos0: relpose only as MuJoCo's default
        std::istringstream numbers(attributes.get("relpose", "0 1 0 0 0 0 0"));
        const std::vector<double> relpose{std::istream_iterator<double>(numbers), {}};
        if (relpose != std::vector<double>{0, 1, 0, 0, 0, 0, 0}) {
          throw std::runtime_error("<equality><weld body1=\"" + body_a +
                                   "\">: relpose is not read (the weld holds the pose of "
                                   "qpos0)");
        }
        connect.weld = true;
        connects.push_back(connect);
        continue;
      }
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
