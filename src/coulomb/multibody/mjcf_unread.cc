#include "coulomb/multibody/mjcf_unread.h"

#include <map>
#include <set>

#include "coulomb/multibody/mjcf_defaults.h"

namespace coulomb {
namespace {

using boost::property_tree::ptree;

// The element tags of a section, each with its count, in tag order.
std::map<std::string, int> CountElements(const ptree& section,
                                         const std::set<std::string>& tags) {
  std::map<std::string, int> counts;
  for (const auto& [tag, element] : section)
    if (tags.empty() ? tag.front() != '<' : tags.count(tag) > 0) ++counts[tag];
  return counts;
}

// "2 <equality> constraints (connect, weld) are not read".
std::string Describe(const std::map<std::string, int>& counts, const std::string& one,
                     const std::string& many) {
  int total = 0;
  std::string kinds;
  for (const auto& [tag, count] : counts) {
    total += count;
    kinds += (kinds.empty() ? "" : ", ") + tag;
  }
  return std::to_string(total) + " " + (total == 1 ? one : many) + " (" + kinds + ") " +
         (total == 1 ? "is" : "are") + " not read: the robot moves without " +
         (total == 1 ? "it" : "them");
}

// Counts, within `element` (a body or the world body), the geoms with a
// condim other than 3 (their classes already written on them: ReadMjcfRoot).
void CountUnreadAttributes(const ptree& element, int* condim) {
  for (const auto& [tag, child] : element) {
    if (tag == "body") {
      CountUnreadAttributes(child, condim);
    } else if (tag == "geom" && child.get("<xmlattr>.condim", "3") != "3") {
      ++*condim;
    }
  }
}

// Whether a fixed tendon (its class's attributes too) has an armature,
// which is not read.
bool HasArmature(const ptree& tendon, const MjcfDefaults& defaults) {
  static const ptree none;
  const ptree values = defaults.TendonAttributes(tendon.get_child("<xmlattr>", none),
                                                 tendon.get("<xmlattr>.class", "main"));
  return values.get("armature", "0") != "0";
}

// One line per attribute of <worldbody> that is not read, as Describe says.
void DescribeUnreadAttributes(const ptree& root, std::vector<std::string>* unread) {
  int condim = 0;
  if (const auto world = root.get_child_optional("worldbody"))
    CountUnreadAttributes(*world, &condim);
  if (condim > 0)
    unread->push_back(
        std::to_string(condim) + (condim == 1 ? " geom's" : " geoms'") +
        " condim other than 3 is not read: " + (condim == 1 ? "its" : "their") +
        " contacts have sliding friction (condim 3)");
  const auto option = root.get_child_optional("option.<xmlattr>");
  for (const char* medium : {"density", "viscosity", "wind"}) {
    if (!option) break;
    const auto value = option->get_optional<std::string>(medium);
    if (value && value->find_first_not_of("0. ") != std::string::npos)
      unread->push_back(std::string("<option ") + medium +
                        "> is not read: the robot moves without fluid forces");
  }
}

}  // namespace

std::vector<std::string> UnreadMjcfElements(const std::string& path) {
  const ptree root = ReadMjcfRoot(path);
  const MjcfDefaults defaults(root);
  std::map<std::string, int> equality, tendon, pair;
  for (const auto& [section, content] : root) {
    if (section == "equality") {  // joint and tendon couplings, connects, welds are read
      for (const auto& [tag, element] : content) {
        const bool by_body_or_site = !element.get("<xmlattr>.body1", "").empty() ||
                                     !element.get("<xmlattr>.site1", "").empty();
        const bool read = tag == "joint" || tag == "tendon" ||
                          ((tag == "connect" || tag == "weld") && by_body_or_site);
        if (tag.front() != '<' && !read) ++equality[tag];
      }
    } else if (section == "tendon") {  // fixed tendons are read, but their armature
      for (const auto& [tag, element] : content)
        if (tag.front() != '<' && (tag != "fixed" || HasArmature(element, defaults)))
          ++tendon[tag == "fixed" ? "fixed with armature" : tag];
    } else if (section == "contact") {
      for (const auto& [tag, count] : CountElements(content, {"pair"}))
        pair[tag] += count;
    }
  }
  std::vector<std::string> unread;
  if (!equality.empty())
    unread.push_back(
        Describe(equality, "<equality> constraint", "<equality> constraints"));
  if (!tendon.empty())
    unread.push_back(Describe(tendon, "<tendon> element", "<tendon> elements"));
  if (!pair.empty())
    unread.push_back(Describe(pair, "explicit contact pair", "explicit contact pairs"));
  DescribeUnreadAttributes(root, &unread);
  return unread;
}

}  // namespace coulomb
