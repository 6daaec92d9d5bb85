#include "coulomb/cli/run_command.h"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>

#include "coulomb/cli/arguments.h"
#include "coulomb/io/hdf5_file.h"
#include "coulomb/io/json_writer.h"
#include "coulomb/scenes/builtin_scenes.h"
#include "coulomb/sim/scene_file.h"
#include "coulomb/sim/simulation.h"

namespace coulomb {
namespace {

struct RunOptions {
  std::string scene = "clutter";
  std::map<std::string, std::string> scene_options;
  double time_step = 0.0;  // 0: the scene's
  double duration = 0.0;
  std::string scheme;
  std::string model;
  std::string solver;
  int threads = 0;          // 0: the scene's
  bool cold_start = false;  // NCP solvers: no warm start from the previous step
  double rel_tolerance = 0.0;
  std::string out_dir;
  bool json = false;
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
      options.time_step = arguments.DoubleValue(flag);
      if (options.time_step <= 0) throw UsageError("--dt must be positive");
    } else if (flag == "--duration") {
      options.duration = arguments.DoubleValue(flag);
      if (options.duration <= 0) throw UsageError("--duration must be positive");
    } else if (flag == "--scheme") {
      options.scheme = arguments.Value(flag);
      ParseEnum<Scheme>(options.scheme);  // validates
    } else if (flag == "--solver") {
      options.solver = arguments.Value(flag);
      ParseEnum<ContactSolverKind>(options.solver);  // validates
    } else if (flag == "--cold-start") {
      options.cold_start = true;
    } else if (flag == "--threads") {
      options.threads = arguments.IntValue(flag);
      if (options.threads < 1) throw UsageError("--threads must be ≥ 1");
    } else if (flag == "--model") {
      options.model = arguments.Value(flag);
      ParseEnum<ContactModel>(options.model);  // validates
    } else if (flag == "--rel-tol") {
      options.rel_tolerance = arguments.DoubleValue(flag);
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
  return options;
}

Scene PrepareScene(const RunOptions& options) {
  Scene scene = IsSceneFile(options.scene)
                    ? LoadSceneFile(options.scene)
                    : MakeBuiltinScene(options.scene, options.scene_options);
  if (options.time_step > 0) scene.parameters.time_step = options.time_step;
  if (options.duration > 0) scene.duration = options.duration;
  if (!options.scheme.empty())
    scene.parameters.scheme = ParseEnum<Scheme>(options.scheme);
  if (!options.model.empty())
    scene.parameters.contact.model = ParseEnum<ContactModel>(options.model);
  if (!options.solver.empty())
    scene.parameters.solver.kind = ParseEnum<ContactSolverKind>(options.solver);
  if (options.threads > 0) scene.parameters.solver.threads = options.threads;
  if (options.cold_start) scene.parameters.ncp_warm_start = false;
  if (options.rel_tolerance > 0)
    scene.parameters.solver.sap.rel_tolerance = options.rel_tolerance;
  ValidateSapSolverParameters(scene.parameters.solver.sap);
  return scene;
}

JsonObjectWriter SummaryJson(const Scene& scene, const SimulationSummary& s) {
  JsonObjectWriter json;
  json.Add("scene", scene.name);
  json.Add("scheme", ToString(scene.parameters.scheme));
  json.Add("contact_model", ToString(scene.parameters.contact.model));
  json.Add("solver", ToString(scene.parameters.solver.kind));
  json.Add("time_step", scene.parameters.time_step);
  json.Add("steps", s.steps);
  json.Add("sim_time", s.sim_time);
  json.Add("wall_time_s", s.wall_time_s);
  json.Add("realtime_factor", s.realtime_factor);
  json.Add("iterations_mean", s.iterations_mean);
  json.Add("iterations_max", s.iterations_max);
  json.Add("momentum_error_max", s.momentum_error_max);
  json.Add("ncp_residual_max", s.ncp_residual_max);
  json.Add("failed_steps", s.failed_steps);
  json.Add("penetration_max", s.penetration_max);
  json.Add("contacts_max", s.contacts_max);
  json.Add("energy_initial", s.energy_initial);
  json.Add("energy_final", s.energy_final);
  if (!s.failure.empty()) json.Add("failure", s.failure);
  return json;
}

// trajectory.h5: /time, /bodies/NAME/{position, orientation, linear_velocity,
// angular_velocity} (T × 3 or T × 4, world frame, quaternion w, x, y, z), /q, /v.
void WriteTrajectory(const std::filesystem::path& path, const Trajectory& trajectory) {
  Hdf5File file(path.string(), Hdf5File::Mode::kCreate);
  const size_t samples = trajectory.time.size();
  file.WriteDoubles("/time",
                    Eigen::Map<const Eigen::VectorXd>(trajectory.time.data(), samples));
  const std::pair<const char*, std::pair<int, int>> fields[] = {
      {"position", {0, 3}},
      {"orientation", {3, 4}},
      {"linear_velocity", {7, 3}},
      {"angular_velocity", {10, 3}}};
  for (size_t body = 0; body < trajectory.body_names.size(); ++body) {
    for (const auto& [field, range] : fields) {
      std::vector<double> values;
      for (const auto& sample : trajectory.body_samples[body]) {
        for (int k = 0; k < range.second; ++k) values.push_back(sample[range.first + k]);
      }
      file.WriteMatrix("/bodies/" + trajectory.body_names[body] + "/" + field, values,
                       samples, range.second);
    }
  }
  for (const auto& [name, rows] :
       {std::pair{"/q", &trajectory.q}, std::pair{"/v", &trajectory.v}}) {
    const size_t cols = rows->empty() ? 0 : rows->front().size();
    std::vector<double> values;
    for (const Eigen::VectorXd& row : *rows)
      values.insert(values.end(), row.begin(), row.end());
    file.WriteMatrix(name, values, rows->size(), cols);
  }
}

void WriteStats(const std::filesystem::path& path, const Scene& scene,
                const SimulationSummary& summary,
                const std::vector<StepRecord>& records) {
  JsonObjectWriter json = SummaryJson(scene, summary);
  std::vector<JsonObjectWriter> steps;
  for (const StepRecord& record : records) {
    steps.emplace_back();
    JsonObjectWriter& step = steps.back();
    step.Add("time", record.time);
    step.Add("converged", record.statistics.converged);
    step.Add("iterations", record.statistics.iterations);
    step.Add("momentum_error", record.statistics.momentum_error);
    step.Add("complementarity_error", record.statistics.complementarity_error);
    step.Add("ncp_residual", record.statistics.ncp_residual);
    step.Add("contacts", record.statistics.num_contacts);
    step.Add("penetration_max", record.statistics.max_penetration);
    step.Add("energy", record.energy);
    step.Add("wall_time_s", record.statistics.wall_time_s);
  }
  json.Add("per_step", steps);
  std::ofstream(path) << json.str() << "\n";
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
  if (!s.failure.empty()) std::printf("  FAILED at %s\n", s.failure.c_str());
}

}  // namespace

int RunRunCommand(const std::vector<std::string>& arguments) {
  const RunOptions options = ParseRunOptions(arguments);
  Simulation simulation(PrepareScene(options));
  // Fail on an unusable output directory now, not after the run.
  if (!options.out_dir.empty()) std::filesystem::create_directories(options.out_dir);
  const bool show_progress = isatty(STDERR_FILENO) != 0 && !options.json;
  const SimulationSummary summary = simulation.Run([&](double fraction) {
    if (!show_progress) return;
    const int width = 40;
    const int filled = static_cast<int>(fraction * width);
    std::fprintf(stderr, "\r[%s%s] %3.0f%%", std::string(filled, '#').c_str(),
                 std::string(width - filled, ' ').c_str(), 100.0 * fraction);
  });
  if (show_progress) std::fprintf(stderr, "\n");
  if (!options.out_dir.empty()) {
    const std::filesystem::path dir(options.out_dir);
    WriteTrajectory(dir / "trajectory.h5", simulation.trajectory());
    WriteStats(dir / "stats.json", simulation.scene(), summary, simulation.records());
  }
  if (options.json) {
    std::cout << SummaryJson(simulation.scene(), summary).str() << "\n";
  } else {
    PrintSummary(simulation.scene(), summary);
  }
  if (!summary.failure.empty()) {
    std::fprintf(stderr, "coulomb run: %s: %s\n", simulation.scene().name.c_str(),
                 summary.failure.c_str());
    return 1;
  }
  return 0;
}

int RunScenesCommand(const std::vector<std::string>& arguments) {
  if (!arguments.empty()) throw UsageError("coulomb scenes takes no arguments");
  for (const BuiltinSceneInfo& info : BuiltinScenes()) {
    std::printf("%-18s %s\n", info.name.c_str(), info.description.c_str());
  }
  return 0;
}

}  // namespace coulomb
