#include "coulomb/multibody/mjcf_actuators.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>
#include <stdexcept>
#include <tuple>

#include "coulomb/multibody/mjcf_defaults.h"

namespace coulomb {
namespace {

using boost::property_tree::ptree;
constexpr double kInfinity = std::numeric_limits<double>::infinity();

// Attributes every type reads, or that change nothing in the mapping
// (names, groups), and those each type adds.
const std::set<std::string> kCommonAttributes = {
    "name", "class",      "group",        "user",      "joint",      "tendon",
    "gear", "forcerange", "forcelimited", "ctrlrange", "ctrllimited"};
const std::set<std::string> kPositionAttributes = {"kp", "kv", "inheritrange"};
const std::set<std::string> kVelocityAttributes = {"kv"};
const std::set<std::string> kGeneralAttributes = {"gaintype", "biastype", "dyntype",
                                                  "gainprm",  "biasprm",  "dynprm"};

// An actuator's resolved attributes, read with its name in every error.
class ActuatorAttributes {
 public:
  ActuatorAttributes(std::string name, const ptree& values)
      : name_(std::move(name)), values_(values) {}

  [[noreturn]] void Refuse(const std::string& what) const {
    throw std::runtime_error("actuator '" + name_ + "': " + what);
  }
  std::string Text(const std::string& attribute, const std::string& otherwise) const {
    return values_.get(attribute, otherwise);
  }
  bool Has(const std::string& attribute) const { return values_.count(attribute) > 0; }
  // The numbers of an attribute ("1 0 0"), all finite; `otherwise` when absent.
  std::vector<double> Numbers(const std::string& attribute,
                              const std::string& otherwise) const {
    const std::string text = Text(attribute, otherwise);
    std::istringstream in(text);
    std::vector<double> numbers;
    double value = 0.0;
    while (in >> value) numbers.push_back(value);
    if (!in.eof() || numbers.empty()) Refuse(attribute + ": not numbers: " + text);
    for (double number : numbers)
      if (!std::isfinite(number)) Refuse(attribute + ": not finite: " + text);
    return numbers;
  }
  double Number(const std::string& attribute, double otherwise) const {
    if (!Has(attribute)) return otherwise;
    const std::vector<double> numbers = Numbers(attribute, "");
    if (numbers.size() != 1) Refuse(attribute + ": expected one number");
    return numbers[0];
  }
  void CheckRead(const std::string& type, const std::set<std::string>& own) const {
    for (const auto& [attribute, value] : values_) {
      if (!kCommonAttributes.count(attribute) && !own.count(attribute))
        Refuse("attribute '" + attribute + "' of <" + type + "> is not read");
    }
  }
  // The range [lower, upper] of `prefix`range that its `prefix`limited
  // attribute (true, false, or auto: limited when the range is given)
  // turns on; (−∞, ∞) when off.
  std::pair<double, double> Range(const std::string& prefix) const {
    const std::string limited = Text(prefix + "limited", "auto");
    if (limited != "true" && limited != "false" && limited != "auto")
      Refuse(prefix + "limited '" + limited + "': expected true, false or auto");
    const bool has_range = Has(prefix + "range");
    if (limited == "false" || (limited == "auto" && !has_range))
      return {-kInfinity, kInfinity};
    if (!has_range) Refuse(prefix + "limited without a " + prefix + "range");
    const std::vector<double> bounds = Numbers(prefix + "range", "");
    if (bounds.size() != 2 || !(bounds[0] < bounds[1]))
      Refuse(prefix + "range '" + Text(prefix + "range", "") +
             "': expected lower < upper");
    return {bounds[0], bounds[1]};
  }
  // F of a range that must be [−F, F].
  double SymmetricBound(const std::string& prefix) const {
    const auto [lower, upper] = Range(prefix);
    if (lower != -upper)
      Refuse(prefix + "range '" + Text(prefix + "range", "") + "': only [−F, F] is read");
    return upper;
  }

