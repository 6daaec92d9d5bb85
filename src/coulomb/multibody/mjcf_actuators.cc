#include "coulomb/multibody/mjcf_actuators.h"

#include <algorithm>
#include <boost/property_tree/ptree.hpp>
#include <boost/property_tree/xml_parser.hpp>
#include <cmath>
#include <limits>
#include <set>
#include <sstream>
#include <stdexcept>

namespace coulomb {
namespace {

using boost::property_tree::ptree;

// MuJoCo's actuator elements; those read are motor, position and velocity.
const std::set<std::string> kActuatorTypes = {
    "general",  "motor",  "position", "velocity", "intvelocity", "damper",
    "cylinder", "muscle", "adhesion", "plugin",   "dcmotor"};
// Attributes that change nothing in the mapping (names, groups, the control
// range that is not enforced) or that it reads.
const std::set<std::string> kReadAttributes = {
    "name", "class",      "group",        "user",      "joint",       "gear",        "kp",
    "kv",   "forcerange", "forcelimited", "ctrlrange", "ctrllimited", "inheritrange"};

[[noreturn]] void Refuse(const std::string& actuator, const std::string& what) {
  throw std::runtime_error("actuator '" + actuator + "': " + what);
}

// The numbers of an attribute ("1 0 0"), all finite.
std::vector<double> Numbers(const std::string& actuator, const std::string& attribute,
                            const std::string& text) {
  std::istringstream in(text);
  std::vector<double> numbers;
  double value = 0.0;
  while (in >> value) numbers.push_back(value);
  if (!in.eof() || numbers.empty())
    Refuse(actuator, attribute + ": not numbers: " + text);
  for (double number : numbers)
    if (!std::isfinite(number)) Refuse(actuator, attribute + ": not finite: " + text);
  return numbers;
}

// Refuses actuator defaults anywhere in the <default> tree: which of them
// an actuator inherits depends on MuJoCo's class rules, not read here.
void RefuseActuatorDefaults(const ptree& node) {
  for (const auto& [key, child] : node) {
    if (kActuatorTypes.count(key)) {
      throw std::runtime_error(
          "<default> sets <" + key +
          "> attributes: actuator defaults are not read (give each actuator its "
          "attributes, or the robot's controllers in the scene and actuators: false)");
    }
    if (key == "default") RefuseActuatorDefaults(child);
  }
}

// F of a range attribute [−F, F] (`prefix`range) that its `prefix`limited
// attribute (true, false, or auto: limited when the range is given) turns
// on; ∞ when off.
double SymmetricBound(const std::string& name, const ptree& attributes,
                      const std::string& prefix) {
  const std::string limited = attributes.get(prefix + "limited", "auto");
  const auto range = attributes.get_optional<std::string>(prefix + "range");
  if (limited != "true" && limited != "false" && limited != "auto")
    Refuse(name, prefix + "limited '" + limited + "': expected true, false or auto");
  if (limited == "false" || (limited == "auto" && !range))
    return std::numeric_limits<double>::infinity();
  if (!range) Refuse(name, prefix + "limited without a " + prefix + "range");
  const std::vector<double> bounds = Numbers(name, prefix + "range", *range);
  if (bounds.size() != 2 || !(bounds[1] > 0.0) || bounds[0] != -bounds[1])
    Refuse(name, prefix + "range '" + *range + "': only [−F, F] with F > 0 is read");
  return bounds[1];
}

MjcfActuator ReadActuator(const std::string& type, const ptree& element) {
  const ptree none;
  const ptree& attributes = element.get_child("<xmlattr>", none);
  const std::string joint = attributes.get("joint", "");
  MjcfActuator actuator{attributes.get("name", "<" + type + "> on " + joint), joint};
  const std::string& name = actuator.name;
  if (type != "motor" && type != "position" && type != "velocity") {
    Refuse(name, "<" + type + "> is not read (motor, position and velocity are)");
  }
  for (const auto& [attribute, value] : attributes) {
    if (!kReadAttributes.count(attribute))
      Refuse(name, "attribute '" + attribute + "' of <" + type + "> is not read");
  }
  if (joint.empty()) Refuse(name, "acts on no joint (only joint transmissions are read)");
  const auto number = [&](const char* attribute, double otherwise) {
    const auto text = attributes.get_optional<std::string>(attribute);
    if (!text) return otherwise;
    const std::vector<double> numbers = Numbers(name, attribute, *text);
    if (numbers.size() != 1)
      Refuse(name, std::string(attribute) + ": expected one number");
    return numbers[0];
  };
  const double gear = Numbers(name, "gear", attributes.get("gear", "1"))[0];
  if (type != "motor" && gear != 1.0)
    Refuse(name, "gear " + std::to_string(gear) + ": only a motor's gear is read");
  if (type == "position") {
    actuator.proportional_gain = number("kp", 1.0);
    actuator.derivative_gain = number("kv", 0.0);
  } else if (type == "velocity") {
    actuator.derivative_gain = number("kv", 1.0);
  }
  if (actuator.proportional_gain < 0.0 || actuator.derivative_gain < 0.0)
    Refuse(name, "negative kp or kv");
  // The actuator force's bound, and a motor's control's (its force is its
  // control): the joint's effort limit is |g| times the smaller.
  const double force_bound = SymmetricBound(name, attributes, "force");
  const double control_bound = type == "motor" ? SymmetricBound(name, attributes, "ctrl")
                                               : std::numeric_limits<double>::infinity();
  actuator.effort_limit = std::abs(gear) * std::min(force_bound, control_bound);
  return actuator;
}

}  // namespace

std::vector<MjcfActuator> ReadMjcfActuators(const std::string& path) {
  ptree file;
  try {
    boost::property_tree::read_xml(path, file);
  } catch (const std::exception& e) {
    throw std::runtime_error(e.what());
  }
  std::vector<MjcfActuator> actuators;
  const ptree none;
  for (const auto& [section, content] : file.get_child("mujoco", none)) {
    if (section == "default") RefuseActuatorDefaults(content);
    if (section != "actuator") continue;
    for (const auto& [type, element] : content) {
      if (type == "<xmlattr>" || type == "<xmlcomment>") continue;
      actuators.push_back(ReadActuator(type, element));
    }
  }
  return actuators;
}

}  // namespace coulomb
