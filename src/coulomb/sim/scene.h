#pragma once

#include <string>
#include <vector>

#include <Eigen/Dense>
#include <Eigen/Geometry>

#include "coulomb/sim/multibody_system.h"
#include "coulomb/sim/time_stepper.h"

namespace coulomb {

// A runnable scene: the system (bodies, robots, geometry, materials, joint
// limits and controllers, initial state), the time stepper's parameters and
// the duration of a run. What a scene file (LoadSceneFile), a built-in scene
// (scenes/) and code that builds a system all produce, and what Simulation
// runs.
struct Scene {
  std::string name = "empty";
  MultibodySystem system;
  TimeStepperParameters parameters;
  double duration = 1.0;  // [s]
  // What the scene's files hold that is not simulated, one line each
  // ("robots[0].mjcf: arm.xml: 2 <equality> constraints … are not read"),
  // for `coulomb run` and Python to warn of.
  std::vector<std::string> warnings = {};
};

// The steps of δt = time_step [s] a run of `duration` [s] takes (rounded to
// the nearest). Throws std::invalid_argument, saying why in a clause
// ("1e-12 s is shorter than half the time step …"), when that is none or more
// than an int counts.
int StepsInDuration(double duration, double time_step);

// example-robot-data's robots folder: $COULOMB_ROBOT_DATA_DIR if set, else
// the folder configured at build time (the .venv copy). Scene files refer to
// it as example-robot-data/…. Throws std::runtime_error saying how to install
// it when the folder is missing.
std::string RobotDataDirectory();

// X_WB from a position [m] and roll-pitch-yaw [rad], R = Rz(y) Ry(p) Rx(r).
Eigen::Isometry3d Pose(const Eigen::Vector3d& position,
                       const Eigen::Vector3d& rpy = Eigen::Vector3d::Zero());

}  // namespace coulomb
