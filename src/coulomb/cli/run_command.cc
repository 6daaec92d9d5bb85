#include "coulomb/cli/run_command.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <future>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <thread>

#include "coulomb/base/stopwatch.h"
#include "coulomb/cli/arguments.h"
#include "coulomb/cli/view_command.h"
#include "coulomb/io/run_output.h"
#include "coulomb/scenes/builtin_scenes.h"
#include "coulomb/sim/scene_file.h"
#include "coulomb/sim/simulation.h"
#include "coulomb/viewer/live_run.h"
#include "coulomb/viewer/viewer_server.h"

namespace coulomb {
namespace {

// What the command line overrides; unset: the scene's own.
struct RunOptions {
  std::string scene = "clutter";
  std::map<std::string, std::string> scene_options;
  std::optional<double> time_step, duration, rel_tolerance;
  std::optional<Scheme> scheme;
  std::optional<ContactModel> model;
  std::optional<ContactSolverKind> solver;
  std::optional<int> threads;
  bool cold_start = false;  // NCP solvers: no warm start from the previous step
  std::string out_dir;
  bool json = false;
  bool view = false;      // serve the viewer on the run while it is computed
  bool realtime = false;  // no faster than the simulated time
  ViewerServerOptions server;
};

bool IsSceneFile(const std::string& scene) {
  return scene.ends_with(".yaml") || scene.ends_with(".yml");
}

RunOptions ParseRunOptions(const std::vector<std::string>& list) {
  RunOptions options;
  Arguments arguments(list);
  bool scene_given = false;
  while (!arguments.Done()) {
    const std::string flag = arguments.Next();
    if (flag == "--dt") {
      options.time_step = arguments.PositiveValue(flag);
    } else if (flag == "--duration") {
      options.duration = arguments.PositiveValue(flag);
    } else if (flag == "--scheme") {
      options.scheme = arguments.EnumValue<Scheme>(flag);
    } else if (flag == "--solver") {
      options.solver = arguments.EnumValue<ContactSolverKind>(flag);
    } else if (flag == "--cold-start") {
      options.cold_start = true;
    } else if (flag == "--threads") {
      options.threads = arguments.IntValueAtLeast(flag, 1);
    } else if (flag == "--model") {
      options.model = arguments.EnumValue<ContactModel>(flag);
    } else if (flag == "--rel-tol") {
      options.rel_tolerance = arguments.FractionValue(flag);
    } else if (flag == "--set") {
      const std::string setting = arguments.Value(flag);
      const size_t equals = setting.find('=');
      if (equals == std::string::npos || equals == 0) {
        throw UsageError("--set expects key=value, got '" + setting + "'");
      }
      options.scene_options[setting.substr(0, equals)] = setting.substr(equals + 1);
    } else if (flag == "--out") {
      options.out_dir = arguments.Value(flag);
    } else if (flag == "--json") {
      options.json = true;
    } else if (flag == "--view") {
      options.view = true;
    } else if (flag == "--realtime") {
      options.realtime = true;
    } else if (ParseViewerServerOption(flag, &arguments, &options.server)) {
      continue;
    } else if (flag.starts_with("--")) {
      throw UsageError("unknown option " + flag);
    } else if (!scene_given) {
      options.scene = flag;
      scene_given = true;
    } else {
      throw UsageError("more than one scene given: " + options.scene + ", " + flag);
    }
  }
  if (IsSceneFile(options.scene) && !options.scene_options.empty()) {
    throw UsageError("--set applies to built-in scenes; edit " + options.scene +
                     " instead");
  }
  if (options.view && options.json)
    throw UsageError("--view and --json exclude each other");
  return options;
}

Scene PrepareScene(const RunOptions& options) {
  Scene scene = IsSceneFile(options.scene)
                    ? LoadSceneFile(options.scene)
                    : MakeBuiltinScene(options.scene, options.scene_options);
  TimeStepperParameters& parameters = scene.parameters;
  if (options.time_step) parameters.time_step = *options.time_step;
  if (options.duration) scene.duration = *options.duration;
  if (options.scheme) parameters.scheme = *options.scheme;
  if (options.model) parameters.contact.model = *options.model;
  if (options.solver) parameters.solver.kind = *options.solver;
  if (options.threads) parameters.solver.threads = *options.threads;
  if (options.cold_start) parameters.ncp_warm_start = false;
  if (options.rel_tolerance) parameters.solver.sap.rel_tolerance = *options.rel_tolerance;
  try {
    ValidateContactSolverOptions(parameters.solver);
  } catch (const std::invalid_argument& error) {
    throw UsageError(error.what());
  }
  return scene;
}

void PrintSummary(const Scene& scene, const SimulationSummary& s) {
  std::printf(
      "%s: %d steps of %.4g s (%s, %s contact), %.3f s simulated in %.3f s (%.2f× real "
      "time)\n",
      scene.name.c_str(), s.steps, scene.parameters.time_step,
      ToString(scene.parameters.scheme).c_str(),
      ToString(scene.parameters.contact.model).c_str(), s.sim_time, s.wall_time_s,
      s.realtime_factor);
  if (scene.parameters.solver.kind == ContactSolverKind::kSap) {
    std::printf("  SAP iterations mean %.2f, max %d; max momentum error e_m %.2e\n",
                s.iterations_mean, s.iterations_max, s.momentum_error_max);
  } else {
    std::printf("  %s iterations mean %.2f, max %d; max NCP residual %.2e\n",
                ToString(scene.parameters.solver.kind).c_str(), s.iterations_mean,
                s.iterations_max, s.ncp_residual_max);
  }
  std::printf("  contacts max %d, penetration max %.3e m; energy %.6g J → %.6g J\n",
              s.contacts_max, s.penetration_max, s.energy_initial, s.energy_final);
  if (s.near_rigid_contacts_max > 0 || s.roundoff_steps > 0) {
    std::printf(
        "  near-rigid contacts max %d (stiffer than δt resolves); steps accepted at "
        "round-off %d (docs/stiff_contact.md)\n",
        s.near_rigid_contacts_max, s.roundoff_steps);
  }
  if (!s.failure.empty()) std::printf("  FAILED at %s\n", s.failure.c_str());
}

// One line on stderr when bodies start inside each other (more than 1 mm).
void WarnOfOverlaps(Simulation* simulation) {
  constexpr double kDepth = 1e-3;
  const std::vector<Contact> overlaps = simulation->Overlaps(kDepth);
  if (overlaps.empty()) return;
  const Contact& deepest = *std::max_element(
      overlaps.begin(), overlaps.end(),
      [](const Contact& a, const Contact& b) { return a.depth < b.depth; });
  std::fprintf(
      stderr,
      "coulomb run: warning: %zu contact points overlap by more than %g mm at the "
      "start (deepest: %s and %s, %.3g mm); allowed: contact pushes them apart\n",
      overlaps.size(), 1e3 * kDepth, deepest.body_a.c_str(), deepest.body_b.c_str(),
      1e3 * deepest.depth);
}

// SIGINT and SIGTERM during a run: the run stops after its current step,
// keeps and writes everything so far (the summary says "interrupted") and
// the command exits 128 + the signal's number. A second signal ends the
// process at once (the default action, restored by the first).
std::atomic<Simulation*> interruptible = nullptr;
std::atomic<int> interrupting_signal = 0;

void OnInterrupt(int signal) {
  interrupting_signal = signal;
  std::signal(signal, SIG_DFL);
  if (Simulation* simulation = interruptible.load()) simulation->RequestStop();
}

class InterruptibleRun {
 public:
  explicit InterruptibleRun(Simulation* simulation) {
    interruptible = simulation;
    std::signal(SIGINT, OnInterrupt);
    std::signal(SIGTERM, OnInterrupt);
  }
  ~InterruptibleRun() {
    std::signal(SIGINT, SIG_DFL);
    std::signal(SIGTERM, SIG_DFL);
    interruptible = nullptr;
  }
};

// The live viewer of a run: a server thread that serves `live` until the
// process ends (the run's replay once it is over).
class LiveViewer {
 public:
  LiveViewer(const Simulation& simulation, const ViewerServerOptions& options)
      : live_(simulation) {
    std::promise<std::string> url;
    std::future<std::string> bound = url.get_future();
    server_ = std::thread([this, options, &url] {
      try {
        ServeViewer(live_, "", options,
                    [&](const std::string& at) { url.set_value(at); });
      } catch (...) {
        url.set_exception(std::current_exception());
      }
    });
    try {
      url_ = bound.get();
    } catch (...) {
      server_.join();
      throw;
    }
    std::printf("viewing the run live at %s\n", url_.c_str());
    std::fflush(stdout);
    OpenInBrowser(url_);
  }
  LiveRun& live() { return live_; }
  // Blocks: the server runs until Ctrl-C.
  void ServeReplay() {
    std::printf("the run is over; its replay stays at %s (Ctrl-C to stop)\n",
                url_.c_str());
    std::fflush(stdout);
    server_.join();
  }

