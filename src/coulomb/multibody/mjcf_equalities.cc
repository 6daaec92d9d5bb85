#include "coulomb/multibody/mjcf_equalities.h"

#include <stdexcept>

#include "coulomb/multibody/mjcf_defaults.h"
#include "coulomb/multibody/mjcf_tendons.h"

namespace coulomb {
namespace {

using boost::property_tree::ptree;

// Positions at qpos0 of the file's hinges and slides (their refs) and of its
// fixed tendons (Σ c_k ref_k), by name.
class ReferencePositions {
 public:
  ReferencePositions(const std::string& path, const std::vector<MjcfJoint>& joints)
      : joints_(joints), tendons_(ReadMjcfFixedTendons(path)) {}

  // s_0 of the joint (or, `on_tendons`, the tendon) `name`.
  double At(const std::string& name, bool on_tendons, const std::string& what) const {
    if (!on_tendons) return Joint(name, what);
    for (const MjcfFixedTendon& tendon : tendons_) {
      if (tendon.name != name) continue;
      double length = 0.0;
      for (const MjcfFixedTendon::Joint& joint : tendon.joints)
        length += joint.coefficient * Joint(joint.name, what);
      return length;
    }
    throw std::runtime_error(what + ": no fixed tendon named '" + name + "'");
  }

 private:
  double Joint(const std::string& name, const std::string& what) const {
    for (const MjcfJoint& joint : joints_) {
      const bool one_dof =
          joint.type == MjcfJoint::Type::kHinge || joint.type == MjcfJoint::Type::kSlide;
      if (joint.name == name && one_dof) return joint.reference;
    }
    throw std::runtime_error(what + ": no hinge or slide joint named '" + name + "'");
  }

  const std::vector<MjcfJoint>& joints_;
  std::vector<MjcfFixedTendon> tendons_;
};

// The coupling of an <equality><joint> (or, `on_tendons`, <tendon>).
MjcfCoupling Coupling(const ptree& attributes, bool on_tendons,
                      const ReferencePositions& positions) {
  const std::string kind = on_tendons ? "tendon" : "joint";
  MjcfCoupling coupling{.driven = attributes.get(kind + "1", ""),
                        .reference = attributes.get(kind + "2", ""),
                        .on_tendons = on_tendons};
  const std::string what =
      "<equality><" + kind + " " + kind + "1=\"" + coupling.driven + "\">";
  if (coupling.driven.empty()) throw std::runtime_error(what + ": " + kind + "1 missing");
  const std::vector<double> a =
      ParseMjcfNumbers(attributes.get("polycoef", "0 1 0 0 0"), what + " polycoef");
  if (a.size() > coupling.polynomial.size())
    throw std::runtime_error(what + ": polycoef has more than five numbers");
  std::fill(coupling.polynomial.begin(), coupling.polynomial.end(), 0.0);
  std::copy(a.begin(), a.end(), coupling.polynomial.begin());
  coupling.polynomial[0] += positions.At(coupling.driven, on_tendons, what);
  if (!coupling.reference.empty())
    coupling.reference_origin = positions.At(coupling.reference, on_tendons, what);
  return coupling;
}

}  // namespace

std::vector<MjcfCoupling> ReadMjcfCouplings(const std::string& path,
                                            const std::vector<MjcfJoint>& joints) {
  const ptree root = ReadMjcfRoot(path);
  const ReferencePositions positions(path, joints);
  std::vector<MjcfCoupling> couplings;
  const ptree none;
  for (const auto& [section, content] : root) {
    if (section != "equality") continue;
    for (const auto& [tag, element] : content) {
      const ptree& attributes = element.get_child("<xmlattr>", none);
      if ((tag != "joint" && tag != "tendon") ||
          attributes.get("active", "true") == "false")
        continue;
      couplings.push_back(Coupling(attributes, tag == "tendon", positions));
    }
  }
  return couplings;
}

}  // namespace coulomb
