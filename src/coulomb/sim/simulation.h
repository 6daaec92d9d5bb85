#pragma once

#include <functional>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "coulomb/sim/scene.h"

namespace coulomb {

// Per-step record kept for the whole run.
struct StepRecord {
  double time = 0.0;  // at the end of the step [s]
  StepStatistics statistics;
  double energy = 0.0;  // kinetic + gravity at the end of the step [J]
};

// The trajectory of every tree's first body, and of the generalized state.
struct Trajectory {
  std::vector<double> time;
  std::vector<std::string> body_names;
  // Per body, one row per sample: position (3), orientation w, x, y, z (4),
  // world linear velocity (3), world angular velocity (3).
  std::vector<std::vector<Eigen::Matrix<double, 13, 1>>> body_samples;
  std::vector<Eigen::VectorXd> q;  // all trees' q, stacked, per sample
  std::vector<Eigen::VectorXd> v;
};

struct SimulationSummary {
  int steps = 0;
  double sim_time = 0.0;
  double wall_time_s = 0.0;
  double realtime_factor = 0.0;
  double iterations_mean = 0.0;
  int iterations_max = 0;
  double momentum_error_max = 0.0;
  double ncp_residual_max = 0.0;  // CANAL, PGS
  int failed_steps = 0;
  double penetration_max = 0.0;
  int contacts_max = 0;
  double energy_initial = 0.0;
  double energy_final = 0.0;
  std::string failure;  // first failure, if any
};

// Runs a scene step by step, recording statistics and the trajectory. A
// failed step stops the run; everything up to it is kept.
class Simulation {
 public:
  explicit Simulation(Scene scene);

  // Called after each successful step with the stepper (its last problem and
  // solution) and the step's record, e.g. for diagnostics.
  using StepObserver = std::function<void(const TimeStepper&, const StepRecord&)>;

  // progress(fraction) is called after each step when given.
  SimulationSummary Run(const std::function<void(double)>& progress = {},
                        const StepObserver& observer = {});

  const Scene& scene() const { return scene_; }
  Scene& mutable_scene() { return scene_; }
  const std::vector<StepRecord>& records() const { return records_; }
  const Trajectory& trajectory() const { return trajectory_; }

 private:
  void Record(double time);

  Scene scene_;
  std::vector<StepRecord> records_;
  Trajectory trajectory_;
};

}  // namespace coulomb
