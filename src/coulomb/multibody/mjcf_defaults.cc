#include "coulomb/multibody/mjcf_defaults.h"

#include <boost/property_tree/xml_parser.hpp>
#include <cmath>
#include <filesystem>
#include <map>
#include <sstream>
#include <stdexcept>

#include "coulomb/multibody/mjcf_frames.h"
#include "coulomb/multibody/mjcf_geoms.h"
#include "coulomb/multibody/mjcf_inertias.h"
#include "coulomb/multibody/mjcf_joint_angles.h"
#include "coulomb/multibody/mjcf_orientations.h"
#include "coulomb/multibody/mjcf_root_cache.h"

namespace coulomb {
namespace {

using boost::property_tree::ptree;

// MuJoCo's actuator shortcuts, each of which may set a class's actuator
// defaults.
const std::set<std::string> kActuatorTags = {
    "general",  "motor",  "position", "velocity", "intvelocity", "damper",
    "cylinder", "muscle", "adhesion", "plugin",   "dcmotor"};

const ptree& Attributes(const ptree& element) {
  static const ptree none;
  return element.get_child("<xmlattr>", none);
}

ptree ReadXml(const std::string& path) {
  ptree file;
  try {
    boost::property_tree::read_xml(path, file);
  } catch (const std::exception& e) {
    throw std::runtime_error(e.what());
  }
  return file;
}

// MuJoCo's <include file>, done as MuJoCo does it: the included file's one
// top-level element replaced by its children, at the include's place; the
// file found from the main file's folder; nested includes expanded; a file
// included at most once.
class IncludeExpander {
 public:
  explicit IncludeExpander(const std::string& main_path)
      : folder_(std::filesystem::absolute(main_path).parent_path()),
        included_{std::filesystem::canonical(main_path).string()} {}

  ptree Expand(const ptree& element) {
    ptree expanded;
    for (const auto& [tag, child] : element) {
      if (tag != "include") {
        expanded.push_back({tag, tag == "<xmlattr>" ? child : Expand(child)});
        continue;
      }
      for (const auto& entry : Included(child)) expanded.push_back(entry);
    }
    return expanded;
  }

 private:
  ptree Included(const ptree& include) {
    const auto file = include.get_optional<std::string>("<xmlattr>.file");
    if (!file) throw std::runtime_error("<include> needs a file");
    const std::filesystem::path path = folder_ / *file;
    const std::string what = "<include file=\"" + *file + "\">";
    if (!std::filesystem::is_regular_file(path))
      throw std::runtime_error(what + ": " + path.string() + ": file not found");
    if (!included_.insert(std::filesystem::canonical(path).string()).second)
      throw std::runtime_error(what + ": a file is included at most once");
    ptree top;
    for (const auto& [tag, element] : ReadXml(path.string()))
      if (tag != "<xmlcomment>") top.push_back({tag, element});
    if (top.size() != 1)
      throw std::runtime_error(what + ": expected one top-level element");
    ptree children = Expand(top.front().second);
    children.erase("<xmlattr>");
    if (children.empty()) throw std::runtime_error(what + ": includes no element");
    return children;
  }

