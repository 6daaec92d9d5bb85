#include "coulomb/multibody/mjcf_gravity_compensation.h"

#include <boost/property_tree/ptree.hpp>

#include "coulomb/multibody/mjcf_defaults.h"
#include "coulomb/multibody/mjcf_frames.h"

namespace coulomb {
namespace {

using boost::property_tree::ptree;

// The gravity compensations of `body` and of the bodies in it.
void ReadCompensations(const ptree& body, std::vector<MjcfGravityCompensation>* found) {
  static const ptree none;
  const ptree& attributes = body.get_child("<xmlattr>", none);
  const std::string name = attributes.get("name", "");
  const double fraction = ParseMjcfNumbers(attributes.get("gravcomp", "0"),
                                           "body '" + name + "': gravcomp", 1)[0];
  if (const auto inertial = body.get_child_optional("inertial.<xmlattr>");
      inertial && fraction != 0.0) {
    const double mass = MjcfAttributeNumbers(*inertial, "mass", "inertial", {0})[0];
    const std::vector<double> p =
        MjcfAttributeNumbers(*inertial, "pos", "inertial", {0, 0, 0});
    if (mass != 0.0) found->push_back({name, fraction * mass, {p[0], p[1], p[2]}});
  }
  for (const auto& [tag, child] : body)
    if (tag == "body") ReadCompensations(child, found);
}

}  // namespace

std::vector<MjcfGravityCompensation> ReadMjcfGravityCompensations(
    const std::string& path) {
  const ptree root = ReadMjcfRoot(path);
  std::vector<MjcfGravityCompensation> found;
  if (const auto world = root.get_child_optional("worldbody"))
    for (const auto& [tag, body] : *world)
      if (tag == "body") ReadCompensations(body, &found);
  return found;
}

}  // namespace coulomb
