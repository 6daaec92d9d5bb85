#include "coulomb/cli/run_command.h"

#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <thread>

#include "coulomb/base/stopwatch.h"
#include "coulomb/cli/arguments.h"
#include "coulomb/cli/view_command.h"
#include "coulomb/io/fclib_step_export.h"
#include "coulomb/io/hdf5_file.h"
#include "coulomb/io/run_output.h"
#include "coulomb/io/run_recorder.h"
#include "coulomb/math/thread_pool.h"
#include "coulomb/scenes/builtin_scenes.h"
#include "coulomb/sim/mjcf_scene_file.h"
#include "coulomb/sim/scene_file.h"
#include "coulomb/sim/simulation.h"
#include "coulomb/viewer/live_viewer.h"

namespace coulomb {
namespace {

// What the command line overrides; unset: the scene's own.
struct RunOptions {
  std::string scene = "clutter";
  std::map<std::string, std::string> scene_options;
  std::string keyframe;  // an MJCF file run by itself: the <key> it starts at
  std::optional<double> time_step, duration, rel_tolerance;
  std::optional<double> sigma;      // SAP's tangential regularization, for every contact
  std::optional<double> lookahead;  // speculative contacts' look-ahead [s]
  std::optional<Scheme> scheme;
  std::optional<ContactModel> model;
  std::optional<ContactSolverKind> solver;
  std::optional<int> threads;
  // SAP's Newton iterations before a step fails; an NCP solver's step budget.
  std::optional<int> max_iterations;
  std::optional<CanalInnerSolver> canal_inner;  // CANAL: the ablation's inner solvers
  bool cold_start = false;    // NCP solvers: no warm start from the previous step
  bool general_form = false;  // free bodies through Pinocchio's CRBA and RNEA
  std::string out_dir;
  std::string fclib_dir;  // --fclib-out: the steps' contact problems as FCLIB files
  int fclib_every = 1;
  std::string resume_dir;  // --resume: continue the run recorded there
  bool json = false;
  bool view = false;      // serve the viewer on the run while it is computed
  bool realtime = false;  // no faster than the simulated time
  ViewerServerOptions server;
};

bool IsSceneFile(const std::string& scene) {
  return scene.ends_with(".yaml") || scene.ends_with(".yml") || IsMjcfFile(scene);
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
    } else if (flag == "--canal-inner") {
      options.canal_inner = arguments.EnumValue<CanalInnerSolver>(flag);
    } else if (flag == "--cold-start") {
      options.cold_start = true;
    } else if (flag == "--general-form") {
      options.general_form = true;
    } else if (flag == "--threads") {
      options.threads = arguments.IntValueInRange(flag, 1, ThreadPool::kMaxThreads);
    } else if (flag == "--model") {
      options.model = arguments.EnumValue<ContactModel>(flag);
    } else if (flag == "--rel-tol") {
      options.rel_tolerance = arguments.FractionValue(flag);
    } else if (flag == "--max-iterations") {
      options.max_iterations = arguments.IntValueAtLeast(flag, 1);
    } else if (flag == "--sigma") {
      options.sigma = arguments.PositiveValue(flag);
    } else if (flag == "--lookahead") {
      options.lookahead = arguments.NonNegativeValue(flag);
    } else if (flag == "--keyframe") {
      options.keyframe = arguments.Value(flag);
    } else if (flag == "--set") {
      const std::string setting = arguments.Value(flag);
      const size_t equals = setting.find('=');
      if (equals == std::string::npos || equals == 0) {
        throw UsageError("--set expects key=value, got '" + setting + "'");
      }
      options.scene_options[setting.substr(0, equals)] = setting.substr(equals + 1);
    } else if (flag == "--out") {
      options.out_dir = arguments.Value(flag);
    } else if (flag == "--fclib-out") {
      options.fclib_dir = arguments.Value(flag);
    } else if (flag == "--fclib-every") {
      options.fclib_every = arguments.IntValueInRange(flag, 1, 1'000'000'000);
    } else if (flag == "--resume") {
      options.resume_dir = arguments.Value(flag);
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
  if (!options.keyframe.empty() && !IsMjcfFile(options.scene)) {
    throw UsageError(
        "--keyframe applies to an MJCF file run by itself (MODEL.xml); a "
        "YAML scene names a robot's keyframe in its entry");
  }
  if (options.fclib_every != 1 && options.fclib_dir.empty())
    throw UsageError("--fclib-every applies with --fclib-out DIR");
  if (options.view && options.json)
    throw UsageError("--view and --json exclude each other");
  const size_t resume_arguments = 2 + (options.json ? 1 : 0);
  if (!options.resume_dir.empty() && list.size() != resume_arguments) {
    throw UsageError(
        "--resume DIR continues a run with the options it was started with; only "
        "--json may be added");
  }
  return options;
}

// A run to do: its options and, for a scene file, the file's text (a
// resumed run uses the text it was started with, even if the file changed).
struct RunSetup {
  RunOptions options;
  std::vector<std::string> arguments;  // the command line that started the run
  std::string scene_text;
  bool resumed = false;
};

std::string ReadSceneText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw SceneFileError(path + ": file not found");
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

RunSetup NewRunSetup(const std::vector<std::string>& arguments) {
  RunSetup setup{ParseRunOptions(arguments), arguments, "", false};
  if (IsSceneFile(setup.options.scene))
    setup.scene_text = IsMjcfFile(setup.options.scene)
                           ? MjcfSceneText(setup.options.scene, setup.options.keyframe)
                           : ReadSceneText(setup.options.scene);
  return setup;
}

RunSetup ResumedRunSetup(const RunOptions& resume) {
  const Hdf5File file(
      (std::filesystem::path(resume.resume_dir) / "trajectory.h5").string(),
      Hdf5File::Mode::kRead);
  const RunDescription description = ReadRunDescription(file);
  RunSetup setup;
  setup.arguments = description.arguments;
  setup.options = ParseRunOptions(setup.arguments);
  setup.scene_text = description.scene_text;
  setup.options.out_dir = resume.resume_dir;
  setup.options.json = resume.json;
  setup.options.view = setup.options.realtime = false;
  setup.resumed = true;
  return setup;
}

Scene PrepareScene(const RunOptions& options, const std::string& scene_text) {
  Scene scene = IsSceneFile(options.scene)
                    ? LoadSceneText(scene_text, options.scene)
                    : MakeBuiltinScene(options.scene, options.scene_options);
  TimeStepperParameters& parameters = scene.parameters;
  if (options.time_step) parameters.time_step = *options.time_step;
  if (options.duration) scene.duration = *options.duration;
  if (options.scheme) parameters.scheme = *options.scheme;
  if (options.model) parameters.contact.model = *options.model;
  if (options.solver) parameters.solver.kind = *options.solver;
  if (options.threads) parameters.solver.threads = *options.threads;
  if (options.canal_inner) parameters.solver.ncp.inner_solver = *options.canal_inner;
  if (options.cold_start) parameters.ncp_warm_start = false;
  if (options.rel_tolerance) {
    parameters.solver.sap.rel_tolerance = *options.rel_tolerance;
    parameters.solver.ncp.tolerance = *options.rel_tolerance;
  }
  if (options.max_iterations) {
    parameters.solver.sap.max_iterations = *options.max_iterations;
    parameters.solver.ncp.max_iterations = *options.max_iterations;
  }
  if (options.sigma) parameters.contact.sigma = *options.sigma;
  if (options.lookahead) parameters.contact_lookahead = *options.lookahead;
  if (options.general_form) scene.system.UseGeneralForm();
  try {
    ValidateContactSolverOptions(parameters.solver);
  } catch (const std::invalid_argument& error) {
    throw UsageError(error.what());
  }
  try {  // refused before any warning of the start is printed
    StepsInDuration(scene.duration, parameters.time_step);
  } catch (const std::invalid_argument& error) {
    throw UsageError(std::string("duration: ") + error.what());
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
    std::printf(
        "  SAP iterations mean %.2f, max %d (of the slowest island; %.2f per tree); max "
        "momentum error e_m %.2e\n",
        s.iterations_mean, s.iterations_max, s.tree_iterations_mean,
        s.momentum_error_max);
  } else {
    std::printf(
        "  %s iterations mean %.2f, max %d; max NCP residual %.2e; %d steps ended at "
        "the budget of %d iterations unsolved\n",
        ToString(scene.parameters.solver.kind).c_str(), s.iterations_mean,
        s.iterations_max, s.ncp_residual_max, s.budget_ended_steps,
        NcpStepBudget(scene.parameters.solver));
  }
  std::printf("  contacts max %d, penetration max %.3e m; energy %.6g J → %.6g J\n",
              s.contacts_max, s.penetration_max, s.energy_initial, s.energy_final);
  if (s.steps > 0 && s.step_time_s > 0.0) {
    const double percent = 100.0 / s.step_time_s;
    std::printf(
        "  time per step %.3f ms: collision queries %.1f %%, problem assembly %.1f %%, "
        "contact solve %.1f %%\n",
        1e3 * s.step_time_s / s.steps, percent * s.geometry_time_s,
        percent * s.assembly_time_s, percent * s.solve_time_s);
  }
  if (s.near_rigid_contacts_max > 0 || s.roundoff_steps > 0) {
    std::printf(
        "  near-rigid contacts max %d (stiffer than δt resolves); steps accepted at "
        "round-off %d (docs/stiff_contact.md)\n",
        s.near_rigid_contacts_max, s.roundoff_steps);
  }
  if (s.steps_solved_again > 0) {
    std::printf(
        "  steps solved again %d (a PD controller folded into the free motion crossed "
        "its effort limit; their iterations count both solves)\n",
        s.steps_solved_again);
  }
  if (!s.failure.empty()) std::printf("  FAILED at %s\n", s.failure.c_str());
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

// The live viewer of a run, announced and opened in a browser; once the run
// is over it serves the replay until Ctrl-C.
class RunViewer {
 public:
  RunViewer(const Simulation& simulation, const ViewerServerOptions& options)
      : viewer_(simulation, options) {
    std::printf("viewing the run live at %s\n", viewer_.url().c_str());
    std::fflush(stdout);
    OpenInBrowser(viewer_.url());
  }
  LiveRun& live() { return viewer_.live(); }
  // Blocks: the server runs until Ctrl-C.
  void ServeReplay() {
    std::printf("the run is over; its replay stays at %s (Ctrl-C to stop)\n",
                viewer_.url().c_str());
    std::fflush(stdout);
    viewer_.Wait();
  }

 private:
  LiveViewer viewer_;
};

// The duration a resumed run has left (its steps not yet taken); refuses a
// run that is complete or stopped at a failed step.
double RemainingDuration(const Simulation& simulation, const RunRecorder& recorder,
                         const std::string& directory) {
  const double dt = simulation.time_step();
  const long long planned = std::llround(simulation.scene().duration / dt);
  if (recorder.steps() > 0 && !recorder.last_step().statistics.converged) {
    throw UsageError(directory + ": the run stopped at a failed step (t = " +
                     std::to_string(recorder.last_step().time) +
                     " s); resuming would repeat it");
  }
  const long long taken = static_cast<long long>(recorder.steps());
  if (taken >= planned) {
    throw UsageError(directory + ": the run is complete (" + std::to_string(taken) +
                     " steps); nothing to resume");
  }
  return static_cast<double>(planned - taken) * dt;
}

// The recorder of --out (null without): a new run's files, created now so
// that an unwritable folder fails before the first step, or a resumed run's.
std::unique_ptr<RunRecorder> MakeRecorder(const RunSetup& setup, Simulation* simulation) {
  const RunOptions& options = setup.options;
  if (options.out_dir.empty()) return nullptr;
  if (setup.resumed) {
    return std::make_unique<RunRecorder>(
        RunRecorder::Resume(options.out_dir, simulation, options.view));
  }
  auto recorder = std::make_unique<RunRecorder>(
      options.out_dir, simulation, options.view, RecordingCadence{},
      RunDescription{setup.arguments, setup.scene_text});
  recorder->Flush();  // the initial state on disk from the start
  return recorder;
}

// Progress on stderr (a terminal only), the live viewer and --realtime.
class RunProgress {
 public:
  RunProgress(const RunOptions& options, const Simulation& simulation, RunViewer* viewer)
      : options_(options),
        simulation_(simulation),
        viewer_(viewer),
        show_(isatty(STDERR_FILENO) != 0 && !options.json),
        start_time_(simulation.time()) {}
  ~RunProgress() {
    if (show_) std::fprintf(stderr, "\n");
  }
  void operator()(double fraction) const {
    if (viewer_) viewer_->live().Update(simulation_);
    const double ahead = simulation_.time() - start_time_ - wall_clock_.Seconds();
    if (options_.realtime && ahead > 0) {
      std::this_thread::sleep_for(std::chrono::duration<double>(ahead));
    }
    if (!show_) return;
    const int width = 40;
    const int filled = static_cast<int>(fraction * width);
    std::fprintf(stderr, "\r[%s%s] %3.0f%%", std::string(filled, '#').c_str(),
                 std::string(width - filled, ' ').c_str(), 100.0 * fraction);
  }

 private:
  const RunOptions& options_;
  const Simulation& simulation_;
  RunViewer* viewer_;
  bool show_;
  double start_time_;
  Stopwatch wall_clock_;
};

// The outcome: summary, failure, interruption; the exit code.
int Report(const RunOptions& options, const Simulation& simulation,
           const SimulationSummary& summary) {
  if (options.json) {
    std::cout << RunSummaryJson(simulation.scene(), summary).str() << "\n";
  } else {
    PrintSummary(simulation.scene(), summary);
  }
  for (const std::string& warning : simulation.RunWarnings(summary))
    std::fprintf(stderr, "coulomb run: warning: %s\n", warning.c_str());
  if (!summary.failure.empty()) {
    std::fprintf(stderr, "coulomb run: %s: %s\n", simulation.scene().name.c_str(),
                 summary.failure.c_str());
  }
  if (summary.interrupted) {
    std::fprintf(stderr, "coulomb run: interrupted by %s at t = %.4g s%s\n",
                 interrupting_signal == SIGTERM ? "SIGTERM" : "SIGINT", simulation.time(),
                 options.out_dir.empty()
                     ? ""
                     : ("; the run so far is written (coulomb run --resume " +
                        options.out_dir + " continues it)")
                           .c_str());
    return 128 + interrupting_signal;
  }
  return summary.failure.empty() ? 0 : 1;
}

}  // namespace

int RunRunCommand(const std::vector<std::string>& arguments) {
  const RunOptions given = ParseRunOptions(arguments);
  const RunSetup setup =
      given.resume_dir.empty() ? NewRunSetup(arguments) : ResumedRunSetup(given);
  const RunOptions& options = setup.options;
  Simulation simulation = [&] {
    try {
      return Simulation(PrepareScene(options, setup.scene_text));
    } catch (const std::invalid_argument& error) {  // e.g. bodies crowded in one spot
      throw SceneFileError(options.scene + ": " + error.what());
    }
  }();
  // Without --out or --view nothing reads the trajectory: memory stays flat.
  simulation.set_recording(!options.out_dir.empty() || options.view);
  const std::unique_ptr<RunRecorder> recorder = MakeRecorder(setup, &simulation);
  const double duration = setup.resumed
                              ? RemainingDuration(simulation, *recorder, options.out_dir)
                              : simulation.scene().duration;
  if (!setup.resumed) {
    for (const std::string& warning : simulation.StartWarnings())
      std::fprintf(stderr, "coulomb run: warning: %s\n", warning.c_str());
  }
  std::unique_ptr<RunViewer> viewer;
  if (options.view) viewer = std::make_unique<RunViewer>(simulation, options.server);
  std::optional<FclibStepExport> fclib_export;
  if (!options.fclib_dir.empty())
    fclib_export.emplace(options.fclib_dir, options.fclib_every, simulation.scene().name);
  SimulationSummary summary;
  try {
    const RunProgress progress(options, simulation, viewer.get());
    const InterruptibleRun interruptible_run(&simulation);
    summary = simulation.RunFor(duration, [&](double fraction) {
      if (recorder) recorder->AfterStep();
      if (fclib_export) fclib_export->AfterStep(simulation);
      progress(fraction);
    });
    if (recorder) summary = recorder->Finish(summary);
  } catch (const RunOutputError& error) {
    std::fprintf(stderr,
                 "coulomb run: %s; the run up to its last flush is in %s (coulomb run "
                 "--resume %s continues it once there is room)\n",
                 error.what(), options.out_dir.c_str(), options.out_dir.c_str());
    return 1;
  }
  const int code = Report(options, simulation, summary);
  if (viewer && !summary.interrupted) {
    viewer->live().Finish(simulation, summary);
    viewer->ServeReplay();
  }
  return code;
}

int RunScenesCommand(const std::vector<std::string>& arguments) {
  if (!arguments.empty()) throw UsageError("coulomb scenes takes no arguments");
  for (const BuiltinSceneInfo& info : BuiltinScenes()) {
    std::printf("%-18s %s\n", info.name.c_str(), info.description.c_str());
  }
  return 0;
}

}  // namespace coulomb
