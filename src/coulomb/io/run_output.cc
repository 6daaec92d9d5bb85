#include "coulomb/io/run_output.h"

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <utility>

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

// The name of each alternative of Shape (ShapeName), by its index.
std::vector<std::string> ShapeNames() {
  std::vector<std::string> names;
  [&]<size_t... kIndex>(std::index_sequence<kIndex...>) {
    (names.push_back(ShapeName(Shape(std::in_place_index<kIndex>))), ...);
  }
  (std::make_index_sequence<std::variant_size_v<Shape>>());
  return names;
}

// Per geometry: shape code (its index in the Shape variant, named by
// /geometry/shape_names), size (3 numbers, see run_output.h), body, and the
// hulls of convex meshes; per sample, every geometry's pose.
void WriteGeometry(Hdf5File* file, const Trajectory& trajectory) {
  std::vector<long long> codes, vertex_offsets{0}, triangles, triangle_offsets{0};
  std::vector<double> sizes, vertices;
  std::vector<std::string> bodies;
  for (const RecordedGeometry& geometry : trajectory.geometries) {
    codes.push_back(static_cast<long long>(geometry.shape.index()));
    bodies.push_back(geometry.body);
    Eigen::Vector3d size = Eigen::Vector3d::Zero();
    if (const auto* sphere = std::get_if<Sphere>(&geometry.shape))
      size.x() = sphere->radius;
    if (const auto* box = std::get_if<Box>(&geometry.shape)) size = box->size;
    if (const auto* capsule = std::get_if<Capsule>(&geometry.shape))
      size.head<2>() << capsule->radius, capsule->length;
    if (const auto* cylinder = std::get_if<Cylinder>(&geometry.shape))
      size.head<2>() << cylinder->radius, cylinder->length;
    sizes.insert(sizes.end(), size.data(), size.data() + 3);
    if (const auto* mesh = std::get_if<ConvexMesh>(&geometry.shape)) {
      for (const Eigen::Vector3d& vertex : mesh->hull->vertices)
        vertices.insert(vertices.end(), vertex.data(), vertex.data() + 3);
      for (const std::array<int, 3>& triangle : mesh->hull->triangles)
        triangles.insert(triangles.end(), triangle.begin(), triangle.end());
    }
    vertex_offsets.push_back(static_cast<long long>(vertices.size() / 3));
    triangle_offsets.push_back(static_cast<long long>(triangles.size() / 3));
  }
  file->WriteStrings("/geometry/shape_names", ShapeNames());
  file->WriteIntegers("/geometry/shape", codes);
  file->WriteMatrix("/geometry/size", sizes, codes.size(), 3);
  file->WriteStrings("/geometry/body", bodies);
  file->WriteMatrix("/geometry/mesh_vertices", vertices, vertices.size() / 3, 3);
  file->WriteIntegers("/geometry/mesh_vertex_offsets", vertex_offsets);
  file->WriteIntegers("/geometry/mesh_triangles", triangles);
  file->WriteIntegers("/geometry/mesh_triangle_offsets", triangle_offsets);
  WriteRows(file, "/geometry/poses", trajectory.geometry_poses);
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
    default:
      return ConvexMesh{};
  }
}

void WriteContacts(Hdf5File* file, const Trajectory& trajectory) {
  std::vector<long long> geometry_a, geometry_b;
  std::vector<double> points, normals, impulses;
  Eigen::VectorXd depths(trajectory.contacts.size());
  for (size_t i = 0; i < trajectory.contacts.size(); ++i) {
    const RecordedContact& contact = trajectory.contacts[i];
    geometry_a.push_back(contact.geometry_a);
    geometry_b.push_back(contact.geometry_b);
    points.insert(points.end(), contact.point.data(), contact.point.data() + 3);
    normals.insert(normals.end(), contact.normal.data(), contact.normal.data() + 3);
    impulses.insert(impulses.end(), contact.impulse.data(), contact.impulse.data() + 3);
    depths[static_cast<Eigen::Index>(i)] = contact.depth;
  }
  const size_t count = trajectory.contacts.size();
  file->WriteIntegers("/contacts/offsets", trajectory.contact_offsets);
  file->WriteIntegers("/contacts/geometry_a", geometry_a);
  file->WriteIntegers("/contacts/geometry_b", geometry_b);
  file->WriteMatrix("/contacts/point", points, count, 3);
  file->WriteMatrix("/contacts/normal", normals, count, 3);
  file->WriteMatrix("/contacts/impulse", impulses, count, 3);
  file->WriteDoubles("/contacts/depth", depths);
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
  WriteGeometry(&file, trajectory);
  WriteContacts(&file, trajectory);
}

}  // namespace

void WriteTrajectory(const std::string& path, const Trajectory& trajectory) {
  WriteAtomically(path, [&](const std::string& partial) {
    WriteTrajectoryFile(partial, trajectory);
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
    if (auto* mesh = std::get_if<ConvexMesh>(&geometry.shape)) {
      auto hull = std::make_shared<ConvexHull>();
      const long long first = vertex_offsets[g], last = vertex_offsets[g + 1];
      for (long long v = first; v < last; ++v)
        hull->vertices.emplace_back(vertices.segment<3>(3 * v));
      for (long long t = triangle_offsets[g]; t < triangle_offsets[g + 1]; ++t) {
        std::array<int, 3>& triangle = hull->triangles.emplace_back();
        for (int k = 0; k < 3; ++k) {
          triangle[k] = static_cast<int>(triangles[3 * t + k]);
          if (triangle[k] < 0 || triangle[k] >= last - first)
            file.Fail("/geometry/mesh_triangles", "vertex index out of range");
        }
      }
      *mesh = ConvexMesh{file.path(), hull};
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
  json.Add("momentum_error_max", s.momentum_error_max);
  json.Add("ncp_residual_max", s.ncp_residual_max);
  json.Add("failed_steps", s.failed_steps);
  json.Add("roundoff_steps", s.roundoff_steps);
  json.Add("penetration_max", s.penetration_max);
  json.Add("contacts_max", s.contacts_max);
  json.Add("near_rigid_contacts_max", s.near_rigid_contacts_max);
  json.Add("energy_initial", s.energy_initial);
  json.Add("energy_final", s.energy_final);
  if (!s.failure.empty()) json.Add("failure", s.failure);
  if (s.interrupted) json.Add("interrupted", true);
  return json;
}

JsonObjectWriter RunStatisticsJson(const Scene& scene, const SimulationSummary& summary,
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
    step.Add("near_rigid_contacts", record.statistics.near_rigid_contacts);
    step.Add("converged_at_roundoff", record.statistics.converged_at_roundoff);
    step.Add("penetration_max", record.statistics.max_penetration);
    step.Add("energy", record.energy);
    step.Add("wall_time_s", record.statistics.wall_time_s);
  }
  json.Add("per_step", steps);
  return json;
}

void WriteRunStatistics(const std::string& path, const Scene& scene,
                        const SimulationSummary& summary,
                        const std::vector<StepRecord>& records) {
  const JsonObjectWriter json = RunStatisticsJson(scene, summary, records);
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
