#include "coulomb/bench/irr_bench_command.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <string>
#include <vector>

#include "coulomb/bench/irr_clutter_bench.h"
#include "coulomb/bench/trajectory_analysis.h"
#include "coulomb/cli/arguments.h"
#include "coulomb/scenes/builtin_scenes.h"
#include "coulomb/scenes/irr_scenes.h"
#include "coulomb/sim/simulation.h"

namespace coulomb {
namespace {

constexpr ContactModel kModels[] = {ContactModel::kSap, ContactModel::kLagged,
                                    ContactModel::kSimilar};

struct IrrBenchOptions {
  std::string which = "all";
  bool quick = false;
};

IrrBenchOptions ParseIrrBenchOptions(const std::vector<std::string>& list) {
  IrrBenchOptions options;
  Arguments arguments(list);
  while (!arguments.Done()) {
    const std::string flag = arguments.Next();
    if (flag == "--case") {
      options.which = arguments.Value(flag);
      if (options.which != "belt" && options.which != "sphere" &&
          options.which != "rod" && options.which != "clutter" &&
          options.which != "stiff" && options.which != "all") {
        throw UsageError("--case: belt, sphere, rod, clutter, stiff or all, got '" +
                         options.which + "'");
      }
    } else if (flag == "--quick") {
      options.quick = true;
    } else {
      throw UsageError("unknown option " + flag);
    }
  }
  return options;
}

Simulation RunIrrScene(const std::string& name, ContactModel model, double time_step,
                       const std::map<std::string, std::string>& options = {}) {
  Scene scene = MakeBuiltinScene(name, options);
  scene.parameters.contact.model = model;
  scene.parameters.time_step = time_step;
  Simulation simulation(std::move(scene));
  const SimulationSummary summary = simulation.Run();
  if (!summary.failure.empty()) {
    std::printf("> %s, %s, δt = %g: %s\n", name.c_str(), ToString(model).c_str(),
                time_step, summary.failure.c_str());
  }
  return simulation;
}

// Position error per model and δt against Lagged at min(δt)/10, and the
// fitted order (IRR §IX: Lagged and Similar first order, SAP plateaus).
void ConvergenceStudy(const std::string& name, const std::vector<double>& time_steps,
                      const std::map<std::string, std::string>& options = {}) {
  double smallest = time_steps.front();
  for (double dt : time_steps) smallest = std::min(smallest, dt);
  const Simulation reference =
      RunIrrScene(name, ContactModel::kLagged, smallest / 10, options);
  std::printf(
      "\nConvergence (%s): RMS position error [m] vs Lagged at δt = %g s\n\n| model |",
      name.c_str(), smallest / 10);
  for (double dt : time_steps) std::printf(" δt = %g |", dt);
  std::printf(" fitted order |\n|---|");
  for (size_t i = 0; i <= time_steps.size(); ++i) std::printf("---|");
  std::printf("\n");
  for (ContactModel model : kModels) {
    std::vector<double> errors;
    std::printf("| %s |", ToString(model).c_str());
    for (double dt : time_steps) {
      const Simulation run = RunIrrScene(name, model, dt, options);
      errors.push_back(PositionErrorRms(run.trajectory(), reference.trajectory(), 0));
      std::printf(" %.3e |", errors.back());
    }
    std::printf(" %.2f |\n", FittedOrder(time_steps, errors));
  }
}

void BeltStudy(const IrrBenchOptions& options) {
  std::printf("\n## Oscillating conveyor belt (IRR §IX-A)\n\n");
  std::printf(
      "Gliding while sliding (slip > 0.01 m/s): height above the rest height h ≈ c μ "
      "‖v_t‖.\n\n| model | δt [s] | c fitted [s] | c expected [s] | max |v_n| "
      "sliding [m/s] | max |v_n| stick [m/s] | iterations mean |\n"
      "|---|---|---|---|---|---|---|\n");
  for (ContactModel model : kModels) {
    for (double dt : {0.01, 0.005}) {
      const Simulation run = RunIrrScene("conveyor_belt", model, dt);
      PrescribedMotion belt;
      belt.amplitude = Eigen::Vector3d(0.2, 0, 0);
      belt.frequency = 1.0;
      belt.phase = -0.5 * std::numbers::pi;
      const GlidingMeasurement g =
          MeasureGliding(run.trajectory(), 0, belt, 0.7, dt, 0.01);
      const double expected = model == ContactModel::kSap       ? dt + 1e-3
                              : model == ContactModel::kSimilar ? dt
                                                                : 0.0;
      double iterations = 0.0;
      for (const StepRecord& r : run.records()) iterations += r.statistics.iterations;
      std::printf("| %s | %g | %.2e | %.2e | %.2e | %.2e | %.2f |\n",
                  ToString(model).c_str(), dt, g.offset_per_slip, expected,
                  g.max_normal_speed_sliding, g.max_normal_speed_stick,
                  iterations / run.records().size());
    }
  }
  ConvergenceStudy("conveyor_belt", options.quick
                                        ? std::vector<double>{1e-2, 5e-2}
                                        : std::vector<double>{2e-3, 1e-2, 5e-2});
}

// First time the sphere's vertical velocity departs from free fall, and first
// time after it that the contact point stops slipping (|v_x − r ω_y| < 1e-3).
void SphereEvents(const Trajectory& trajectory, double dt, double* touch_down,
                  double* rolling) {
  *touch_down = *rolling = NAN;
  const auto& samples = trajectory.body_samples[0];
  for (size_t n = 1; n < samples.size(); ++n) {
    const double contact_dv = samples[n](9) - samples[n - 1](9) + 9.81 * dt;
    if (std::isnan(*touch_down) && std::abs(contact_dv) > 1e-6)
      *touch_down = trajectory.time[n];
    const double slip = samples[n](7) - 0.025 * samples[n](11);
    if (!std::isnan(*touch_down) && std::abs(slip) < 1e-3) {
      *rolling = trajectory.time[n];
      return;
    }
  }
}

void SphereStudy(const IrrBenchOptions& options) {
  std::printf(
      "\n## Falling sphere (IRR §IX-B)\n\n| model | δt [s] | touch-down [s] | "
      "rolling from [s] |\n|---|---|---|---|\n");
  for (ContactModel model : kModels) {
    for (double dt : {2e-3, 4e-4}) {
      const Simulation run = RunIrrScene("falling_sphere", model, dt);
      double touch_down = 0.0, rolling = 0.0;
      SphereEvents(run.trajectory(), dt, &touch_down, &rolling);
      std::printf("| %s | %g | %.4f | %.4f |\n", ToString(model).c_str(), dt, touch_down,
                  rolling);
    }
  }
  ConvergenceStudy("falling_sphere", options.quick
                                         ? std::vector<double>{2e-3, 1e-2}
                                         : std::vector<double>{4e-4, 2e-3, 1e-2});
}

// The contact's vertical force from the rod's momentum, F = m Δv_z/δt + m g:
// its peak in the first millisecond (SAP and Similar kick a rod that starts
// sliding at 10 m/s: gliding lifts it by μ δt ‖v_t‖ at once) and after it
// (the jam).
struct RodForces {
  double kick = 0.0;
  double jam_time = NAN;
  double jam_force = 0.0;
};
RodForces MeasureRodForces(const Trajectory& trajectory, double dt) {
  RodForces forces;
  const auto& samples = trajectory.body_samples[0];
  for (size_t n = 1; n < samples.size(); ++n) {
    const double force = 0.3 * ((samples[n](9) - samples[n - 1](9)) / dt + 9.81);
    if (trajectory.time[n] <= 1e-3) {
      forces.kick = std::max(forces.kick, force);
    } else if (force > forces.jam_force) {
      forces.jam_force = force;
      forces.jam_time = trajectory.time[n];
    }
  }
  return forces;
}

// Vertical contact force every 2 ms (the maximum over each window) for the
// three models with dissipation, so the approach to the jam can be compared.
void RodForceHistory(double dt) {
  std::printf(
      "\nContact force history, dissipation on, δt = %g s: max F over each 2 ms "
      "window [N]\n\n| t [ms] | sap | lagged | similar |\n|---|---|---|---|\n",
      dt);
  std::vector<std::vector<double>> windows;
  for (ContactModel model : kModels) {
    const Simulation run =
        RunIrrScene("sliding_rod", model, dt, {{"dissipation", "true"}});
    const auto& samples = run.trajectory().body_samples[0];
    std::vector<double> window_max(12, 0.0);  // 0–24 ms
    for (size_t n = 1; n < samples.size(); ++n) {
      const auto w = static_cast<size_t>(run.trajectory().time[n] / 2e-3 - 1e-9);
      if (w >= window_max.size()) break;
      const double force = 0.3 * ((samples[n](9) - samples[n - 1](9)) / dt + 9.81);
      window_max[w] = std::max(window_max[w], force);
    }
    windows.push_back(window_max);
  }
  for (size_t w = 0; w < windows[0].size(); ++w) {
    std::printf("| %zu–%zu | %.1f | %.1f | %.1f |\n", 2 * w, 2 * w + 2, windows[0][w],
                windows[1][w], windows[2][w]);
  }
}

void RodStudy(const IrrBenchOptions& options) {
  std::printf(
      "\n## Sliding rod, Painlevé (IRR §IX-C)\n\nVertical contact force from the "
      "rod's momentum: the peak of the first millisecond (kick) and the jam after "
      "it.\n\n| model | dissipation | δt [s] | kick [N] | jam at [s] | jam force [N] "
      "|\n|---|---|---|---|---|---|\n");
  for (const char* dissipation : {"false", "true"}) {
    for (ContactModel model : kModels) {
      for (double dt : {1e-5, 4e-5}) {
        if (options.quick && dt < 4e-5) continue;
        const Simulation run =
            RunIrrScene("sliding_rod", model, dt, {{"dissipation", dissipation}});
        const RodForces forces = MeasureRodForces(run.trajectory(), dt);
        std::printf("| %s | %s | %g | %.1f | %.5f | %.1f |\n", ToString(model).c_str(),
                    dissipation, dt, forces.kick, forces.jam_time, forces.jam_force);
      }
    }
  }
  RodForceHistory(options.quick ? 4e-5 : 1e-5);
  ConvergenceStudy("sliding_rod",
                   options.quick ? std::vector<double>{1.6e-4, 6.4e-4}
                                 : std::vector<double>{1e-5, 4e-5, 1.6e-4, 6.4e-4},
                   {{"dissipation", "true"}});
}

}  // namespace

int RunIrrBenchCommand(const std::vector<std::string>& arguments) {
  const IrrBenchOptions options = ParseIrrBenchOptions(arguments);
  std::printf("# IRR test cases: SAP vs Lagged vs Similar\n");
  if (options.which == "belt" || options.which == "all") BeltStudy(options);
  if (options.which == "sphere" || options.which == "all") SphereStudy(options);
  if (options.which == "rod" || options.which == "all") RodStudy(options);
  if (options.which == "clutter" || options.which == "all")
    RunIrrClutterStudy(options.quick);
  if (options.which == "stiff" || options.which == "all")
    RunStiffClutterStudy(options.quick);
  return 0;
}

}  // namespace coulomb
