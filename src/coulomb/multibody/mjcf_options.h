#pragma once

#include <string>

#include <Eigen/Dense>

namespace coulomb {

// What a scene takes from an MJCF file run by itself (MjcfSceneText): the
// model's name (<mujoco model>, else empty) and, from <option>, MuJoCo's
// time step [s] and gravity [m/s², world frame], with MuJoCo's defaults
// when the file gives none, and whether joint damping is implicit (from its
// integrator). The rest of <option> (cone, impratio, tolerance) is MuJoCo's
// solver's and has no counterpart here.
struct MjcfOptions {
  std::string model;
  double timestep = 0.002;
  Eigen::Vector3d gravity = Eigen::Vector3d(0.0, 0.0, -9.81);
  // Joint damping taken at the step's end velocity, as MuJoCo's integrator
  // takes it: Euler (the default) unless <option><flag
  // eulerdamp="disable"/>, implicit and implicitfast always (for joint
  // damping they are Euler's eulerdamp), RK4 never (it is explicit; its
  // fourth order has no counterpart here: the scene's scheme steps).
  bool implicit_damping = true;
};

// The options of the MJCF file at `path`. Throws std::runtime_error naming
// the file when it cannot be read, or the attribute when the time step is
// not positive, gravity is not three finite numbers or the integrator is
// none of MuJoCo's.
MjcfOptions ReadMjcfOptions(const std::string& path);

}  // namespace coulomb
