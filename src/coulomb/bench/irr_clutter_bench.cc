#include "coulomb/bench/irr_clutter_bench.h"

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "coulomb/scenes/builtin_scenes.h"
#include "coulomb/sim/simulation.h"
#include "coulomb/solvers/hessian_condition_number.h"

namespace coulomb {
namespace {

constexpr ContactModel kModels[] = {ContactModel::kSap, ContactModel::kLagged,
                                    ContactModel::kRegularizedLagged,
                                    ContactModel::kSimilar};

// Per-sample series of one run: iterations averaged over each window and the
// condition number at the window's last step.
struct ClutterRun {
  std::vector<double> window_iterations;
  std::vector<double> condition_numbers;
  SimulationSummary summary;
  double rest_penetration = 0.0;  // mean over the last 1.25 s [m]
};

// `pair_stiffness` is per pair: each geometry gets 2k (springs in series).
ClutterRun RunClutter(ContactModel model, double time_step, double pair_stiffness,
                      double duration, int window_steps) {
  Scene scene =
      MakeBuiltinScene("clutter", {{"stiffness", std::to_string(2.0 * pair_stiffness)},
                                   {"hunt_crossley_dissipation", "10"},
                                   {"dissipation_time_scale", "1e-4"}});
  scene.parameters.contact.model = model;
  scene.parameters.contact.stiction_tolerance = 1e-4;
  scene.parameters.time_step = time_step;
  scene.duration = duration;
  ClutterRun run;
  double window_sum = 0.0, rest_sum = 0.0;
  int window_count = 0, rest_count = 0;
  Simulation simulation(std::move(scene));
  run.summary =
      simulation.Run({}, [&](const TimeStepper& stepper, const StepRecord& record) {
        window_sum += record.statistics.iterations;
        if (++window_count == window_steps) {
          run.window_iterations.push_back(window_sum / window_count);
          run.condition_numbers.push_back(ScaledHessianConditionNumber(
              *stepper.last_problem(), stepper.last_solution().v));
          window_sum = 0.0;
          window_count = 0;
        }
        if (record.time > duration - 1.25) {
          rest_sum += record.statistics.mean_penetration;
          ++rest_count;
        }
      });
  run.rest_penetration = rest_count > 0 ? rest_sum / rest_count : NAN;
  return run;
}

double Mean(const std::vector<double>& values) {
  double sum = 0.0;
  for (double value : values) sum += value;
  return values.empty() ? NAN : sum / values.size();
}

void PrintFailure(ContactModel model, const ClutterRun& run) {
  if (!run.summary.failure.empty()) {
    std::printf("\n> %s failed: %s\n", ToString(model).c_str(),
                run.summary.failure.c_str());
  }
}

void TimeSeries(double duration) {
  const double dt = 2e-3;
  const int window = 50;  // 0.1 s
  std::vector<ClutterRun> runs;
  for (ContactModel model : kModels)
    runs.push_back(RunClutter(model, dt, 1e7, duration, window));
  std::printf(
      "\n### Iterations (mean over 0.1 s) and condition number κ(D H D) over time, "
      "δt = 2 ms\n\n| t [s] |");
  for (ContactModel model : kModels)
    std::printf(" %s iters | %s κ |", ToString(model).c_str(), ToString(model).c_str());
  std::printf("\n|---|");
  for (size_t i = 0; i < 2 * std::size(kModels); ++i) std::printf("---|");
  std::printf("\n");
  for (size_t w = 0; w < runs[0].window_iterations.size(); ++w) {
    std::printf("| %.1f |", (w + 1) * window * dt);
    for (const ClutterRun& run : runs) {
      if (w < run.window_iterations.size()) {
        std::printf(" %.2f | %.2e |", run.window_iterations[w], run.condition_numbers[w]);
      } else {
        std::printf(" – | – |");
      }
    }
    std::printf("\n");
  }
  std::printf(
      "\n| model | iterations mean | max | κ mean | max e_m | wall time [s] |\n"
      "|---|---|---|---|---|---|\n");
  for (size_t m = 0; m < runs.size(); ++m) {
    const SimulationSummary& s = runs[m].summary;
    std::printf("| %s | %.2f | %d | %.2e | %.1e | %.2f |\n", ToString(kModels[m]).c_str(),
                s.iterations_mean, s.iterations_max, Mean(runs[m].condition_numbers),
                s.momentum_error_max, s.wall_time_s);
  }
  for (size_t m = 0; m < runs.size(); ++m) PrintFailure(kModels[m], runs[m]);
}

void TimeStepSweep(const std::vector<double>& time_steps, double duration) {
  std::printf("\n### Mean iterations / mean κ per time step (IRR Fig. 16)\n\n| δt [s] |");
  for (ContactModel model : kModels) std::printf(" %s |", ToString(model).c_str());
  std::printf("\n|---|");
  for (size_t i = 0; i < std::size(kModels); ++i) std::printf("---|");
  std::printf("\n");
  for (double dt : time_steps) {
    std::printf("| %g |", dt);
    for (ContactModel model : kModels) {
      const ClutterRun run =
          RunClutter(model, dt, 1e7, duration, std::max(1, static_cast<int>(0.1 / dt)));
      std::printf(" %.2f / %.1e%s |", run.summary.iterations_mean,
                  Mean(run.condition_numbers),
                  run.summary.failure.empty() ? "" : " (failed)");
    }
    std::printf("\n");
  }
}

void StiffnessSweep(const std::vector<double>& stiffnesses, double duration) {
  std::printf(
      "\n### Mean penetration at rest (last 1.25 s) [m] / mean iterations vs pair "
      "stiffness, δt = 5 ms (IRR Fig. 17–18)\n\n| k [N/m] |");
  for (ContactModel model : kModels) std::printf(" %s |", ToString(model).c_str());
  std::printf("\n|---|");
  for (size_t i = 0; i < std::size(kModels); ++i) std::printf("---|");
  std::printf("\n");
  std::vector<std::string> failures;
  for (double k : stiffnesses) {
    std::printf("| %.0e |", k);
    for (ContactModel model : kModels) {
      const ClutterRun run = RunClutter(model, 5e-3, k, duration, 1000000);
      if (run.summary.failure.empty()) {
        std::printf(" %.2e / %.2f |", run.rest_penetration, run.summary.iterations_mean);
      } else {
        std::printf(" failed |");
        char line[512];
        std::snprintf(line, sizeof(line), "> k = %.0e, %s: %s", k,
                      ToString(model).c_str(), run.summary.failure.c_str());
        failures.emplace_back(line);
      }
    }
    std::printf("\n");
  }
  for (const std::string& failure : failures) std::printf("\n%s\n", failure.c_str());
}

struct StiffRun {
  SimulationSummary summary;
  double condition_max = 0.0;     // κ(D H D), sampled once per simulated second
  double rest_penetration = 0.0;  // mean over the last 1.25 s [m]
};

StiffRun RunStiffClutter(ContactModel model, double stiffness, bool clamp,
                         double duration) {
  Scene scene = MakeBuiltinScene(
      "clutter",
      {{"stiffness", std::to_string(stiffness)},
       {"hunt_crossley_near_rigid_threshold",
        clamp ? std::to_string(kDefaultHuntCrossleyNearRigidThreshold) : "0"}});
  scene.parameters.contact.model = model;
  scene.duration = duration;
  StiffRun run;
  double rest_sum = 0.0;
  int rest_count = 0, step = 0;
  Simulation simulation(std::move(scene));
  simulation.set_recording(false);
  run.summary =
      simulation.Run({}, [&](const TimeStepper& stepper, const StepRecord& record) {
        if (++step % 100 == 0) {
          run.condition_max = std::max(
              run.condition_max, ScaledHessianConditionNumber(*stepper.last_problem(),
                                                              stepper.last_solution().v));
        }
        if (record.time > duration - 1.25) {
          rest_sum += record.statistics.mean_penetration;
          ++rest_count;
        }
      });
  run.rest_penetration = rest_count > 0 ? rest_sum / rest_count : NAN;
  return run;
}

}  // namespace

constexpr ContactModel kHuntCrossley[] = {
    ContactModel::kLagged, ContactModel::kRegularizedLagged, ContactModel::kSimilar};

// The IRR scenes (belt, sphere, rod) at each stiffness: failed steps, mean
// and max iterations, steps accepted at round-off, clamped contacts.
void StiffIrrScenes(const std::vector<double>& stiffnesses) {
  std::printf(
      "\n## The IRR scenes up to rigid (stiffness of the moving body; failed / "
      "iterations mean, max / at round-off / clamped contacts max)\n\n| scene | model |");
  for (double k : stiffnesses) std::printf(" %.0e |", k);
  std::printf("\n|---|---|");
  for (size_t i = 0; i < stiffnesses.size(); ++i) std::printf("---|");
  std::printf("\n");
  for (const char* name : {"conveyor_belt", "falling_sphere", "sliding_rod"}) {
    for (ContactModel model : kHuntCrossley) {
      std::printf("| %s | %s |", name, ToString(model).c_str());
      for (double k : stiffnesses) {
        Scene scene = MakeBuiltinScene(name, {{"stiffness", std::to_string(k)}});
        scene.parameters.contact.model = model;
        Simulation simulation(std::move(scene));
        simulation.set_recording(false);
        const SimulationSummary s = simulation.Run();
        std::printf(" %d / %.2f, %d / %d / %d |", s.failed_steps, s.iterations_mean,
                    s.iterations_max, s.roundoff_steps, s.near_rigid_contacts_max);
      }
      std::printf("\n");
    }
  }
}

void RunStiffClutterStudy(bool quick) {
  const double duration = quick ? 2.0 : 10.0;
  const std::vector<double> stiffnesses =
      quick ? std::vector<double>{1e6, 1e10, 1e14}
            : std::vector<double>{1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14};
  std::printf(
      "\n## Lagged and Similar up to rigid: 40-body clutter with walls, δt = 10 ms, %g "
      "s\n\n"
      "| model | k [N/m] | failed | iterations mean / max | at round-off | clamped "
      "contacts "
      "max | κ max | penetration at rest [m] | wall [s] | without the clamp |\n"
      "|---|---|---|---|---|---|---|---|---|---|\n",
      duration);
  for (ContactModel model : kHuntCrossley) {
    for (double k : stiffnesses) {
      const StiffRun on = RunStiffClutter(model, k, true, duration);
      const StiffRun off = RunStiffClutter(model, k, false, duration);
      const SimulationSummary& s = on.summary;
      char without[96];
      if (off.summary.failed_steps > 0) {
        std::snprintf(without, sizeof(without), "fails at t = %.2f s",
                      off.summary.sim_time + 0.01);
      } else {
        std::snprintf(without, sizeof(without), "runs (%.2f iterations)",
                      off.summary.iterations_mean);
      }
      std::printf("| %s | %.0e | %d | %.2f / %d | %d | %d | %.1e | %.2e | %.2f | %s |\n",
                  ToString(model).c_str(), k, s.failed_steps, s.iterations_mean,
                  s.iterations_max, s.roundoff_steps, s.near_rigid_contacts_max,
                  on.condition_max, on.rest_penetration, s.wall_time_s, without);
    }
  }
  StiffIrrScenes(stiffnesses);
}

void RunIrrClutterStudy(bool quick) {
  std::printf(
      "\n## Clutter (IRR §X-A): 40 bodies, k = 1e7 N/m per pair, d = 10 s/m, "
      "τ_d = 1e-4 s, v_s = 1e-4 m/s, σ = 1e-3, μ = 1\n");
  const double duration = quick ? 1.5 : 3.0;
  TimeSeries(duration);
  TimeStepSweep(quick ? std::vector<double>{2e-3, 1e-2}
                      : std::vector<double>{1e-3, 2e-3, 5e-3, 1e-2},
                duration);
  StiffnessSweep(
      quick ? std::vector<double>{1e3, 1e7, 1e11}
            : std::vector<double>{1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12},
      duration);
}

}  // namespace coulomb
