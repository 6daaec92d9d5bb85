#include "coulomb/io/run_output.h"

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string_view>
#include <utility>

#include "coulomb/io/hdf5_file.h"
#include "coulomb/io/trajectory_writer.h"

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

// The shape with code `code` (its index in the Shape variant) and `size`.
Shape MakeShape(long long code, const double* size) {
  switch (code) {
    case 0:
      return Sphere{size[0]};
    case 1:
      return Box{Eigen::Vector3d(size[0], size[1], size[2])};
    case 2:
      return Capsule{size[0], size[1]};
    case 3:
      return Cylinder{size[0], size[1]};
    case 4:
      return HalfSpace{};
    case 5:
      return ConvexMesh{};
    case 7:
      return Ellipsoid{Eigen::Vector3d(size[0], size[1], size[2])};
    default:
      return SdfShape{};
  }
}

}  // namespace

void WriteTrajectory(const std::string& path, const Trajectory& trajectory,
                     const std::vector<StepRecord>& records) {
  WriteAtomically(path, [&](const std::string& partial) {
    TrajectoryWriter writer(partial, trajectory);  // with every sample
    writer.Append(trajectory, trajectory.time.size(), records, 0);
    writer.Flush();
  });
}

std::vector<RecordedGeometry> ReadTrajectoryGeometry(const Hdf5File& file) {
  const std::vector<long long> codes = file.ReadIntegers("/geometry/shape");
  const std::vector<std::string> bodies = file.ReadStrings("/geometry/body");
  const Eigen::VectorXd sizes = file.ReadDoubles("/geometry/size");
  const Eigen::VectorXd vertices = file.ReadDoubles("/geometry/mesh_vertices");
  const std::vector<long long> triangles = file.ReadIntegers("/geometry/mesh_triangles");
  const std::vector<long long> vertex_offsets =
      file.ReadIntegers("/geometry/mesh_vertex_offsets");
  const std::vector<long long> triangle_offsets =
      file.ReadIntegers("/geometry/mesh_triangle_offsets");
  const size_t count = codes.size();
  if (bodies.size() != count || static_cast<size_t>(sizes.size()) != 3 * count ||
      vertex_offsets.size() != count + 1 || triangle_offsets.size() != count + 1 ||
      3 * vertex_offsets.back() != vertices.size() ||
      3 * triangle_offsets.back() != static_cast<long long>(triangles.size())) {
    file.Fail("/geometry", "datasets of inconsistent sizes");
  }
  std::vector<RecordedGeometry> geometries;
  for (size_t g = 0; g < count; ++g) {
    if (codes[g] < 0 || codes[g] >= static_cast<long long>(std::variant_size_v<Shape>)) {
      file.Fail("/geometry/shape", "unknown shape code " + std::to_string(codes[g]));
    }
    RecordedGeometry& geometry = geometries.emplace_back(
        RecordedGeometry{MakeShape(codes[g], &sizes[3 * g]), bodies[g]});
    const bool convex = std::holds_alternative<ConvexMesh>(geometry.shape);
    if (!convex && !std::holds_alternative<SdfShape>(geometry.shape)) continue;
    TriangleMesh surface;
    const long long first = vertex_offsets[g], last = vertex_offsets[g + 1];
    for (long long v = first; v < last; ++v)
      surface.vertices.emplace_back(vertices.segment<3>(3 * v));
    for (long long t = triangle_offsets[g]; t < triangle_offsets[g + 1]; ++t) {
      std::array<int, 3>& triangle = surface.triangles.emplace_back();
      for (int k = 0; k < 3; ++k) {
        triangle[k] = static_cast<int>(triangles[3 * t + k]);
        if (triangle[k] < 0 || triangle[k] >= last - first)
          file.Fail("/geometry/mesh_triangles", "vertex index out of range");
      }
    }
    if (convex) {
      auto hull = std::make_shared<ConvexHull>();
      static_cast<TriangleMesh&>(*hull) = std::move(surface);
      geometry.shape = ConvexMesh{file.path(), std::move(hull)};
    } else {  // an SDF shape comes back as its display surface only (no field)
      geometry.shape = SdfShape{file.path(), nullptr,
                                std::make_shared<TriangleMesh>(std::move(surface))};
    }
  }
  return geometries;
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
  json.Add("line_search_iterations_mean", s.line_search_iterations_mean);
  json.Add("working_set_rounds_mean", s.working_set_rounds_mean);
  json.Add("tree_iterations_mean", s.tree_iterations_mean);
  json.Add("momentum_error_max", s.momentum_error_max);
  json.Add("ncp_residual_max", s.ncp_residual_max);
  json.Add("failed_steps", s.failed_steps);
  json.Add("roundoff_steps", s.roundoff_steps);
  json.Add("budget_ended_steps", s.budget_ended_steps);
  json.Add("symbolic_analysis_steps", s.symbolic_analysis_steps);
  json.Add("steps_solved_again", s.steps_solved_again);
  json.Add("penetration_max", s.penetration_max);
  json.Add("contacts_max", s.contacts_max);
  json.Add("near_rigid_contacts_max", s.near_rigid_contacts_max);
  json.Add("energy_initial", s.energy_initial);
  json.Add("energy_final", s.energy_final);
  json.Add("step_time_s", s.step_time_s);
  json.Add("geometry_time_s", s.geometry_time_s);
  json.Add("assembly_time_s", s.assembly_time_s);
  json.Add("solve_time_s", s.solve_time_s);
  if (!s.failure.empty()) json.Add("failure", s.failure);
  if (s.interrupted) json.Add("interrupted", true);
  return json;
}

