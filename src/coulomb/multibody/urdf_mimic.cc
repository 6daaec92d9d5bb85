#include "coulomb/multibody/urdf_mimic.h"

#include <boost/property_tree/ptree.hpp>
#include <boost/property_tree/xml_parser.hpp>
#include <cmath>
#include <stdexcept>

namespace coulomb {

std::vector<UrdfMimicJoint> ReadUrdfMimicJoints(const std::string& path) {
  boost::property_tree::ptree file;
  try {
    boost::property_tree::read_xml(path, file);
  } catch (const std::exception& e) {
    throw std::runtime_error(e.what());
  }
  std::vector<UrdfMimicJoint> mimics;
  const boost::property_tree::ptree none;
  for (const auto& [tag, joint] : file.get_child("robot", none)) {
    const auto mimic = joint.get_child_optional("mimic");
    if (tag != "joint" || !mimic) continue;
    UrdfMimicJoint coupled{joint.get("<xmlattr>.name", ""),
                           mimic->get("<xmlattr>.joint", "")};
    const std::string what = "joint '" + coupled.joint + "': <mimic>";
    if (coupled.reference.empty()) throw std::runtime_error(what + " names no joint");
    try {
      coupled.multiplier = mimic->get("<xmlattr>.multiplier", 1.0);
      coupled.offset = mimic->get("<xmlattr>.offset", 0.0);
    } catch (const boost::property_tree::ptree_error&) {
      throw std::runtime_error(what + ": multiplier and offset must be numbers");
    }
    if (!std::isfinite(coupled.multiplier) || !std::isfinite(coupled.offset))
      throw std::runtime_error(what + ": multiplier and offset must be finite");
    mimics.push_back(coupled);
  }
  return mimics;
}

}  // namespace coulomb
