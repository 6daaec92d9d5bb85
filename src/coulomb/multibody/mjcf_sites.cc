#include "coulomb/multibody/mjcf_sites.h"

#include <set>
#include <stdexcept>

#include "coulomb/multibody/mjcf_defaults.h"
#include "coulomb/multibody/mjcf_frames.h"
#include "coulomb/multibody/mjcf_orientations.h"

namespace coulomb {

using boost::property_tree::ptree;

namespace {

// The pose of an element placed by `fromto` (its two ends, in its body's
// frame), as MuJoCo places a capsule, cylinder, box or ellipsoid: centred
// between the ends, its z axis from `to` towards `from`; half the ends'
// distance in *half_length.
Eigen::Isometry3d PoseByEnds(const ptree& attributes, const std::string& what,
                             double* half_length) {
  const std::vector<double> n =
      ParseMjcfNumbers(attributes.get<std::string>("fromto"), what, 6);
  const Eigen::Vector3d from(n[0], n[1], n[2]), to(n[3], n[4], n[5]);
  if (!((to - from).norm() > 0.0)) throw std::runtime_error(what + ": its ends coincide");
  Eigen::Isometry3d pose = Eigen::Isometry3d::Identity();
  pose.translation() = 0.5 * (from + to);
  pose.linear() = MjcfTurnFromZ(from - to).toRotationMatrix();  // MuJoCo's sense
  *half_length = 0.5 * (to - from).norm();
  return pose;
}

// A site placed by fromto (PoseByEnds): half the ends' distance its
// half-length along z, its first size number the radius (a box's and an
// ellipsoid's x and y half-sizes).
void PlaceByEnds(const ptree& attributes, const std::string& name, MjcfSite* site) {
  const std::string what = "site '" + name + "' fromto";
  if (site->type == "sphere")
    throw std::runtime_error(what + ": a sphere has no axis (give it pos instead)");
  double half_length = 0.0;
  site->X_BS = PoseByEnds(attributes, what, &half_length);
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

// A geom's frame, and its type (its size not read).
MjcfSite GeomFrame(const ptree& attributes, const std::string& body,
                   const std::string& name) {
  MjcfSite geom{body, MjcfElementPose(attributes, "geom"),
                attributes.get("type", "sphere")};
  double half_length = 0.0;
  if (attributes.count("fromto"))
    geom.X_BS = PoseByEnds(attributes, "geom '" + name + "' fromto", &half_length);
  return geom;
}

// The named elements `tag` (site or geom) of `element` (a body named `body`,
// or the world body: "") and of the bodies in it, read by `read`.
template <typename Read>
void Collect(const ptree& element, const std::string& body, const std::string& tag,
             const Read& read, std::map<std::string, MjcfSite>* found) {
  static const ptree none;
  for (const auto& [child_tag, child] : element) {
    const ptree& own = child.get_child("<xmlattr>", none);
    if (child_tag == "body") Collect(child, own.get("name", ""), tag, read, found);
    if (child_tag != tag || !own.count("name")) continue;
    const std::string name = own.get<std::string>("name");
    (*found)[name] = read(own, body, name);
  }
}

// The inertial frames of `element`'s bodies (and deeper) given by an
// <inertial> with diaginertia.
void CollectInertials(const ptree& element, std::map<std::string, MjcfSite>* found) {
  static const ptree none;
  for (const auto& [tag, child] : element) {
    if (tag != "body") continue;
    CollectInertials(child, found);
    const std::string body = child.get("<xmlattr>.name", "");
    const auto inertial = child.get_child_optional("inertial");
    if (body.empty() || !inertial ||
        !inertial->get_child("<xmlattr>", none).count("diaginertia"))
      continue;
    (*found)[body] = {body,
                      MjcfElementPose(inertial->get_child("<xmlattr>"), "inertial")};
  }
}

template <typename Read>
std::map<std::string, MjcfSite> CollectAll(const ptree& root, const std::string& tag,
                                           const Read& read) {
  std::map<std::string, MjcfSite> found;
  if (const auto world = root.get_child_optional("worldbody"))
    Collect(*world, "", tag, read, &found);
  return found;
}

}  // namespace

std::map<std::string, MjcfSite> ReadMjcfSites(const ptree& root) {
  return CollectAll(root, "site", Site);
}

std::map<std::string, MjcfSite> ReadMjcfGeomFrames(const ptree& root) {
  return CollectAll(root, "geom", GeomFrame);
}

std::map<std::string, MjcfSite> ReadMjcfInertialFrames(const ptree& root) {
  std::map<std::string, MjcfSite> found;
  if (const auto world = root.get_child_optional("worldbody"))
    CollectInertials(*world, &found);
  return found;
}

std::map<std::string, MjcfSite> ReadMjcfSites(const std::string& path) {
  return ReadMjcfSites(ReadMjcfRoot(path));
}

}  // namespace coulomb
