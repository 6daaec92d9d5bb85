#include "coulomb/io/run_output.h"

#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "coulomb/io/hdf5_file.h"

namespace coulomb {
namespace {

namespace fs = std::filesystem;

// Writes through write(temporary path), then renames into `path`.
template <class Write>
void WriteAtomically(const std::string& path, Write&& write) {
  const std::string partial = path + ".partial";
  try {
    write(partial);
    fs::rename(partial, path);
  } catch (...) {
    std::error_code ignored;
    fs::remove(partial, ignored);
    throw;
  }
}

void WriteRows(Hdf5File* file, const std::string& dataset,
               const std::vector<Eigen::VectorXd>& rows) {
  const size_t cols = rows.empty() ? 0 : rows.front().size();
  std::vector<double> values;
  values.reserve(rows.size() * cols);
  for (const Eigen::VectorXd& row : rows)
    values.insert(values.end(), row.begin(), row.end());
  file->WriteMatrix(dataset, values, rows.size(), cols);
}

void WriteTrajectoryFile(const std::string& path, const Trajectory& trajectory) {
  Hdf5File file(path, Hdf5File::Mode::kCreate);
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
  WriteRows(&file, "/q", trajectory.q);
  WriteRows(&file, "/v", trajectory.v);
}

}  // namespace

void WriteTrajectory(const std::string& path, const Trajectory& trajectory) {
  WriteAtomically(path, [&](const std::string& partial) {
    WriteTrajectoryFile(partial, trajectory);
  });
}

JsonObjectWriter RunSummaryJson(const Scene& scene, const SimulationSummary& s) {
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

void WriteRunStatistics(const std::string& path, const Scene& scene,
                        const SimulationSummary& summary,
                        const std::vector<StepRecord>& records) {
  JsonObjectWriter json = RunSummaryJson(scene, summary);
  std::vector<JsonObjectWriter> steps;
  for (const StepRecord& record : records) {
    JsonObjectWriter& step = steps.emplace_back();
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
  WriteAtomically(path, [&](const std::string& partial) {
    std::ofstream out(partial);
    out << json.str() << "\n";
    if (!out.flush()) throw std::runtime_error(path + ": cannot write");
  });
}

void WriteRunOutput(const std::string& directory, const Simulation& simulation,
                    const SimulationSummary& summary) {
  fs::create_directories(directory);
  const fs::path dir(directory);
  WriteTrajectory((dir / "trajectory.h5").string(), simulation.trajectory());
  WriteRunStatistics((dir / "stats.json").string(), simulation.scene(), summary,
                     simulation.records());
}

}  // namespace coulomb
