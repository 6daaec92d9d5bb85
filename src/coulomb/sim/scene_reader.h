#pragma once

#include <yaml-cpp/yaml.h>

#include <cmath>
#include <limits>
#include <string>

#include <Eigen/Dense>
#include <Eigen/Geometry>

#include "coulomb/sim/contact_material.h"
#include "coulomb/sim/scene_file.h"

namespace coulomb {

// Reads typed values out of YAML nodes, with errors that point at the file,
// the line and the key path (e.g. "bodies[3].mass"). Without
// `locate_errors` (the scene of an MJCF file, whose YAML is ours: its lines
// and keys point nowhere the user wrote) an error is its message alone,
// which names the file.
class SceneReader {
 public:
  explicit SceneReader(std::string path, bool locate_errors = true)
      : path_(std::move(path)), locate_errors_(locate_errors) {}

  [[noreturn]] void Fail(const YAML::Node& node, const std::string& key,
                         const std::string& what) const {
    if (!locate_errors_) throw SceneFileError(what);
    const int line = node.Mark().line >= 0 ? node.Mark().line + 1 : 0;
    // The empty key path is the file's top level.
    throw SceneFileError(path_ + ":" + std::to_string(line) + ": " +
                         (key.empty() ? "the scene" : key) + ": " + what);
  }

  void CheckKeys(const YAML::Node& node, const std::string& key,
                 const std::set<std::string>& allowed) const {
    const auto list = [&allowed] {  // for the message, once something is wrong
      std::string text;
      for (const std::string& a : allowed) text += (text.empty() ? "" : ", ") + a;
      return text;
    };
    if (!node.IsMap()) {
      const char* found = node.IsNull()       ? "nothing"
                          : node.IsSequence() ? "a list"
                                              : "a single value";
      Fail(node, key, "expected a mapping (keys: " + list() + "), got " + found);
    }
    for (const auto& entry : node) {
      const std::string name = entry.first.as<std::string>();
      if (!allowed.count(name))
        Fail(entry.first, Join(key, name), "unknown key (allowed: " + list() + ")");
    }
  }

  double Number(const YAML::Node& node, const std::string& key,
                bool allow_infinite = false) const {
    double value = 0.0;
    if (!node.IsScalar() || !YAML::convert<double>::decode(node, value)) {
      Fail(node, key, "expected a number");
    }
    if (std::isnan(value) || (!allow_infinite && std::isinf(value))) {
      Fail(node, key, "must be finite, got " + node.as<std::string>());
    }
    return value;
  }

  double Positive(const YAML::Node& node, const std::string& key,
                  bool allow_infinite = false) const {
    const double value = Number(node, key, allow_infinite);
    if (!(value > 0.0))
      Fail(node, key, "must be positive, got " + node.as<std::string>());
    return value;
  }

  double NonNegative(const YAML::Node& node, const std::string& key) const {
    const double value = Number(node, key);
    if (value < 0.0) Fail(node, key, "must be ≥ 0, got " + node.as<std::string>());
    return value;
  }

  int Integer(const YAML::Node& node, const std::string& key) const {
    int value = 0;
    if (!node.IsScalar() || !YAML::convert<int>::decode(node, value)) {
      Fail(node, key, "expected an integer");
    }
    return value;
  }

  bool Boolean(const YAML::Node& node, const std::string& key) const {
    bool value = false;
    if (!node.IsScalar() || !YAML::convert<bool>::decode(node, value)) {
      Fail(node, key, "expected true or false");
    }
    return value;
  }

  std::string String(const YAML::Node& node, const std::string& key) const {
    if (!node.IsScalar()) Fail(node, key, "expected a string");
    return node.as<std::string>();
  }

  // A list of N numbers.
  template <int N>
  Eigen::Matrix<double, N, 1> Vector(const YAML::Node& node,
                                     const std::string& key) const {
    if (!node.IsSequence() || node.size() != N)
      Fail(node, key, "expected a list of " + std::to_string(N) + " numbers");
    Eigen::Matrix<double, N, 1> value;
    for (int k = 0; k < N; ++k)
      value[k] = Number(node[k], key + "[" + std::to_string(k) + "]");
    return value;
  }
  Eigen::Vector3d Vector3(const YAML::Node& node, const std::string& key) const {
    return Vector<3>(node, key);
  }

  static std::string Join(const std::string& parent, const std::string& child) {
    return parent.empty() ? child : parent + "." + child;
  }

  const std::string& path() const { return path_; }
  // "KEY: " to open a message about the key (a warning), or nothing where
  // errors are not located.
  std::string KeyPrefix(const std::string& key) const {
    return locate_errors_ ? key + ": " : "";
  }
  // A file named in the scene: "example-robot-data/…" inside that package
  // (RobotDataDirectory()), else absolute or relative to the scene file.
  std::string ResolveFile(const std::string& file) const;

 private:
  std::string path_;
  bool locate_errors_ = true;
};

// Shared by the body and robot readers (scene_file.cc).
void ReadContactMaterial(const SceneReader& r, const YAML::Node& node,
                         const std::string& key, ContactMaterial* material);
// defaults with the overrides of `node`'s optional `contact` mapping.
ContactMaterial ReadContactOverrides(const SceneReader& r, const YAML::Node& node,
                                     const std::string& key,
                                     const ContactMaterial& defaults);
Eigen::Isometry3d ReadPose(const SceneReader& r, const YAML::Node& node,
                           const std::string& key);

}  // namespace coulomb
