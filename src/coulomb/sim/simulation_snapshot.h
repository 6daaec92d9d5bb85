#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <Eigen/Dense>
#include <Eigen/Geometry>

#include "coulomb/geometry/contact_point.h"
#include "coulomb/sim/joint_actuation.h"

namespace coulomb {

// Everything the steps from one moment on depend on, for going back to it
// (Simulation::Snapshot and Restore): restored, a simulation steps bit for
// bit as it did from the moment the snapshot was taken, with any solver.
// The clock, each tree's state and actuation (joint controllers, applied
// forces and wrenches, joint friction, its connections switched on or off
// and their frames), the mocap bodies' poses, and the NCP solvers' warm start (the last
// step's contacts, sorted by geometry pair, and their impulses in their contact frames;
// SAP starts from v). Not the recording, nor the scene: a snapshot restores into any
// simulation of the same scene.
struct SimulationSnapshot {
  struct TreeState {
    std::string name;
    Eigen::VectorXd q, v;
    std::vector<JointPdController> controllers;
    Eigen::VectorXd applied_force;
    Eigen::Vector3d applied_force_W = Eigen::Vector3d::Zero();
    Eigen::Vector3d applied_torque_W = Eigen::Vector3d::Zero();
    std::vector<JointFriction> frictions;
    // Per BodyConnection of the tree, in order: whether it holds, and its
    // world frame T.
    struct Connection {
      bool active = true;
      Eigen::Isometry3d X_WT = Eigen::Isometry3d::Identity();
    };
    std::vector<Connection> connections;
  };
  double time = 0.0;
  std::vector<TreeState> trees;
  std::vector<ContactPoint> warm_start_contacts;
  std::vector<Eigen::Vector3d> warm_start_impulses_C;
  std::vector<Eigen::Isometry3d> mocap_poses;  // MultibodySystem::mocap_names' order

  // The trees' q (or v) stacked in tree order, as Simulation::q() and v().
  Eigen::VectorXd StackedPositions() const;
  Eigen::VectorXd StackedVelocities() const;
};

// A snapshot as bytes and back (Python's pickle, a snapshot sent to another
// process): little-endian doubles and 32-bit integers after a tag with a
// version. Bit for bit: every double is copied, none is printed. Decode
// throws std::invalid_argument for bytes that are not a whole snapshot of
// this version; what they hold is checked when restored (Simulation::Restore).
std::string EncodeSnapshot(const SimulationSnapshot& snapshot);
SimulationSnapshot DecodeSnapshot(std::string_view bytes);

}  // namespace coulomb
