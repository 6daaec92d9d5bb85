// A controller in the loop, written by the user, not by the scene: a 2 kg box
// on a planar joint (x, z, θ) rests on the ground; a PD law computed here
// each step lifts it to 0.3 m and carries it to x = 0.5 m, through joint
// efforts. Prints the tracking error, the contact forces while the box
// leaves the ground, and the solver's accuracy; exits 1 if the box does not
// get there.
//
//   closed_loop [--view] [--port N]
//
// --view serves the browser viewer (Coulomb::viewer) at http://127.0.0.1:N/
// (8000 unless given; 0: any free port) while the loop runs, paced to real
// time, then keeps the run's replay there until Enter.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>

#include <coulomb/coulomb.h>
#include <coulomb/viewer/live_viewer.h>

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

// The live viewer of --view: the page follows every step, paced to real time.
class PacedViewer {
 public:
  PacedViewer(coulomb::Simulation& sim, int port)
      : viewer_(sim, {.host = "127.0.0.1", .port = port}), start_(Clock::now()) {
    std::printf("viewing the loop at %s\n", viewer_.url().c_str());
    std::fflush(stdout);
  }
  void AfterStep(const coulomb::Simulation& sim) {
    viewer_.live().Update(sim);
    std::this_thread::sleep_until(start_ + std::chrono::duration<double>(sim.time()));
  }
  // The loop is over: the page becomes its replay until Enter (or end of input).
  void ServeReplay(const coulomb::Simulation& sim) {
    viewer_.live().Finish(sim, sim.Summary());
    std::printf("the replay stays at %s until Enter\n", viewer_.url().c_str());
    std::fflush(stdout);
    std::string line;
    std::getline(std::cin, line);
  }

 private:
  using Clock = std::chrono::steady_clock;
  coulomb::LiveViewer viewer_;
  Clock::time_point start_;
};

bool ParsePort(const char* text, int* port) {
  char* end = nullptr;
  const long value = std::strtol(text, &end, 10);
  if (end == text || *end != 0 || value < 0 || value > 65535) return false;
  *port = static_cast<int>(value);
  return true;
}

// --view and --port N; exits 2 with a usage line on anything else, or with
// the reason when the port cannot be listened on.
std::unique_ptr<PacedViewer> ViewerFromArguments(int argc, char** argv,
                                                 coulomb::Simulation& sim) {
  bool view = false;
  int port = 8000;
  for (int k = 1; k < argc; ++k) {
    const std::string argument = argv[k];
    if (argument == "--view") {
      view = true;
    } else if (argument != "--port" || k + 1 == argc || !ParsePort(argv[++k], &port)) {
      std::fprintf(stderr, "usage: closed_loop [--view] [--port N (0 to 65535)]\n");
      std::exit(2);
    }
  }
  if (!view) return nullptr;
  sim.set_recording(true);  // the page shows what is recorded
  try {
    return std::make_unique<PacedViewer>(sim, port);
  } catch (const std::runtime_error& error) {
    std::fprintf(stderr, "closed_loop: %s\n", error.what());
    std::exit(2);
  }
}

}  // namespace

int main(int argc, char** argv) {
  coulomb::Simulation sim(BoxOnTheGround());
  sim.set_recording(false);  // nothing reads the history unless viewed
  const std::unique_ptr<PacedViewer> viewer = ViewerFromArguments(argc, argv, sim);
  const double mass = 2.0, g = 9.81, kp = 400.0, kd = 60.0;
  // θ's inertia is 0.013 kg·m²: gains scaled to it (an explicit PD needs
  // kd δt / I well below 2 to be stable).
  const double kp_theta = 2.0, kd_theta = 0.1;
  const Eigen::Vector2d target(0.5, 0.3);                 // x, z [m]
  const long steps = std::lround(3.0 / sim.time_step());  // 3 s
  for (long step = 1; step <= steps; ++step) {
    const Eigen::VectorXd q = sim.q(), v = sim.v();
    // PD on x and z, gravity compensated; θ held level.
    const double fx = kp * (target.x() - q(0)) - kd * v(0);
    const double fz = kp * (target.y() - q(1)) - kd * v(1) + mass * g;
    sim.SetJointEffort("box", "x", fx);
    sim.SetJointEffort("box", "z", fz);
    sim.SetJointEffort("box", "theta", -kp_theta * q(2) - kd_theta * v(2));
    const coulomb::StepStatistics& stats = sim.Step();
    if (viewer) viewer->AfterStep(sim);
    if (!stats.converged) {
      std::fprintf(stderr, "step %ld failed: %s\n", step, stats.failure.c_str());
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
  if (viewer) viewer->ServeReplay(sim);
  return error < 1e-3 ? 0 : 1;
}
