#include "coulomb/multibody/mjcf_connects.h"

#include <iterator>
#include <map>
#include <sstream>
#include <stdexcept>

#include "coulomb/multibody/mjcf_defaults.h"
#include "coulomb/multibody/mjcf_sites.h"

namespace coulomb {
namespace {

using boost::property_tree::ptree;

// A connect or weld given by sites: site1's body is the one held (site2's
// when site1 is the world's).
MjcfConnect SiteConnect(const std::string& tag, const ptree& attributes,
                        const std::map<std::string, MjcfSite>& sites) {
  const auto find = [&](const char* attribute) {
    const std::string name = attributes.get(attribute, "");
    const auto site = sites.find(name);
    if (site == sites.end())
      throw std::runtime_error("<equality><" + tag + "> " + attribute + "=\"" + name +
                               "\": no site of that name");
    return site->second;
  };
  MjcfSite site_a = find("site1"), site_b = find("site2");
  if (site_a.body.empty()) std::swap(site_a, site_b);
  if (site_a.body.empty())
    throw std::runtime_error("<equality><" + tag + "> holds two sites of the world");
  MjcfConnect connect{site_a.body, site_b.body, site_a.X_BS.translation(), tag == "weld"};
  connect.by_sites = true;
  connect.X_AS1 = site_a.X_BS;
  connect.X_BS2 = site_b.X_BS;
  return connect;
}

}  // namespace

std::vector<MjcfConnect> ReadMjcfConnects(const std::string& path) {
  const ptree root = ReadMjcfRoot(path);
  const ptree none;
  const std::map<std::string, MjcfSite> sites = ReadMjcfSites(path);
  std::vector<MjcfConnect> connects;
  for (const auto& [section, content] : root) {
    if (section != "equality") continue;
    for (const auto& [tag, element] : content) {
      const auto& attributes = element.get_child("<xmlattr>", none);
      const std::string body_a = attributes.get("body1", "");
      if ((tag != "connect" && tag != "weld") ||
          attributes.get("active", "true") == "false")
        continue;
      if (body_a.empty() && attributes.count("site1")) {
        connects.push_back(SiteConnect(tag, attributes, sites));
        continue;
      }
      if (body_a.empty()) continue;
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
