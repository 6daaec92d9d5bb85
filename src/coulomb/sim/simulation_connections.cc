// Simulation's connects and welds (simulation.h): switched on and off, and
// the world frame of one to the world moved (MuJoCo's eq_active); and the
// mocap bodies moved (MuJoCo's mocap_pos and mocap_quat).
#include <stdexcept>

#include "coulomb/sim/simulation.h"

namespace coulomb {

std::vector<std::string> Simulation::connection_names(const std::string& tree) const {
  return NamesOf(scene_.system.tree(FindTree(tree)).connections);
}

const BodyConnection& Simulation::FindConnection(const std::string& tree,
                                                 const std::string& name) const {
  for (const BodyConnection& c : scene_.system.tree(FindTree(tree)).connections)
    if (c.name == name) return c;
  std::string names;
  for (const std::string& known : connection_names(tree))
    names += (names.empty() ? "" : ", ") + known;
  throw std::invalid_argument(tree + ": no connect or weld named '" + name + "' (" +
                              (names.empty() ? "it has none" : "it has " + names) + ")");
}

BodyConnection& Simulation::FindConnection(const std::string& tree,
                                           const std::string& name) {
  return const_cast<BodyConnection&>(std::as_const(*this).FindConnection(tree, name));
}

bool Simulation::ConnectionActive(const std::string& tree,
                                  const std::string& name) const {
  return FindConnection(tree, name).active;
}

void Simulation::SetConnectionActive(const std::string& tree, const std::string& name,
                                     bool active) {
  FindConnection(tree, name).active = active;
}

Eigen::Isometry3d Simulation::ConnectionFrame(const std::string& tree,
                                              const std::string& name) const {
  return FindConnection(tree, name).X_WT;
}

void Simulation::SetConnectionFrame(const std::string& tree, const std::string& name,
                                    const Eigen::Isometry3d& X_WT) {
  BodyConnection& connection = FindConnection(tree, name);
  if (connection.body_b >= 0) {
    throw std::invalid_argument(tree + ": '" + name +
                                "' holds two bodies of the robot: only a connect or weld "
                                "to the world has a frame to move");
  }
  if (!IsConnectionFrame(X_WT)) {
    throw std::invalid_argument(
        tree + ": '" + name + "': the frame must be finite, its orientation a rotation");
  }
  connection.X_WT = X_WT;
}

Eigen::Isometry3d Simulation::MocapPose(const std::string& name) const {
  return scene_.system.MocapPose(name);
}

void Simulation::SetMocapPose(const std::string& name, const Eigen::Isometry3d& X_WB) {
  scene_.system.SetMocapPose(name, X_WB);
}

}  // namespace coulomb
