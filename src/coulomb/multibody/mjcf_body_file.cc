#include "coulomb/multibody/mjcf_body_file.h"

#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <boost/property_tree/xml_parser.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <stdexcept>

#include "coulomb/multibody/mjcf_defaults.h"
#include "coulomb/multibody/mjcf_geoms.h"
#include "coulomb/multibody/mjcf_height_fields.h"
#include "coulomb/multibody/mjcf_keyframe_share.h"

namespace coulomb {
namespace {

using boost::property_tree::ptree;

// The joints a fixed tendon's <joint>s name.
std::vector<std::string> TendonJoints(const ptree& tendon) {
  std::vector<std::string> joints;
  for (const auto& [tag, child] : tendon)
    if (tag == "joint") joints.push_back(child.get("<xmlattr>.joint", ""));
  return joints;
}

// The names a top-level body owns: its bodies, joints, sites and geoms, the
// fixed tendons over its joints alone, the actuators on its joints and those
// tendons, and the world's ("world", its sites and geoms), which every robot
// of the file shares.
struct OwnedNames {
  std::set<std::string> bodies{"world"};
  std::set<std::string> joints;
  std::set<std::string> sites;
  std::set<std::string> geoms;
  std::set<std::string> tendons;
  std::set<std::string> actuators;

  // After Collect: the fixed tendons of the file's <tendon> sections whose
  // joints are all this body's.
  void CollectTendons(const ptree& root) {
    for (const auto& [section, content] : root) {
      if (section != "tendon") continue;
      for (const auto& [tag, tendon] : content) {
        if (tag == "fixed" && OwnsAll(TendonJoints(tendon)))
          tendons.insert(tendon.get("<xmlattr>.name", ""));
      }
    }
  }
  // After CollectTendons: the named actuators that act on what it owns.
  void CollectActuators(const ptree& root) {
    for (const auto& [section, content] : root) {
      if (section != "actuator") continue;
      for (const auto& [tag, actuator] : content) {
        const auto name = actuator.get_optional<std::string>("<xmlattr>.name");
        if (tag.front() != '<' && name && Foreign(actuator).empty())
          actuators.insert(*name);
      }
    }
  }
  bool OwnsAll(const std::vector<std::string>& names) const {
    return std::all_of(names.begin(), names.end(), [this](const std::string& name) {
      return joints.count(name) > 0;
    });
  }

  void Collect(const ptree& body) {
    if (const auto name = body.get_optional<std::string>("<xmlattr>.name"))
      bodies.insert(*name);
    for (const auto& [tag, child] : body) {
      const auto name = child.get_optional<std::string>("<xmlattr>.name");
      if ((tag == "joint" || tag == "freejoint") && name) joints.insert(*name);
      if (tag == "site" && name) sites.insert(*name);
      if (tag == "geom" && name) geoms.insert(*name);
      if (tag == "body") Collect(child);
    }
  }

  // Whether `name` is one of these names.
  bool Has(const std::string& name) const {
    return bodies.count(name) || joints.count(name) || sites.count(name) ||
           geoms.count(name) || tendons.count(name) || actuators.count(name);
  }

  // Whether `element` refers to a name of this body's (the world aside).
  bool Mentions(const ptree& element) const {
    static const ptree none;
    for (const auto& [attribute, value] : element.get_child("<xmlattr>", none)) {
      const std::string& name = value.data();
      if (name != "world" && Has(name)) return true;
    }
    return false;
  }