  std::filesystem::path folder_;
  std::set<std::string> included_;
};

// The sections of <mujoco> that appear more than once (a scene file's
// <worldbody> beside its included robot's) merged into the first of each
// tag, as MuJoCo merges them: children in file order, a later section's
// attributes over an earlier one's.
ptree MergeRepeatedSections(const ptree& root) {
  ptree merged;
  for (const auto& [tag, section] : root) {
    const auto first = merged.find(tag);
    if (tag == "<xmlattr>" || tag == "<xmlcomment>" || first == merged.not_found()) {
      merged.push_back({tag, section});
      continue;
    }
    ptree& into = merged.to_iterator(first)->second;
    for (const auto& [child_tag, child] : section) {
      if (child_tag == "<xmlattr>") {
        into.put_child("<xmlattr>", MergeAttributes(Attributes(into), child));
      } else {
        into.push_back({child_tag, child});
      }
    }
  }
  return merged;
}

// The files MjcfRootCache keeps on this thread, with the time and size
// they were read at; cache_depth counts the live caches.
struct ReadRoot {
  std::filesystem::file_time_type time;
  std::uintmax_t size;
  ptree root;
};
thread_local int cache_depth = 0;
thread_local std::map<std::string, ReadRoot> cached_roots;

ptree ReadUncachedMjcfRoot(const std::string& path) {
  const ptree file = ReadXml(path);
  const auto root = file.get_child_optional("mujoco");
  if (!root) throw std::runtime_error(path + ": no <mujoco> element");
  ptree merged = MergeRepeatedSections(IncludeExpander(path).Expand(*root));
  ResolveMjcfGeomAndSiteClasses(&merged);
  CheckMjcfGeomSizes(merged);
  NormalizeMjcfOrientations(&merged);
  FlattenMjcfFrames(&merged);
  ConvertMjcfJointAnglesToRadians(&merged);
  WriteMjcfGeomInertias(path, &merged);
  return merged;
}

}  // namespace

MjcfRootCache::MjcfRootCache() { ++cache_depth; }

MjcfRootCache::~MjcfRootCache() {
  if (--cache_depth == 0) cached_roots.clear();
}

ptree ReadMjcfRoot(const std::string& path) {
  if (cache_depth == 0) return ReadUncachedMjcfRoot(path);
  std::error_code error;
  const auto time = std::filesystem::last_write_time(path, error);
  const std::uintmax_t size = error ? 0 : std::filesystem::file_size(path, error);
  if (error) return ReadUncachedMjcfRoot(path);  // which says what is wrong
  const auto found = cached_roots.find(path);
  if (found != cached_roots.end() && found->second.time == time &&
      found->second.size == size)
    return found->second.root;
  ptree root = ReadUncachedMjcfRoot(path);
  cached_roots[path] = {time, size, root};
  return root;
}

std::vector<double> ParseMjcfNumbers(const std::string& text, const std::string& what) {
  std::istringstream in(text);
  std::vector<double> numbers;
  double value = 0.0;
  while (in >> value) numbers.push_back(value);
  if (!in.eof()) throw std::runtime_error(what + " '" + text + "': not a number");
  for (double number : numbers)
    if (!std::isfinite(number)) throw std::runtime_error(what + " is not finite");
  return numbers;
}

std::vector<double> ParseMjcfNumbers(const std::string& text, const std::string& what,
                                     size_t count) {
  std::vector<double> numbers = ParseMjcfNumbers(text, what);
  if (numbers.size() != count)
    throw std::runtime_error(what + " '" + text + "': expected " + std::to_string(count) +
                             " numbers");
  return numbers;
}

std::string FormatMjcfNumbers(const std::vector<double>& numbers) {
  std::ostringstream text;
  text.precision(17);
  for (size_t k = 0; k < numbers.size(); ++k) text << (k ? " " : "") << numbers[k];
  return text.str();
}

ptree MergeAttributes(ptree values, const ptree& own) {
  for (const auto& [attribute, value] : own) values.put_child(attribute, value);
  return values;
}

MjcfDefaults::MjcfDefaults(const ptree& root) {
  for (const auto& [section, content] : root) {
    if (section != "default") continue;
    if (classes_.count("main"))
      throw std::runtime_error("<default>: a second top-level <default> section");
    ReadClass(content, Attributes(content).get("class", "main"), Class{});
  }
  if (!classes_.count("main")) classes_["main"] = Class{};
}

void MjcfDefaults::ReadClass(const ptree& element, const std::string& name,
                             Class inherited) {
  for (const auto& [tag, child] : element) {
    if (tag == "joint") {
      inherited.joint = MergeAttributes(inherited.joint, Attributes(child));
    } else if (tag == "geom") {
      inherited.geom = MergeAttributes(inherited.geom, Attributes(child));
    } else if (tag == "tendon") {
      inherited.tendon = MergeAttributes(inherited.tendon, Attributes(child));
    } else if (tag == "site") {
      inherited.site = MergeAttributes(inherited.site, Attributes(child));
    } else if (kActuatorTags.count(tag)) {
      inherited.actuator = MergeAttributes(inherited.actuator, Attributes(child));
      inherited.actuator_tags.insert(tag);
    }
  }
  if (!classes_.emplace(name, inherited).second)
    throw std::runtime_error("<default class=\"" + name + "\">: defined twice");
  for (const auto& [tag, child] : element) {
    if (tag != "default") continue;
    const auto child_name = Attributes(child).get_optional<std::string>("class");
    if (!child_name)
      throw std::runtime_error("<default> inside class '" + name +
                               "' without a class name");
    ReadClass(child, *child_name, inherited);
  }
}

void MjcfDefaults::CheckClassesDefined(const ptree& root) const {
  for (const auto& [tag, child] : root) {
    if (tag == "default" || tag == "<xmlattr>") continue;
    for (const char* attribute : {"class", "childclass"}) {
      const auto name = Attributes(child).get_optional<std::string>(attribute);
      if (name) Find(*name);
    }
    CheckClassesDefined(child);
  }
}

const MjcfDefaults::Class& MjcfDefaults::Find(const std::string& class_name) const {
  const auto found = classes_.find(class_name);
  if (found == classes_.end())
    throw std::runtime_error("class '" + class_name + "' is not defined in <default>");
  return found->second;
}

ptree MjcfDefaults::JointAttributes(const ptree& own,
                                    const std::string& class_name) const {
  return MergeAttributes(Find(class_name).joint, own);
}

ptree MjcfDefaults::GeomAttributes(const ptree& own,
                                   const std::string& class_name) const {
  return MergeAttributes(Find(class_name).geom, own);
}

ptree MjcfDefaults::SiteAttributes(const ptree& own,
                                   const std::string& class_name) const {
  return MergeAttributes(Find(class_name).site, own);
}

ptree MjcfDefaults::TendonAttributes(const ptree& own,
                                     const std::string& class_name) const {
  return MergeAttributes(Find(class_name).tendon, own);
}

ptree MjcfDefaults::ActuatorAttributes(const std::string& type, const ptree& own) const {
  const std::string class_name = own.get("class", "main");
  const Class& values = Find(class_name);
  for (const std::string& tag : values.actuator_tags) {
    if (tag != type) {
      throw std::runtime_error("class '" + class_name + "' sets <" + tag +
                               "> defaults: they are read for <" + tag +
                               "> actuators only, not for a <" + type + ">");
    }
  }
  return MergeAttributes(values.actuator, own);
}

}  // namespace coulomb
