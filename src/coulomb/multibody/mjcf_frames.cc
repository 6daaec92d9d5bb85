#include "coulomb/multibody/mjcf_frames.h"

#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <Eigen/Geometry>

#include "coulomb/multibody/mjcf_defaults.h"

namespace coulomb {
namespace {

using boost::property_tree::ptree;

const std::set<std::string> kPlaced = {"body", "frame",  "geom",
                                       "site", "camera", "light"};

std::vector<double> Numbers(const ptree& attributes, const std::string& name,
                            const std::string& tag, std::vector<double> otherwise) {
  const auto text = attributes.get_optional<std::string>(name);
  if (!text) return otherwise;
  const std::string what = "<" + tag + "> " + name;
  std::vector<double> numbers = ParseMjcfNumbers(*text, what);
  if (numbers.size() != otherwise.size())
    throw std::runtime_error(what + " '" + *text + "': expected " +
                             std::to_string(otherwise.size()) + " numbers");
  return numbers;
}

std::string Text(const double* values, int count) {
  std::ostringstream text;
  text.precision(17);
  for (int k = 0; k < count; ++k) text << (k ? " " : "") << values[k];
  return text.str();
}

// An element's pose in its parent: pos, and quat (w x y z).
Eigen::Isometry3d Pose(const ptree& attributes, const std::string& tag) {
  const std::vector<double> p = Numbers(attributes, "pos", tag, {0, 0, 0});
  const std::vector<double> q = Numbers(attributes, "quat", tag, {1, 0, 0, 0});
  Eigen::Isometry3d pose = Eigen::Isometry3d::Identity();
  pose.linear() =
      Eigen::Quaterniond(q[0], q[1], q[2], q[3]).normalized().toRotationMatrix();
  pose.translation() = Eigen::Vector3d(p[0], p[1], p[2]);
  return pose;
}

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
        Numbers(attributes, "fromto", tag, {0, 0, 0, 0, 0, 0});
    Eigen::Matrix<double, 6, 1> moved;
    moved << X_PF * Eigen::Vector3d(ends[0], ends[1], ends[2]),
        X_PF * Eigen::Vector3d(ends[3], ends[4], ends[5]);
    attributes.put("fromto", Text(moved.data(), 6));
    return;
  }
  const Eigen::Isometry3d X_PC = X_PF * Pose(attributes, tag);
  const Eigen::Quaterniond q(X_PC.linear());
  const double quat[] = {q.w(), q.x(), q.y(), q.z()};
  attributes.put("pos", Text(X_PC.translation().data(), 3));
  attributes.put("quat", Text(quat, 4));
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
    const Eigen::Isometry3d X_PF = Pose(frame, "frame");
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
