#include "coulomb/bench/clutter_bench_command.h"

#include <cstdio>

#include "coulomb/cli/arguments.h"
#include "coulomb/scenes/builtin_scenes.h"
#include "coulomb/sim/simulation.h"

namespace coulomb {
namespace {

struct ClutterBenchOptions {
  double duration = 10.0;
  int max_bodies = 160;
};

ClutterBenchOptions ParseClutterBenchOptions(const std::vector<std::string>& list) {
  ClutterBenchOptions options;
  Arguments arguments(list);
  while (!arguments.Done()) {
    const std::string flag = arguments.Next();
    if (flag == "--duration") {
      options.duration = arguments.DoubleValue(flag);
      if (!(options.duration > 0.0)) throw UsageError("--duration must be > 0");
    } else if (flag == "--max-bodies") {
      options.max_bodies = arguments.IntValue(flag);
      if (options.max_bodies < 4) throw UsageError("--max-bodies must be ≥ 4");
    } else {
      throw UsageError("unknown option " + flag);
    }
  }
  return options;
}

// What the run summary does not hold.
struct ClutterTail {
  double late_iterations = 0.0;  // over the second half of the run
  int late_steps = 0;
  int final_contacts = 0;
};

// One row of the table; false if the run failed.
bool BenchRow(int bodies, bool walls, double duration) {
  Scene scene = MakeBuiltinScene("clutter", {{"bodies", std::to_string(bodies)},
                                             {"walls", walls ? "true" : "false"}});
  scene.duration = duration;
  ClutterTail tail;
  Simulation simulation(std::move(scene));
  const SimulationSummary summary =
      simulation.Run({}, [&](const TimeStepper&, const StepRecord& record) {
        tail.final_contacts = record.statistics.num_contacts;
        if (record.time > 0.5 * duration) {
          tail.late_iterations += record.statistics.iterations;
          ++tail.late_steps;
        }
      });
  const double steps = std::max(1, summary.steps);
  const double percent = 100.0 / std::max(summary.step_time_s, 1e-300);
  std::printf(
      "| %4d | %-5s | %5d | %5.2f | %3d | %5.2f | %5.2f | %8.3f | %5.1f | %5.1f | %5.1f "
      "| "
      "%s |\n",
      bodies, walls ? "yes" : "no", tail.final_contacts, summary.iterations_mean,
      summary.iterations_max, summary.tree_iterations_mean,
      tail.late_iterations / std::max(1, tail.late_steps),
      1e3 * summary.step_time_s / steps, percent * summary.geometry_time_s,
      percent * summary.assembly_time_s, percent * summary.solve_time_s,
      summary.failed_steps == 0 ? "ok" : summary.failure.c_str());
  std::fflush(stdout);
  return summary.failed_steps == 0;
}

}  // namespace

int RunClutterBenchCommand(const std::vector<std::string>& arguments) {
  const ClutterBenchOptions options = ParseClutterBenchOptions(arguments);
  std::printf(
      "# Clutter scalability (SAP §VI-C): k = 1e12 N/m, τ_d = δt = 10 ms, %.3g s\n\n",
      options.duration);
  std::printf(
      "| bodies | walls | contacts at end | iterations mean | max | per tree | mean, 2nd "
      "half | ms/step | geometry %% | assembly %% | solve %% | status |\n"
      "|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  bool all_ok = true;
  for (const bool walls : {true, false}) {
    for (const int bodies : {10, 20, 40, 80, 160}) {
      if (bodies > options.max_bodies) break;
      all_ok = BenchRow(bodies, walls, options.duration) && all_ok;
    }
  }
  return all_ok ? 0 : 1;
}

}  // namespace coulomb
