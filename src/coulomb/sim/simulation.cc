#include "coulomb/sim/simulation.h"

#include <algorithm>
#include <chrono>
#include <cmath>

namespace coulomb {

Simulation::Simulation(Scene scene) : scene_(std::move(scene)) {
  for (int t = 0; t < scene_.system.num_trees(); ++t) {
    trajectory_.body_names.push_back(scene_.system.tree(t).name);
  }
  trajectory_.body_samples.resize(scene_.system.num_trees());
}

void Simulation::Record(double time) {
  MultibodySystem& system = scene_.system;
  trajectory_.time.push_back(time);
  Eigen::VectorXd q_all(0), v_all(0);
  for (int t = 0; t < system.num_trees(); ++t) {
    const MultibodySystem::Tree& tree = system.tree(t);
    const Eigen::Isometry3d pose = tree.model.body_pose(0);
    const Eigen::Quaterniond rotation(pose.linear());
    Eigen::Matrix<double, 13, 1> sample;
    sample << pose.translation(), rotation.w(), rotation.x(), rotation.y(), rotation.z(),
        tree.model.BodyLinearVelocity(0), tree.model.BodyAngularVelocity(0);
    trajectory_.body_samples[t].push_back(sample);
    q_all.conservativeResize(q_all.size() + tree.q.size());
    q_all.tail(tree.q.size()) = tree.q;
    v_all.conservativeResize(v_all.size() + tree.v.size());
    v_all.tail(tree.v.size()) = tree.v;
  }
  trajectory_.q.push_back(q_all);
  trajectory_.v.push_back(v_all);
}

SimulationSummary Simulation::Run(const std::function<void(double)>& progress,
                                  const StepObserver& observer) {
  SimulationSummary summary;
  const auto start = std::chrono::steady_clock::now();
  TimeStepper stepper(scene_.parameters);
  const double dt = scene_.parameters.time_step;
  const int num_steps = static_cast<int>(std::llround(scene_.duration / dt));
  scene_.system.UpdateAllTrees();
  summary.energy_initial = scene_.system.MechanicalEnergy();
  summary.energy_final = summary.energy_initial;
  Record(0.0);
  double iterations_sum = 0.0;
  for (int n = 1; n <= num_steps; ++n) {
    const StepStatistics stats = stepper.Step(&scene_.system);
    scene_.system.UpdateAllTrees();
    const double energy = scene_.system.MechanicalEnergy();
    records_.push_back({n * dt, stats, energy});
    summary.momentum_error_max =
        std::max(summary.momentum_error_max, stats.momentum_error);
    summary.penetration_max = std::max(summary.penetration_max, stats.max_penetration);
    summary.ncp_residual_max = std::max(summary.ncp_residual_max, stats.ncp_residual);
    summary.contacts_max = std::max(summary.contacts_max, stats.num_contacts);
    if (!stats.converged) {
      ++summary.failed_steps;
      summary.failure = "step " + std::to_string(n) + " (t = " + std::to_string(n * dt) +
                        " s): " + stats.failure;
      break;
    }
    ++summary.steps;
    iterations_sum += stats.iterations;
    summary.iterations_max = std::max(summary.iterations_max, stats.iterations);
    summary.energy_final = energy;
    Record(n * dt);
    if (observer) observer(stepper, records_.back());
    if (progress) progress(static_cast<double>(n) / num_steps);
  }
  summary.sim_time = summary.steps * dt;
  summary.iterations_mean = summary.steps > 0 ? iterations_sum / summary.steps : 0.0;
  summary.wall_time_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  summary.realtime_factor =
      summary.wall_time_s > 0 ? summary.sim_time / summary.wall_time_s : 0;
  return summary;
}

}  // namespace coulomb