 private:
  std::string name_;
  const ptree& values_;
};

// A motor of gain a: the effort set on the joint is g a ctrl.
void ReadMotor(const ActuatorAttributes& attributes, double gain,
               MjcfActuator* actuator) {
  const double gear = attributes.Numbers("gear", "1")[0];
  if (gear == 0.0) attributes.Refuse("gear 0: the motor would move nothing");
  const double force_bound = attributes.SymmetricBound("force");
  const double control_bound = attributes.SymmetricBound("ctrl");
  actuator->effort_limit = std::abs(gear) * std::min(force_bound, gain * control_bound);
  actuator->effort_per_control = gear * gain;
  actuator->gear = gear;
}

// A servo: PD gains, its control a target (`target_per_control` times the
// control) within ctrlrange.
void ReadServo(const ActuatorAttributes& attributes, MjcfActuator::Control control,
               double kp, double kd, MjcfActuator* actuator,
               double target_per_control = 1.0) {
  const double gear = attributes.Numbers("gear", "1")[0];
  if (gear != 1.0)
    attributes.Refuse("gear " + attributes.Text("gear", "") +
                      ": only a motor's gear is read (a servo's must be 1)");
  if (kp < 0.0 || kd < 0.0) attributes.Refuse("negative kp or kv");
  actuator->control = control;
  actuator->proportional_gain = kp;
  actuator->derivative_gain = kd;
  actuator->target_per_control = target_per_control;
  actuator->effort_limit = std::abs(gear) * attributes.SymmetricBound("force");
  std::tie(actuator->control_lower, actuator->control_upper) = attributes.Range("ctrl");
}

// The first `count` entries of a parameter vector, the others checked 0.
std::vector<double> Leading(const ActuatorAttributes& attributes,
                            const std::string& attribute, const std::string& otherwise,
                            size_t count) {
  std::vector<double> numbers = attributes.Numbers(attribute, otherwise);
  for (size_t i = count; i < numbers.size(); ++i)
    if (numbers[i] != 0.0)
      attributes.Refuse(attribute + ": only its first " + std::to_string(count) +
                        " entries are read, the others must be 0");
  numbers.resize(count, 0.0);
  return numbers;
}

// <general>: f = a ctrl + b0 + b1 q + b2 q̇ as a motor or a servo.
void ReadGeneral(const ActuatorAttributes& attributes, MjcfActuator* actuator) {
  if (attributes.Text("gaintype", "fixed") != "fixed" ||
      attributes.Text("dyntype", "none") != "none")
    attributes.Refuse("only gaintype fixed and dyntype none are read");
  const std::string biastype = attributes.Text("biastype", "none");
  if (biastype != "none" && biastype != "affine")
    attributes.Refuse("biastype '" + biastype + "': only none and affine are read");
  const double gain = Leading(attributes, "gainprm", "1", 1)[0];
  std::vector<double> bias = Leading(attributes, "biasprm", "0", 3);
  if (biastype == "none") bias.assign(3, 0.0);
  if (!(gain > 0.0)) attributes.Refuse("gainprm: only a positive gain is read");
  if (bias[0] != 0.0) attributes.Refuse("biasprm: a constant bias is not read");
  if (bias[1] == 0.0 && bias[2] == 0.0) return ReadMotor(attributes, gain, actuator);
  // f = kp (s ctrl − q) − kv q̇ with kp = −b1, kv = −b2 and s = a/kp; a
  // velocity servo's f = kv (s ctrl − q̇) with s = a/kv. s = 1 exactly when
  // the file writes b1 = −a (or b2 = −a).
  const auto target_per_control = [gain](double servo_gain) {
    return servo_gain == gain ? 1.0 : gain / servo_gain;
  };
  if (bias[1] < 0.0 && bias[2] <= 0.0)
    return ReadServo(attributes, MjcfActuator::Control::kTargetPosition, -bias[1],
                     -bias[2], actuator, target_per_control(-bias[1]));
  if (bias[1] == 0.0 && bias[2] < 0.0)
    return ReadServo(attributes, MjcfActuator::Control::kTargetVelocity, 0.0, -bias[2],
                     actuator, target_per_control(-bias[2]));
  attributes.Refuse(
      "a <general> law is read as a motor (biasprm 0), a position servo (biasprm "
      "\"0 -kp -kv\", kp > 0, kv ≥ 0) or a velocity servo (biasprm \"0 0 -kv\", kv > 0)");
}

MjcfActuator ReadActuator(const std::string& type, const ptree& values) {
  const std::string joint = values.get("joint", ""), tendon = values.get("tendon", "");
  MjcfActuator actuator{values.get("name", "<" + type + "> on " + joint + tendon), joint,
                        tendon};
  const ActuatorAttributes attributes(actuator.name, values);
  if (type == "motor") {
    attributes.CheckRead(type, {});
  } else if (type == "position") {
    attributes.CheckRead(type, kPositionAttributes);
  } else if (type == "velocity") {
    attributes.CheckRead(type, kVelocityAttributes);
  } else if (type == "general") {
    attributes.CheckRead(type, kGeneralAttributes);
  } else {
    attributes.Refuse("<" + type +
                      "> is not read (motor, position, velocity and general are)");
  }
  if (joint.empty() == tendon.empty())
    attributes.Refuse(
        joint.empty() ? "acts on no joint or tendon (only those transmissions are read)"
                      : "acts on both a joint and a tendon (give one)");
  if (type == "motor") {
    ReadMotor(attributes, 1.0, &actuator);
  } else if (type == "position") {
    ReadServo(attributes, MjcfActuator::Control::kTargetPosition,
              attributes.Number("kp", 1.0), attributes.Number("kv", 0.0), &actuator);
    actuator.inherit_range = attributes.Number("inheritrange", 0.0);
    if (actuator.inherit_range < 0.0) attributes.Refuse("negative inheritrange");
    if (actuator.inherit_range > 0.0 && attributes.Has("ctrlrange"))
      attributes.Refuse("both ctrlrange and inheritrange (give one)");
  } else if (type == "velocity") {
    ReadServo(attributes, MjcfActuator::Control::kTargetVelocity, 0.0,
              attributes.Number("kv", 1.0), &actuator);
  } else {
    ReadGeneral(attributes, &actuator);
  }
  return actuator;
}

}  // namespace

std::vector<MjcfActuator> ReadMjcfActuators(const std::string& path) {
  const ptree root = ReadMjcfRoot(path);
  const MjcfDefaults defaults(root);
  const ptree none;
  std::vector<MjcfActuator> actuators;
  for (const auto& [section, content] : root) {
    if (section != "actuator") continue;
    for (const auto& [type, element] : content) {
      if (type == "<xmlattr>" || type == "<xmlcomment>") continue;
      const ptree values =
          defaults.ActuatorAttributes(type, element.get_child("<xmlattr>", none));
      actuators.push_back(ReadActuator(type, values));
    }
  }
  return actuators;
}

}  // namespace coulomb
