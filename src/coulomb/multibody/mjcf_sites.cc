#include "coulomb/multibody/mjcf_sites.h"

#include <set>
#include <stdexcept>

#include "coulomb/multibody/mjcf_defaults.h"
#include "coulomb/multibody/mjcf_frames.h"
#include "coulomb/multibody/mjcf_orientations.h"

namespace coulomb {
namespace {

using boost::property_tree::ptree;

// Its pose and size from `fromto` (its two ends, in its body's frame), as
// MuJoCo places a capsule, cylinder, box or ellipsoid site: centred between
// the ends, its z axis from `to` towards `from`, half their distance as its half-length
// along z, its first size number the radius (a box's and an ellipsoid's x
// and y half-sizes).
void PlaceByEnds(const ptree& attributes, const std::string& name, MjcfSite* site) {
  const std::string what = "site '" + name + "' fromto";
  if (site->type == "sphere")
    throw std::runtime_error(what + ": a sphere has no axis (give it pos instead)");
  const std::vector<double> n =
      ParseMjcfNumbers(attributes.get<std::string>("fromto"), what, 6);
  const Eigen::Vector3d from(n[0], n[1], n[2]), to(n[3], n[4], n[5]);
  if (!((to - from).norm() > 0.0)) throw std::runtime_error(what + ": its ends coincide");
  site->X_BS.translation() = 0.5 * (from + to);
  site->X_BS.linear() = MjcfTurnFromZ(from - to).toRotationMatrix();  // MuJoCo's sense
  const double half_length = 0.5 * (to - from).norm();
  if (site->type == "capsule" || site->type == "cylinder") {
    site->size[1] = half_length;
  } else {
    site->size = Eigen::Vector3d(site->size[0], site->size[0], half_length);
  }
}

// The site of `attributes` (its class's attributes written on it:
// ResolveMjcfGeomAndSiteClasses) on `body`.
MjcfSite Site(const ptree& attributes, const std::string& body, const std::string& name) {
  MjcfSite site{body, MjcfElementPose(attributes, "site")};
  site.type = attributes.get("type", site.type);
  static const std::set<std::string> kTypes{"sphere", "capsule", "ellipsoid", "cylinder",
                                            "box"};
  if (!kTypes.count(site.type))
    throw std::runtime_error("site '" + name + "': unknown type '" + site.type + "'");
  if (const auto text = attributes.get_optional<std::string>("size")) {
    const std::vector<double> numbers =
        ParseMjcfNumbers(*text, "site '" + name + "' size");
    for (size_t k = 0; k < numbers.size() && k < 3; ++k) site.size[k] = numbers[k];
  }
  if (attributes.count("fromto")) PlaceByEnds(attributes, name, &site);
  return site;
}

// The named sites of `element` (a body named `body`, or the world body: "")
// and of the bodies in it.
void CollectSites(const ptree& element, const std::string& body,
                  std::map<std::string, MjcfSite>* sites) {
  static const ptree none;
  for (const auto& [tag, child] : element) {
    const ptree& own = child.get_child("<xmlattr>", none);
    if (tag == "body") CollectSites(child, own.get("name", ""), sites);
    if (tag != "site" || !own.count("name")) continue;
    const std::string name = own.get<std::string>("name");
    (*sites)[name] = Site(own, body, name);
  }
}

}  // namespace

std::map<std::string, MjcfSite> ReadMjcfSites(const std::string& path) {
  const ptree root = ReadMjcfRoot(path);
  std::map<std::string, MjcfSite> sites;
  if (const auto world = root.get_child_optional("worldbody"))
    CollectSites(*world, "", &sites);
  return sites;
}

}  // namespace coulomb
