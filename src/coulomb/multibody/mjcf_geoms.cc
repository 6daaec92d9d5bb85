#include "coulomb/multibody/mjcf_geoms.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <optional>
#include <set>
#include <stdexcept>
#include <vector>

#include "coulomb/multibody/mjcf_defaults.h"
#include "coulomb/multibody/mjcf_orientations.h"

namespace coulomb {
namespace {

using boost::property_tree::ptree;

// Every name of a body or geom under `element`.
void CollectNames(const ptree& element, std::set<std::string>* names) {
  for (const auto& [tag, child] : element) {
    if (tag != "body" && tag != "geom") continue;
    if (const auto name = child.get_optional<std::string>("<xmlattr>.name"))
      names->insert(*name);
    if (tag == "body") CollectNames(child, names);
  }
}

// Names the unnamed bodies and geoms of `body`, whose name is `body_name`,
// and of the bodies in it; `next_body_id` the MuJoCo id of the next body.
void NameUnnamed(ptree* body, const std::string& body_name, int* next_body_id,
                 std::set<std::string>* taken) {
  const auto unique = [taken](std::string name) {
    while (!taken->insert(name).second) name += '_';
    return name;
  };
  int geom_index = 0;
  for (auto& [tag, child] : *body) {
    if (tag == "geom") {
      if (!child.get_optional<std::string>("<xmlattr>.name"))
        child.put("<xmlattr>.name", unique(MjcfGeomName("", body_name, geom_index)));
      ++geom_index;
    } else if (tag == "body") {
      const int id = (*next_body_id)++;
      if (!child.get_optional<std::string>("<xmlattr>.name"))
        child.put("<xmlattr>.name", unique("body_" + std::to_string(id)));
      NameUnnamed(&child, child.get<std::string>("<xmlattr>.name"), next_body_id, taken);
    }
  }
}

// The sliding friction in a geom's attributes, if it sets one.
std::optional<double> SlidingFriction(const ptree& attributes, const std::string& name) {
  const auto text = attributes.get_optional<std::string>("friction");
  if (!text) return std::nullopt;
  const std::string what = "geom '" + name + "': friction";
  const std::vector<double> numbers = ParseMjcfNumbers(*text, what);
  if (numbers.empty() || numbers.size() > 3)
    throw std::runtime_error(what + " '" + *text + "': expected one to three numbers");
  for (double number : numbers)
    if (number < 0.0) throw std::runtime_error(what + " '" + *text + "': negative");
  return numbers[0];
}

// A contype or conaffinity: an integer in [0, 2³²) (1 when not given).
uint32_t Bitmask(const ptree& attributes, const std::string& attribute,
                 const std::string& name) {
  const auto text = attributes.get_optional<std::string>(attribute);
  if (!text) return 1;
  const std::string what = "geom '" + name + "': " + attribute;
  const std::vector<double> numbers = ParseMjcfNumbers(*text, what);
  if (numbers.size() != 1 || numbers[0] < 0.0 || numbers[0] >= 4294967296.0 ||
      numbers[0] != std::floor(numbers[0]))
    throw std::runtime_error(what + " '" + *text + "': expected an integer ≥ 0");
  return static_cast<uint32_t>(numbers[0]);
}

// A plane's half-sizes where rays meet it (its size's first two, ∞ for 0),
// ∞ for a geom of another type.
Eigen::Vector2d PlaneHalfSize(const ptree& attributes, const std::string& name) {
  Eigen::Vector2d half_size =
      Eigen::Vector2d::Constant(std::numeric_limits<double>::infinity());
  if (attributes.get("type", "sphere") != "plane") return half_size;
  std::vector<double> size =
      ParseMjcfNumbers(attributes.get("size", ""), "geom '" + name + "': size");
  size.resize(std::max<size_t>(size.size(), 2), 0.0);
  for (int k = 0; k < 2; ++k)
    if (size[k] > 0.0) half_size[k] = size[k];
  return half_size;
}

// Walks <worldbody>, whose geoms have their classes' attributes written on
// them (ReadMjcfRoot).
class ContactReader {
 public:
  // The geoms of `body` (named `body_name`) and of the bodies in it.
  void Read(const ptree& body, const std::string& body_name) {
    const ptree none;
    int geom_index = 0;
    for (const auto& [tag, child] : body) {
      const ptree& attributes = child.get_child("<xmlattr>", none);
      if (tag == "body") {
        Read(child, attributes.get("name", ""));
      } else if (tag == "geom") {
        const std::string name =
            MjcfGeomName(attributes.get("name", ""), body_name, geom_index++);
        if (!names_.insert(name).second)
          throw std::runtime_error("two geoms are named '" + name + "' (rename one)");
        contacts_[name] = ReadMjcfGeomContact(attributes, name);
      }
    }
  }

