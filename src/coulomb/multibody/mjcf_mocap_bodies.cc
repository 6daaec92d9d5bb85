#include "coulomb/multibody/mjcf_mocap_bodies.h"

#include <stdexcept>

#include "coulomb/multibody/mjcf_defaults.h"
#include "coulomb/multibody/mjcf_frames.h"

namespace coulomb {
namespace {

using boost::property_tree::ptree;

// Refuses a mocap body among the bodies below `parent` (a body's).
void RefuseNestedMocap(const ptree& parent) {
  for (const auto& [tag, child] : parent) {
    if (tag != "body") continue;
    if (IsMjcfMocapBody(child)) {
      throw std::runtime_error("body '" + child.get("<xmlattr>.name", "") +
                               "' has mocap=\"true\" but is not a child of <worldbody> "
                               "(MuJoCo allows mocap bodies only there: move it up)");
    }
    RefuseNestedMocap(child);
  }
}

}  // namespace

std::vector<MjcfMocapBody> ReadMjcfMocapBodies(const std::string& path) {
  const ptree root = ReadMjcfRoot(path);
  std::vector<MjcfMocapBody> mocaps;
  const auto world = root.get_child_optional("worldbody");
  if (!world) return mocaps;
  for (const auto& [tag, body] : *world) {
    if (tag != "body") continue;
    RefuseNestedMocap(body);
    if (!IsMjcfMocapBody(body)) continue;
    const std::string name = body.get("<xmlattr>.name", "");
    if (name.empty())
      throw std::runtime_error("a body with mocap=\"true\" has no name (name it)");
    for (const auto& [child_tag, child] : body) {
      if (child_tag == "joint" || child_tag == "freejoint") {
        throw std::runtime_error("mocap body '" + name +
                                 "' has a joint (a mocap body is moved by setting its "
                                 "pose: remove the joint or mocap=\"true\")");
      }
    }
    static const ptree none;
    mocaps.push_back({name, MjcfElementPose(body.get_child("<xmlattr>", none), "body")});
  }
  return mocaps;
}

}  // namespace coulomb
