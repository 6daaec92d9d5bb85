#include "coulomb/multibody/mjcf_connects.h"

#include <map>
#include <optional>
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
  MjcfConnect connect;
  connect.body_a = site_a.body;
  connect.body_b = site_b.body;
  connect.anchor = site_a.X_BS.translation();
  connect.weld = tag == "weld";
  connect.by_sites = true;
  connect.frames_given = true;
  connect.X_AS1 = site_a.X_BS;
  connect.X_BS2 = site_b.X_BS;
  return connect;
}

// A weld given by bodies. With relpose's quaternion all zero (MuJoCo's
// default relpose, "0 1 0 0 0 0 0"), body1 held where it is relative to
// body2 at qpos0; otherwise as MuJoCo's weld: body2's point `anchor` (in
// body2) held at body1's point relpos (relpose's position, in body1), and
// body2 turned from body1 by relpose's quaternion (w x y z, normalized).
MjcfConnect BodyWeld(const ptree& attributes, const std::string& body_a) {
  const std::string weld_of = "<equality><weld body1=\"" + body_a + "\">: ";
  const std::vector<double> relpose = ParseMjcfNumbers(
      attributes.get("relpose", "0 1 0 0 0 0 0"), weld_of + "relpose", 7);
  const std::vector<double> anchor =
      ParseMjcfNumbers(attributes.get("anchor", "0 0 0"), weld_of + "anchor", 3);
  MjcfConnect weld;
  weld.body_a = body_a;
  weld.body_b = attributes.get("body2", "");
  weld.weld = true;
  const Eigen::Quaterniond turn(relpose[3], relpose[4], relpose[5], relpose[6]);
  if (turn.coeffs().isZero(0.0)) return weld;
  weld.frames_given = true;
  weld.anchor = Eigen::Vector3d(relpose.data());
  weld.X_AS1.translation() = weld.anchor;
  weld.X_AS1.linear() = turn.normalized().toRotationMatrix();
  weld.X_BS2.translation() = Eigen::Vector3d(anchor.data());
  return weld;
}

// A connect or weld by its attributes; none when it names neither body1
// nor site1.
std::optional<MjcfConnect> ReadConnect(const std::string& tag, const ptree& attributes,
                                       const std::map<std::string, MjcfSite>& sites) {
  const std::string body_a = attributes.get("body1", "");
  if (body_a.empty() && attributes.count("site1"))
    return SiteConnect(tag, attributes, sites);
  if (body_a.empty()) return std::nullopt;
  if (tag == "weld") return BodyWeld(attributes, body_a);
  MjcfConnect connect;
  connect.body_a = body_a;
  connect.body_b = attributes.get("body2", "");
  std::istringstream in(attributes.get("anchor", ""));
  for (int i = 0; i < 3; ++i) in >> connect.anchor[i];
  std::string rest;
  if (in.fail() || (in >> rest) || !connect.anchor.allFinite()) {
    throw std::runtime_error("<equality><connect body1=\"" + body_a +
                             "\">: anchor must be three finite numbers");
  }
  return connect;
}

}  // namespace

std::vector<MjcfConnect> ReadMjcfConnects(const std::string& path) {
  const ptree root = ReadMjcfRoot(path);
  const ptree none;
  const std::map<std::string, MjcfSite> sites = ReadMjcfSites(path);
  std::vector<MjcfConnect> connects;
  int index = 0;  // among the file's equalities
  for (const auto& [section, content] : root) {
    if (section != "equality") continue;
    for (const auto& [tag, element] : content) {
      if (tag.starts_with("<xml")) continue;  // <equality>'s attributes, comments
      const int k = index++;
      if (tag != "connect" && tag != "weld") continue;
      const auto& attributes = element.get_child("<xmlattr>", none);
      std::optional<MjcfConnect> connect = ReadConnect(tag, attributes, sites);
      if (!connect) continue;
      connect->name = attributes.get("name", "equality" + std::to_string(k));
      connect->active = attributes.get("active", "true") != "false";
      connects.push_back(*connect);
    }
  }
  return connects;
}

}  // namespace coulomb