  std::map<std::string, MjcfGeomContact> contacts() && { return std::move(contacts_); }

 private:
  std::set<std::string> names_;
  std::map<std::string, MjcfGeomContact> contacts_;
};

// ResolveMjcfGeomAndSiteClasses within `element` (a body, a frame or the world
// body), `child_class` the class its geoms and sites take by default.
void ResolveClasses(ptree* element, const std::string& child_class,
                    const MjcfDefaults& defaults) {
  static const ptree none;
  for (auto& [tag, child] : *element) {
    if (tag == "body" || tag == "frame") {
      ResolveClasses(&child, child.get("<xmlattr>.childclass", child_class), defaults);
      continue;
    }
    if (tag != "geom" && tag != "site") continue;
    const ptree own = child.get_child("<xmlattr>", none);
    const std::string class_name = own.get("class", child_class);
    ptree inherited = tag == "geom" ? defaults.GeomAttributes(ptree(), class_name)
                                    : defaults.SiteAttributes(ptree(), class_name);
    const auto own_has = [&own](const char* name) { return own.count(name) > 0; };
    const bool oriented = std::any_of(std::begin(kMjcfOrientationAttributes),
                                      std::end(kMjcfOrientationAttributes), own_has);
    if (oriented || own_has("fromto")) {
      for (const char* name : kMjcfOrientationAttributes) inherited.erase(name);
      inherited.erase("fromto");
    }
    child.put_child("<xmlattr>", MergeAttributes(inherited, own));
  }
}

// Refuses, as MuJoCo does, a geom of `element` (a body or the world body,
// named `body`) or of the bodies in it whose size is not positive where its
// type reads it: a sphere's radius, a capsule's or cylinder's radius and
// half-length, a box's or ellipsoid's three half-sizes (one number, the
// radius, when placed by fromto).
void CheckSizes(const ptree& element, const std::string& body) {
  static const ptree none;
  for (const auto& [tag, child] : element) {
    const ptree& attributes = child.get_child("<xmlattr>", none);
    if (tag == "body" || tag == "frame") {
      CheckSizes(child, attributes.get("name", body));
      continue;
    }
    if (tag != "geom") continue;
    const std::string type = attributes.get("type", "sphere");
    const bool fromto = attributes.count("fromto") > 0;
    size_t needed = 0;
    if (type == "sphere") needed = 1;
    if (type == "capsule" || type == "cylinder") needed = fromto ? 1 : 2;
    if (type == "box" || type == "ellipsoid") needed = fromto ? 1 : 3;
    const std::string what = attributes.count("name")
                                 ? "geom '" + attributes.get<std::string>("name") + "'"
                                 : "a " + type + " geom of body '" + body + "'";
    std::vector<double> size =
        ParseMjcfNumbers(attributes.get("size", ""), what + ": size");
    size.resize(std::max(size.size(), needed), 0.0);
    for (size_t k = 0; k < needed; ++k)
      if (!(size[k] > 0.0))
        throw std::runtime_error(what + ": size " + std::to_string(k) +
                                 " must be positive (MuJoCo refuses it too)");
  }
}

}  // namespace

void CheckMjcfGeomSizes(const ptree& root) {
  for (const auto& [section, content] : root)
    if (section == "worldbody") CheckSizes(content, "world");
}

void ResolveMjcfGeomAndSiteClasses(ptree* root) {
  const MjcfDefaults defaults(*root);
  for (auto& [section, content] : *root)
    if (section == "worldbody") ResolveClasses(&content, "main", defaults);
}

std::string MjcfGeomName(const std::string& own_name, const std::string& body_name,
                         int index) {
  if (!own_name.empty()) return own_name;
  return body_name + "Geom_" + std::to_string(index);
}

void NameUnnamedBodiesAndGeoms(ptree* worldbody) {
  std::set<std::string> taken;
  CollectNames(*worldbody, &taken);
  int next_body_id = 1;
  NameUnnamed(worldbody, "universe", &next_body_id, &taken);
}

MjcfGeomContact ReadMjcfGeomContact(const ptree& attributes, const std::string& name) {
  return {
      SlidingFriction(attributes, name),
      {Bitmask(attributes, "contype", name), Bitmask(attributes, "conaffinity", name)},
      PlaneHalfSize(attributes, name)};
}

std::map<std::string, MjcfGeomContact> ReadMjcfGeomContacts(const std::string& path) {
  const ptree root = ReadMjcfRoot(path);
  ContactReader reader;
  if (const auto world = root.get_child_optional("worldbody"))
    reader.Read(*world, "universe");
  return std::move(reader).contacts();
}

}  // namespace coulomb