 private:
  LiveRun live_;
  std::thread server_;
  std::string url_;
};

}  // namespace

int RunRunCommand(const std::vector<std::string>& arguments) {
  const RunOptions options = ParseRunOptions(arguments);
  Simulation simulation(PrepareScene(options));
  // Without --out or --view nothing reads the trajectory: memory stays flat.
  simulation.set_recording(!options.out_dir.empty() || options.view);
  // Fail on an unusable output directory now, not after the run.
  if (!options.out_dir.empty()) std::filesystem::create_directories(options.out_dir);
  WarnOfOverlaps(&simulation);
  std::unique_ptr<LiveViewer> viewer;
  if (options.view) viewer = std::make_unique<LiveViewer>(simulation, options.server);
  const bool show_progress = isatty(STDERR_FILENO) != 0 && !options.json;
  const Stopwatch wall_clock;
  const double start_time = simulation.time();
  const auto progress = [&](double fraction) {
    if (viewer) viewer->live().Update(simulation);
    const double ahead = simulation.time() - start_time - wall_clock.Seconds();
    if (options.realtime && ahead > 0) {
      std::this_thread::sleep_for(std::chrono::duration<double>(ahead));
    }
    if (!show_progress) return;
    const int width = 40;
    const int filled = static_cast<int>(fraction * width);
    std::fprintf(stderr, "\r[%s%s] %3.0f%%", std::string(filled, '#').c_str(),
                 std::string(width - filled, ' ').c_str(), 100.0 * fraction);
  };
  const SimulationSummary summary = [&] {
    const InterruptibleRun interruptible_run(&simulation);
    return simulation.Run(progress);
  }();
  if (show_progress) std::fprintf(stderr, "\n");
  if (!options.out_dir.empty()) WriteRunOutput(options.out_dir, simulation, summary);
  if (options.json) {
    std::cout << RunSummaryJson(simulation.scene(), summary).str() << "\n";
  } else {
    PrintSummary(simulation.scene(), summary);
  }
  if (!summary.failure.empty()) {
    std::fprintf(stderr, "coulomb run: %s: %s\n", simulation.scene().name.c_str(),
                 summary.failure.c_str());
  }
  if (summary.interrupted) {
    std::fprintf(stderr, "coulomb run: interrupted by %s at t = %.4g s%s\n",
                 interrupting_signal == SIGTERM ? "SIGTERM" : "SIGINT", simulation.time(),
                 options.out_dir.empty() ? "" : "; the run so far is written");
    return 128 + interrupting_signal;
  }
  if (viewer) {
    viewer->live().Finish(simulation, summary);
    viewer->ServeReplay();
  }
  return summary.failure.empty() ? 0 : 1;
}

int RunScenesCommand(const std::vector<std::string>& arguments) {
  if (!arguments.empty()) throw UsageError("coulomb scenes takes no arguments");
  for (const BuiltinSceneInfo& info : BuiltinScenes()) {
    std::printf("%-18s %s\n", info.name.c_str(), info.description.c_str());
  }
  return 0;
}

}  // namespace coulomb
