// A controller in the loop, written by the user, not by the scene: a 2 kg box
// on a planar joint (x, z, θ) rests on the ground; a PD law computed here
// each step lifts it to 0.3 m and carries it to x = 0.5 m, through joint
// efforts. Prints the tracking error, the contact forces while the box
// leaves the ground, and the solver's accuracy; exits 1 if the box does not
// get there.
#include <cmath>
#include <cstdio>

#include <coulomb/coulomb.h>

namespace {

coulomb::Scene BoxOnTheGround() {
  coulomb::Scene scene;
  scene.name = "closed_loop";
  scene.system.AddStaticGeometry(coulomb::HalfSpace{}, Eigen::Isometry3d::Identity(),
                                 coulomb::ContactMaterial{});
  const coulomb::Box box{Eigen::Vector3d(0.2, 0.2, 0.2)};
  const double mass = 2.0;
  const Eigen::Matrix3d inertia =
      mass / coulomb::Volume(box) * coulomb::UnitDensityInertia(box);
  // q = (x, z, θ): the box's centre starts 0.1 m up, resting on its face.
  const int tree = scene.system.AddTree(
      "box", coulomb::MultibodyTree::PlanarBody("box", mass, inertia),
      Eigen::Vector3d(0.0, 0.1, 0.0), Eigen::Vector3d::Zero());
  scene.system.AddGeometry(box, tree, 0, Eigen::Isometry3d::Identity(),
                           coulomb::ContactMaterial{});
  return scene;
}

}  // namespace

int main() {
  coulomb::Simulation sim(BoxOnTheGround());
  const double mass = 2.0, g = 9.81, kp = 400.0, kd = 60.0;
  // θ's inertia is 0.013 kg·m²: gains scaled to it (an explicit PD needs
  // kd δt / I well below 2 to be stable).
  const double kp_theta = 2.0, kd_theta = 0.1;
  const Eigen::Vector2d target(0.5, 0.3);  // x, z [m]
  for (int step = 1; sim.time() < 3.0; ++step) {
    const Eigen::VectorXd q = sim.q(), v = sim.v();
    // PD on x and z, gravity compensated; θ held level.
    const double fx = kp * (target.x() - q(0)) - kd * v(0);
    const double fz = kp * (target.y() - q(1)) - kd * v(1) + mass * g;
    sim.SetJointEffort("box", "x", fx);
    sim.SetJointEffort("box", "z", fz);
    sim.SetJointEffort("box", "theta", -kp_theta * q(2) - kd_theta * v(2));
    const coulomb::StepStatistics& stats = sim.Step();
    if (!stats.converged) {
      std::fprintf(stderr, "step %d failed: %s\n", step, stats.failure.c_str());
      return 1;
    }
    if (step % 50 == 0 || step == 1) {
      double normal_force = 0.0;
      for (const coulomb::Contact& contact : sim.contacts())
        normal_force += contact.impulse.dot(contact.normal) / sim.time_step();
      std::printf(
          "t = %.2f s  x = %.4f m  z = %.4f m  contacts %zu (normal force %.2f N)  "
          "SAP %d iterations, e_m = %.1e\n",
          sim.time(), q(0), q(1), sim.contacts().size(), normal_force, stats.iterations,
          stats.momentum_error);
    }
  }
  const Eigen::VectorXd q = sim.q();
  const double error = std::hypot(q(0) - target.x(), q(1) - target.y());
  std::printf("final position error %.2e m\n", error);
  return error < 1e-3 ? 0 : 1;
}
