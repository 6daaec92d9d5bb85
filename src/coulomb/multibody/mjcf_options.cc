#include "coulomb/multibody/mjcf_options.h"

#include <stdexcept>
#include <vector>

#include "coulomb/multibody/mjcf_defaults.h"

namespace coulomb {

MjcfOptions ReadMjcfOptions(const std::string& path) {
  const boost::property_tree::ptree root = ReadMjcfRoot(path);
  MjcfOptions options;
  options.model = root.get("<xmlattr>.model", "");
  for (const auto& [section, content] : root) {
    if (section != "option") continue;
    if (const auto text = content.get_optional<std::string>("<xmlattr>.timestep")) {
      const std::vector<double> step = ParseMjcfNumbers(*text, "<option timestep>");
      if (step.size() != 1 || !(step[0] > 0.0))
        throw std::runtime_error("<option timestep> '" + *text +
                                 "': expected a time > 0");
      options.timestep = step[0];
    }
    if (const auto text = content.get_optional<std::string>("<xmlattr>.gravity")) {
      const std::vector<double> gravity = ParseMjcfNumbers(*text, "<option gravity>");
      if (gravity.size() != 3)
        throw std::runtime_error("<option gravity> '" + *text + "': expected 3 numbers");
      options.gravity = Eigen::Vector3d(gravity[0], gravity[1], gravity[2]);
    }
    const std::string integrator = content.get("<xmlattr>.integrator", "Euler");
    if (integrator == "Euler") {
      options.implicit_damping =
          content.get("flag.<xmlattr>.eulerdamp", "enable") != "disable";
    } else if (integrator == "implicit" || integrator == "implicitfast") {
      options.implicit_damping = true;
    } else if (integrator == "RK4") {
      options.implicit_damping = false;
    } else {
      throw std::runtime_error("<option integrator> '" + integrator +
                               "': expected Euler, RK4, implicit or implicitfast");
    }
  }
  return options;
}

}  // namespace coulomb
