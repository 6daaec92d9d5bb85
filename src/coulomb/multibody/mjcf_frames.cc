#include "coulomb/multibody/mjcf_frames.h"

#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <Eigen/Geometry>

#include "coulomb/multibody/mjcf_defaults.h"

namespace coulomb {

using boost::property_tree::ptree;

std::vector<double> MjcfAttributeNumbers(const ptree& attributes, const std::string& name,
                                         const std::string& tag,
                                         std::vector<double> otherwise) {
  const auto text = attributes.get_optional<std::string>(name);
  if (!text) return otherwise;
  return ParseMjcfNumbers(*text, "<" + tag + "> " + name, otherwise.size());
}

Eigen::Isometry3d MjcfElementPose(const ptree& attributes, const std::string& tag) {
  const std::vector<double> p = MjcfAttributeNumbers(attributes, "pos", tag, {0, 0, 0});
  const std::vector<double> q =
      MjcfAttributeNumbers(attributes, "quat", tag, {1, 0, 0, 0});
  Eigen::Isometry3d pose = Eigen::Isometry3d::Identity();
  pose.linear() =
      Eigen::Quaterniond(q[0], q[1], q[2], q[3]).normalized().toRotationMatrix();
  pose.translation() = Eigen::Vector3d(p[0], p[1], p[2]);
  return pose;
}

namespace {

const std::set<std::string> kPlaced = {"body", "frame",  "geom",
                                       "site", "camera", "light"};

// `child`, a child of a frame at X_PF in the frame's parent, moved into
// that parent.
void MoveOutOfFrame(const std::string& tag, const Eigen::Isometry3d& X_PF,
                    const std::string& frame_class, ptree* child) {
  if (!child->get_child_optional("<xmlattr>")) child->put_child("<xmlattr>", ptree());
  ptree& attributes = child->get_child("<xmlattr>");
  if (tag == "body" && !frame_class.empty() && !attributes.count("childclass"))
    attributes.put("childclass", frame_class);
  if (attributes.count("fromto")) {  // a geom placed by its two ends
    const std::vector<double> ends =
        MjcfAttributeNumbers(attributes, "fromto", tag, {0, 0, 0, 0, 0, 0});
    const Eigen::Vector3d from = X_PF * Eigen::Vector3d(ends[0], ends[1], ends[2]);
    const Eigen::Vector3d to = X_PF * Eigen::Vector3d(ends[3], ends[4], ends[5]);
    attributes.put("fromto", FormatMjcfNumbers(
                                 {from.x(), from.y(), from.z(), to.x(), to.y(), to.z()}));
    return;
  }
  const Eigen::Isometry3d X_PC = X_PF * MjcfElementPose(attributes, tag);
  const Eigen::Quaterniond q(X_PC.linear());
  const Eigen::Vector3d& p = X_PC.translation();
  attributes.put("pos", FormatMjcfNumbers({p.x(), p.y(), p.z()}));
  attributes.put("quat", FormatMjcfNumbers({q.w(), q.x(), q.y(), q.z()}));
}

// The frames among `element`'s children (and deeper) replaced by what they
// hold.
void Flatten(ptree* element) {
  ptree flat;
  for (auto& [tag, child] : *element) {
    if (tag != "frame") {
      if (tag == "body") Flatten(&child);
      flat.push_back({tag, child});
      continue;
    }
    Flatten(&child);  // its own frames first: all its children are placed in it
    static const ptree none;
    const ptree& frame = child.get_child("<xmlattr>", none);
    const Eigen::Isometry3d X_PF = MjcfElementPose(frame, "frame");
    const std::string frame_class = frame.get("childclass", "");
    for (auto& [inner_tag, inner] : child) {
      if (!kPlaced.count(inner_tag)) continue;
      ptree moved = inner;
      MoveOutOfFrame(inner_tag, X_PF, frame_class, &moved);
      flat.push_back({inner_tag, moved});
    }
  }
  element->swap(flat);
}

}  // namespace

void FlattenMjcfFrames(ptree* root) {
  for (auto& [section, content] : *root)
    if (section == "worldbody") Flatten(&content);
}

}  // namespace coulomb