namespace {

JsonObjectWriter StepJson(const StepRecord& record) {
  JsonObjectWriter step;
  step.Add("time", record.time);
  step.Add("converged", record.statistics.converged);
  step.Add("iterations", record.statistics.iterations);
  step.Add("line_search_iterations", record.statistics.line_search_iterations);
  step.Add("islands", record.statistics.islands);
  step.Add("working_set_rounds", record.statistics.working_set_rounds);
  step.Add("tree_iterations", record.statistics.tree_iterations);
  step.Add("contact_solves", record.statistics.contact_solves);
  step.Add("momentum_error", record.statistics.momentum_error);
  step.Add("complementarity_error", record.statistics.complementarity_error);
  step.Add("ncp_residual", record.statistics.ncp_residual);
  step.Add("contacts", record.statistics.num_contacts);
  step.Add("near_rigid_contacts", record.statistics.near_rigid_contacts);
  step.Add("converged_at_roundoff", record.statistics.converged_at_roundoff);
  step.Add("ended_at_budget", record.statistics.ended_at_budget);
  step.Add("symbolic_analysis", record.statistics.symbolic_analysis);
  step.Add("penetration_max", record.statistics.max_penetration);
  step.Add("energy", record.energy);
  step.Add("wall_time_s", record.statistics.wall_time_s);
  step.Add("geometry_time_s", record.statistics.geometry_time_s);
  step.Add("assembly_time_s", record.statistics.assembly_time_s);
  step.Add("solve_time_s", record.statistics.solve_time_s);
  return step;
}

}  // namespace

JsonObjectWriter RunStatisticsJson(const Scene& scene, const SimulationSummary& summary,
                                   const std::vector<StepRecord>& records) {
  JsonObjectWriter json = RunSummaryJson(scene, summary);
  std::vector<JsonObjectWriter> steps;
  for (const StepRecord& record : records) steps.push_back(StepJson(record));
  json.Add("per_step", steps);
  return json;
}

void WriteRunStatistics(const std::string& path, const Scene& scene,
                        const SimulationSummary& summary,
                        const std::vector<StepRecord>& records, bool running) {
  WriteRunStatistics(
      path, scene, summary,
      [&](const std::function<void(const StepRecord&)>& visit) {
        for (const StepRecord& record : records) visit(record);
      },
      running);
}

void WriteRunStatistics(const std::string& path, const Scene& scene,
                        const SimulationSummary& summary,
                        const StepRecordSource& for_each, bool running) {
  JsonObjectWriter head = RunSummaryJson(scene, summary);
  if (running) head.Add("running", true);
  const std::string object = head.str();
  WriteAtomically(path, [&](const std::string& partial) {
    // Streamed step by step: memory does not grow with the run's length.
    std::ofstream out(partial);
    out << std::string_view(object).substr(0, object.size() - 1) << ", \"per_step\": [";
    bool first = true;
    for_each([&](const StepRecord& record) {
      out << (first ? "" : ", ") << StepJson(record).str();
      first = false;
    });
    out << "]}\n";
    if (!out.flush()) throw std::runtime_error(path + ": cannot write");
  });
}

void WriteRunOutput(const std::string& directory, const Simulation& simulation,
                    const SimulationSummary& summary) {
  fs::create_directories(directory);
  const fs::path dir(directory);
  WriteTrajectory((dir / "trajectory.h5").string(), simulation.trajectory(),
                  simulation.records());
  WriteRunStatistics((dir / "stats.json").string(), simulation.scene(), summary,
                     simulation.records());
}

}  // namespace coulomb