  // The first name `element` refers to that is not this body's, else "".
  std::string Foreign(const ptree& element) const {
    const std::pair<const char*, const std::set<std::string>*> references[] = {
        {"body1", &bodies},         {"body2", &bodies},      {"body", &bodies},
        {"joint1", &joints},        {"joint2", &joints},     {"joint", &joints},
        {"jointinparent", &joints}, {"site1", &sites},       {"site2", &sites},
        {"site", &sites},           {"tendon", &tendons},    {"tendon1", &tendons},
        {"tendon2", &tendons},      {"actuator", &actuators}};
    for (const auto& [attribute, owned] : references) {
      const auto name =
          element.get_optional<std::string>(std::string("<xmlattr>.") + attribute);
      if (name && !owned->count(*name)) return *name;
    }
    // A frame sensor's object and reference: bodies, sites or geoms.
    for (const char* attribute : {"<xmlattr>.objname", "<xmlattr>.refname"}) {
      const auto frame = element.get_optional<std::string>(attribute);
      if (frame && !bodies.count(*frame) && !sites.count(*frame) && !geoms.count(*frame))
        return *frame;
    }
    return "";
  }
};

bool HasJoint(const ptree& body) {
  for (const auto& [tag, child] : body)
    if (tag == "joint" || tag == "freejoint") return true;
  return false;
}

// <worldbody> with `body` alone of its bodies. Pinocchio's parser places a
// root body without a joint at the origin, whatever its pos: with
// `keep_placement`, such a body is nested in a massless anchor body at the
// origin, so that it keeps the place the file gives it.
ptree WorldbodyOf(const ptree& world, const std::string& body, bool keep_placement) {
  ptree kept;
  for (const auto& [tag, child] : world) {
    if (tag == "body" && child.get("<xmlattr>.name", "") != body) continue;
    if (tag != "body" || !keep_placement || HasJoint(child)) {
      kept.push_back({tag, child});
      continue;
    }
    ptree anchor;
    anchor.put("<xmlattr>.name", kMjcfAnchorBody);
    anchor.add_child("body", child);
    kept.push_back({"body", anchor});
  }
  return kept;
}

// `section`'s elements that name only what `owned` holds, or a name no body
// of the file has (`file`: all their names), for the readers to refuse;
// those that name this body and another are noted (those of other bodies
// alone are theirs), but for connects, welds and excludes, which the scene
// reads from the whole file (of two robots, or to a mocap body).
ptree OwnedElements(const std::string& section, const ptree& elements,
                    const OwnedNames& owned, const OwnedNames& file,
                    std::vector<std::string>* left_out) {
  ptree kept;
  for (const auto& [tag, element] : elements) {
    const std::string foreign = tag == "<xmlattr>" ? "" : owned.Foreign(element);
    const bool connection =
        (section == "equality" && (tag == "connect" || tag == "weld")) ||
        (section == "contact" && tag == "exclude");
    if (foreign.empty() || !file.Has(foreign)) {
      kept.push_back({tag, element});
    } else if (owned.Mentions(element) && !connection) {
      left_out->push_back("<" + section + "><" + tag + "> names '" + foreign +
                          "' of another body of the file: not read");
    }
  }
  return kept;
}

// The fixed tendons over the body's joints alone (those over its joints and
// another's noted); spatial tendons, over sites, kept (they are not read).
ptree OwnedTendons(const ptree& tendons, const OwnedNames& owned,
                   std::vector<std::string>* left_out) {
  ptree kept;
  for (const auto& [tag, tendon] : tendons) {
    const std::vector<std::string> joints = TendonJoints(tendon);
    if (tag != "fixed" || owned.OwnsAll(joints)) {
      kept.push_back({tag, tendon});
      continue;
    }
    const auto owned_joint = std::find_if(
        joints.begin(), joints.end(),
        [&owned](const std::string& joint) { return owned.joints.count(joint) > 0; });
    if (owned_joint != joints.end())
      left_out->push_back("<tendon><fixed> '" + tendon.get("<xmlattr>.name", "") +
                          "' joins joint '" + *owned_joint +
                          "' to another body's: not read");
  }
  return kept;
}

// For each actuator of the file, in order, whether a body's share keeps it
// (OwnedElements: it names only what the body owns).
std::vector<bool> ActuatorsKept(const ptree& root, const OwnedNames& owned) {
  std::vector<bool> kept;
  for (const auto& [section, content] : root) {
    if (section != "actuator") continue;
    for (const auto& [tag, element] : content)
      if (tag.front() != '<') kept.push_back(owned.Foreign(element).empty());
  }
  return kept;
}

// Meshes are found where the original file finds them: its folder, joined
// with its meshdir (else assetdir), made absolute.
void AnchorMeshDirectory(const std::string& path, ptree* root) {
  const std::filesystem::path folder = std::filesystem::absolute(path).parent_path();
  bool found = false;
  for (auto& [tag, compiler] : *root) {
    if (tag != "compiler") continue;
    const std::string given =
        compiler.get("<xmlattr>.meshdir", compiler.get("<xmlattr>.assetdir", ""));
    compiler.put("<xmlattr>.meshdir", (folder / given).string());
    found = true;
  }
  if (!found) {
    ptree compiler;
    compiler.put("<xmlattr>.meshdir", folder.string());
    root->push_front({"compiler", compiler});
  }
}

// The body's share of the file's root element; what it leaves out noted.
ptree BodyShare(const std::string& path, const ptree& root, const std::string& body,
                bool keep_placement, bool whole_file,
                std::vector<std::string>* left_out) {
  OwnedNames owned, file;
  int found = 0;
  if (const auto world = root.get_child_optional("worldbody")) {
    for (const auto& [tag, child] : *world) {
      if (tag == "body" && child.get("<xmlattr>.name", "") == body) {
        owned.Collect(child);
        ++found;
      }
      if (tag == "body") file.Collect(child);
      const auto name = child.get_optional<std::string>("<xmlattr>.name");
      if (name && (tag == "site" || tag == "geom")) {  // the world's: every body's
        (tag == "site" ? owned.sites : owned.geoms).insert(*name);
        (tag == "site" ? file.sites : file.geoms).insert(*name);
      }
    }
  }
  if (found == 0)
    throw std::runtime_error(path + ": no body '" + body + "' in <worldbody>");
  if (found > 1) {
    throw std::runtime_error(path + ": two bodies of <worldbody> are named '" + body +
                             "' (rename one)");
  }
  owned.CollectTendons(root);
  file.CollectTendons(root);
  owned.CollectActuators(root);
  file.CollectActuators(root);
  ptree kept;
  for (const auto& [section, content] : root) {
    if (section == "worldbody") {
      kept.push_back({section, WorldbodyOf(content, body, keep_placement)});
    } else if (section == "tendon") {
      kept.push_back({section, OwnedTendons(content, owned, left_out)});
    } else if (section == "actuator" || section == "equality" || section == "contact" ||
               section == "sensor") {
      kept.push_back({section, OwnedElements(section, content, owned, file, left_out)});
    } else if (section == "keyframe" && !whole_file) {
      kept.push_back({section, KeyframesOfBody(path, root, content, body,
                                               ActuatorsKept(root, owned))});
    } else {
      kept.push_back({section, content});
    }
  }
  return kept;
}

// `root` as the <mujoco> element of a new temporary file; its path.
std::string WriteTemporary(const std::string& path, const ptree& root) {
  std::string name =
      (std::filesystem::temp_directory_path() / "coulomb-mjcf-XXXXXX.xml").string();
  const int descriptor = mkstemps(name.data(), 4);
  if (descriptor < 0) throw std::runtime_error(path + ": cannot write a temporary file");
  close(descriptor);
  ptree file;
  file.add_child("mujoco", root);
  try {
    std::ofstream out(name);
    boost::property_tree::write_xml(out, file);
    if (!out) throw std::runtime_error("write failed");
  } catch (const std::exception&) {
    std::remove(name.c_str());
    throw std::runtime_error(path + ": cannot write a temporary file");
  }
  return name;
}

// The names of <worldbody>'s bodies ("" for one without a name).
std::vector<std::string> TopLevelBodies(const ptree& root) {
  std::vector<std::string> names;
  const auto world = root.get_child_optional("worldbody");
  if (!world) return names;
  for (const auto& [tag, body] : *world)
    if (tag == "body") names.push_back(body.get("<xmlattr>.name", ""));
  return names;
}

}  // namespace

std::vector<std::string> ReadMjcfTopLevelBodies(const std::string& path) {
  return TopLevelBodies(ReadMjcfRoot(path));
}

MjcfBodyFile::MjcfBodyFile(const std::string& path,
                           const std::optional<std::string>& body, bool keep_placement,
                           bool take_height_fields) {
  if (!std::filesystem::is_regular_file(path))
    throw std::runtime_error(path + ": MJCF file not found");
  const ptree root = ReadMjcfRoot(path);
  const std::vector<std::string> bodies = TopLevelBodies(root);
  whole_file_ = !body || bodies.size() == 1;
  ptree kept =
      body ? BodyShare(path, root, *body, keep_placement, whole_file_, &left_out_) : root;
  AnchorMeshDirectory(path, &kept);
  if (const auto world = kept.get_child_optional("worldbody"))
    NameUnnamedBodiesAndGeoms(&*world);
  if (take_height_fields) height_fields_ = TakeMjcfHeightFields(path, &kept);
  path_ = WriteTemporary(path, kept);
}

MjcfBodyFile::~MjcfBodyFile() { std::remove(path_.c_str()); }

}  // namespace coulomb
