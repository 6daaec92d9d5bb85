#include "coulomb/multibody/mjcf_keyframe_share.h"

#include <stdexcept>

#include "coulomb/multibody/mjcf_defaults.h"
#include "coulomb/multibody/mjcf_joints.h"

namespace coulomb {
namespace {

using boost::property_tree::ptree;

// Where one body's entries lie in qpos and qvel, and their lengths.
struct BodyEntries {
  int qpos_offset = 0, qpos_size = 0, nq = 0;
  int qvel_offset = 0, qvel_size = 0, nv = 0;
};

BodyEntries FindBodyEntries(const std::string& path, const ptree& root,
                            const std::string& body) {
  const std::vector<MjcfElementJoints> elements = ReadMjcfTopLevelJoints(path);
  std::vector<std::string> names;  // of the same elements, in the same order
  const ptree none;
  for (const auto& [tag, child] : root.get_child("worldbody", none))
    if (tag == "body" || tag == "frame") names.push_back(child.get("<xmlattr>.name", ""));
  BodyEntries entries;
  for (size_t k = 0; k < elements.size(); ++k) {
    int positions = 0, velocities = 0;
    for (const MjcfJoint& joint : elements[k].joints) {
      positions += joint.num_positions();
      velocities += joint.num_velocities();
    }
    if (elements[k].is_body && names[k] == body) {
      entries.qpos_offset = entries.nq;
      entries.qpos_size = positions;
      entries.qvel_offset = entries.nv;
      entries.qvel_size = velocities;
    }
    entries.nq += positions;
    entries.nv += velocities;
  }
  return entries;
}

// A key's attribute `attribute`, `keep` saying which of its `size` entries
// the share keeps; absent if the key does not give it.
class KeyCutter {
 public:
  KeyCutter(const ptree& key, ptree* cut)
      : key_(key), cut_(cut), name_(key.get("<xmlattr>.name", "")) {}

  template <typename Keep>
  void Cut(const std::string& attribute, size_t size, const std::string& entries,
           Keep&& keep) {
    const auto text = key_.get_optional<std::string>("<xmlattr>." + attribute);
    if (!text) return;
    const std::string what = "keyframe '" + name_ + "': " + attribute;
    const std::vector<double> numbers = ParseMjcfNumbers(*text, what);
    if (numbers.size() != size)
      throw std::runtime_error(what + " has " + std::to_string(numbers.size()) +
                               " numbers, the file's " + entries + " take " +
                               std::to_string(size));
    std::vector<double> kept;
    for (size_t k = 0; k < numbers.size(); ++k)
      if (keep(k)) kept.push_back(numbers[k]);
    cut_->put("<xmlattr>." + attribute, FormatMjcfNumbers(kept));
  }

 private:
  const ptree& key_;
  ptree* cut_;
  std::string name_;
};

}  // namespace

ptree KeyframesOfBody(const std::string& path, const ptree& root, const ptree& keyframes,
                      const std::string& body, const std::vector<bool>& actuator_kept) {
  const BodyEntries entries = FindBodyEntries(path, root, body);
  const auto within = [](int offset, int size) {
    return [offset, size](size_t k) {
      return static_cast<int>(k) >= offset && static_cast<int>(k) < offset + size;
    };
  };
  ptree cut_section;
  for (const auto& [tag, key] : keyframes) {
    if (tag != "key") continue;
    ptree cut;
    cut.put("<xmlattr>.name", key.get("<xmlattr>.name", ""));
    KeyCutter cutter(key, &cut);
    cutter.Cut("qpos", entries.nq, "joints",
               within(entries.qpos_offset, entries.qpos_size));
    cutter.Cut("qvel", entries.nv, "joints",
               within(entries.qvel_offset, entries.qvel_size));
    cutter.Cut("ctrl", actuator_kept.size(), "actuators",
               [&](size_t k) { return actuator_kept[k]; });
    cut_section.push_back({"key", cut});
  }
  return cut_section;
}

}  // namespace coulomb
