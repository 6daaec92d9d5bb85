#include "coulomb/multibody/mjcf_sites.h"

#include <set>
#include <stdexcept>

#include "coulomb/multibody/mjcf_defaults.h"
#include "coulomb/multibody/mjcf_frames.h"

namespace coulomb {
namespace {

using boost::property_tree::ptree;

// The site of `attributes` (its class's type and size resolved) on `body`.
MjcfSite Site(const ptree& attributes, const std::string& body, const std::string& name) {
  MjcfSite site{body, MjcfElementPose(attributes, "site")};
  site.type = attributes.get("type", site.type);
  static const std::set<std::string> kTypes{"sphere", "capsule", "ellipsoid", "cylinder",
                                            "box"};
  if (!kTypes.count(site.type))
    throw std::runtime_error("site '" + name + "': unknown type '" + site.type + "'");
  const auto text = attributes.get_optional<std::string>("size");
  if (!text) return site;
  const std::vector<double> numbers = ParseMjcfNumbers(*text, "site '" + name + "' size");
  for (size_t k = 0; k < numbers.size() && k < 3; ++k) site.size[k] = numbers[k];
  return site;
}

// The named sites of `element` (a body named `body`, or the world body: "")
// and of the bodies in it, `class_name` the class its sites default to.
void CollectSites(const ptree& element, const std::string& body,
                  const std::string& class_name, const MjcfDefaults& defaults,
                  std::map<std::string, MjcfSite>* sites) {
  static const ptree none;
  for (const auto& [tag, child] : element) {
    const ptree& own = child.get_child("<xmlattr>", none);
    if (tag == "body")
      CollectSites(child, own.get("name", ""), own.get("childclass", class_name),
                   defaults, sites);
    if (tag != "site" || !own.count("name")) continue;
    const std::string name = own.get<std::string>("name");
    (*sites)[name] =
        Site(defaults.SiteAttributes(own, own.get("class", class_name)), body, name);
  }
}

}  // namespace

std::map<std::string, MjcfSite> ReadMjcfSites(const std::string& path) {
  const ptree root = ReadMjcfRoot(path);
  std::map<std::string, MjcfSite> sites;
  if (const auto world = root.get_child_optional("worldbody"))
    CollectSites(*world, "", "main", MjcfDefaults(root), &sites);
  return sites;
}

}  // namespace coulomb
