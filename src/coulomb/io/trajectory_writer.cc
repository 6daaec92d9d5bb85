#include "coulomb/io/trajectory_writer.h"

#include <algorithm>
#include <cstdio>
#include <utility>

namespace coulomb {
namespace {

// A body's sample (13 numbers) split into its datasets: name, first, count.
struct BodyField {
  const char* name;
  int first;
  int count;
};
constexpr BodyField kBodyFields[] = {{"position", 0, 3},
                                     {"orientation", 3, 4},
                                     {"linear_velocity", 7, 3},
                                     {"angular_velocity", 10, 3}};

// The numeric fields of a StepRecord as /steps datasets.
struct StepField {
  const char* name;
  double (*get)(const StepRecord&);
  void (*set)(StepRecord*, double);
};
#define COULOMB_STEP_FIELD(name, member)                                    \
  StepField {                                                               \
    name, [](const StepRecord& r) { return double(r.member); },             \
        [](StepRecord* r, double x) { r->member = decltype(r->member)(x); } \
  }
const StepField kStepFields[] = {
    COULOMB_STEP_FIELD("time", time),
    COULOMB_STEP_FIELD("converged", statistics.converged),
    COULOMB_STEP_FIELD("iterations", statistics.iterations),
    COULOMB_STEP_FIELD("line_search_iterations", statistics.line_search_iterations),
    COULOMB_STEP_FIELD("islands", statistics.islands),
    COULOMB_STEP_FIELD("working_set_rounds", statistics.working_set_rounds),
    COULOMB_STEP_FIELD("tree_iterations", statistics.tree_iterations),
    COULOMB_STEP_FIELD("contact_solves", statistics.contact_solves),
    COULOMB_STEP_FIELD("momentum_error", statistics.momentum_error),
    COULOMB_STEP_FIELD("complementarity_error", statistics.complementarity_error),
    COULOMB_STEP_FIELD("ncp_residual", statistics.ncp_residual),
    COULOMB_STEP_FIELD("contacts", statistics.num_contacts),
    COULOMB_STEP_FIELD("near_rigid_contacts", statistics.near_rigid_contacts),
    COULOMB_STEP_FIELD("converged_at_roundoff", statistics.converged_at_roundoff),
    COULOMB_STEP_FIELD("ended_at_budget", statistics.ended_at_budget),
    COULOMB_STEP_FIELD("symbolic_analysis", statistics.symbolic_analysis),
    COULOMB_STEP_FIELD("penetration_max", statistics.max_penetration),
    COULOMB_STEP_FIELD("energy", energy),
    COULOMB_STEP_FIELD("wall_time_s", statistics.wall_time_s),
    COULOMB_STEP_FIELD("geometry_time_s", statistics.geometry_time_s),
    COULOMB_STEP_FIELD("assembly_time_s", statistics.assembly_time_s),
    COULOMB_STEP_FIELD("solve_time_s", statistics.solve_time_s)};
#undef COULOMB_STEP_FIELD

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
// /geometry/shape_names), size, body, the surfaces of convex meshes and SDF
// shapes, its first pose, and which move (Trajectory::moving_geometries,
// whose poses /geometry/poses holds per sample).
void WriteGeometries(Hdf5File* file, const Trajectory& trajectory) {
  const std::vector<RecordedGeometry>& geometries = trajectory.geometries;
  std::vector<long long> codes, vertex_offsets{0}, triangles, triangle_offsets{0};
  std::vector<double> sizes, vertices;
  std::vector<std::string> bodies;
  for (const RecordedGeometry& geometry : geometries) {
    codes.push_back(static_cast<long long>(geometry.shape.index()));
    bodies.push_back(geometry.body);
    const Eigen::Vector3d size = ShapeSize(geometry.shape);
    sizes.insert(sizes.end(), size.data(), size.data() + 3);
    if (const TriangleMesh* mesh = SurfaceMesh(geometry.shape)) {
      for (const Eigen::Vector3d& vertex : mesh->vertices)
        vertices.insert(vertices.end(), vertex.data(), vertex.data() + 3);
      for (const std::array<int, 3>& triangle : mesh->triangles)
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
  file->WriteMatrix("/geometry/first_poses",
                    {trajectory.first_poses.data(),
                     trajectory.first_poses.data() + trajectory.first_poses.size()},
                    geometries.size(), 7);
  file->WriteIntegers("/geometry/moving", {trajectory.moving_geometries.begin(),
                                           trajectory.moving_geometries.end()});
}

// Rows [first, end) of `rows` appended to the growable matrix `dataset`
// (Hdf5File::AppendRows refuses rows of another width than its columns).
void AppendVectors(Hdf5File* file, const std::string& dataset, const SampleRows& rows,
                   size_t first) {
  const auto cols = static_cast<size_t>(rows.width());
  file->AppendRows(dataset, rows.data() + first * cols, rows.size() - first, cols);
}

void AppendContacts(Hdf5File* file, const SegmentedArray<RecordedContact>& contacts,
                    size_t first) {
  std::vector<long long> geometry_a, geometry_b;
  std::vector<double> points, normals, impulses, depths;
  for (size_t i = first; i < contacts.size(); ++i) {
    const RecordedContact& contact = contacts[i];
    geometry_a.push_back(contact.geometry_a);
    geometry_b.push_back(contact.geometry_b);
    points.insert(points.end(), contact.point.data(), contact.point.data() + 3);
    normals.insert(normals.end(), contact.normal.data(), contact.normal.data() + 3);
    impulses.insert(impulses.end(), contact.impulse.data(), contact.impulse.data() + 3);
    depths.push_back(contact.depth);
  }
  const size_t count = contacts.size() - first;
  file->AppendIntegers("/contacts/geometry_a", geometry_a.data(), count);
  file->AppendIntegers("/contacts/geometry_b", geometry_b.data(), count);
  file->AppendRows("/contacts/point", points.data(), count, 3);
  file->AppendRows("/contacts/normal", normals.data(), count, 3);
  file->AppendRows("/contacts/impulse", impulses.data(), count, 3);
  file->AppendRows("/contacts/depth", depths.data(), count, 0);
}

std::string StepDataset(const StepField& field) {
  return std::string("/steps/") + field.name;
}

std::string BodyDataset(const std::string& body, const BodyField& field) {
  return "/bodies/" + body + "/" + field.name;
}

// A robot's sensor dataset: `readings` (T × its sensors' numbers, Trajectory::
// sensor_samples), `names` and `columns` (offsets: sensor k reads columns
// [columns[k], columns[k + 1]) of a row).
std::string SensorDataset(const std::string& robot, const char* dataset) {
  return "/sensors/" + robot + "/" + dataset;
}

// Each robot's sensor names and columns, and its readings dataset (no rows).
void WriteSensorNames(Hdf5File* file, const Trajectory& trajectory) {
  for (size_t t = 0; t < trajectory.sensors.size(); ++t) {
    if (trajectory.sensors[t].empty()) continue;
    const std::string& robot = trajectory.body_names[t];
    std::vector<std::string> names;
    std::vector<long long> columns{0};
    for (const RecordedSensor& sensor : trajectory.sensors[t]) {
      names.push_back(sensor.name);
      columns.push_back(columns.back() + sensor.dimension);
    }
    file->WriteStrings(SensorDataset(robot, "names"), names);
    file->WriteIntegers(SensorDataset(robot, "columns"), columns);
    file->AppendRows(SensorDataset(robot, "readings"), nullptr, 0,
                     static_cast<size_t>(columns.back()));
  }
}

const char* const kContactDatasets[] = {"/contacts/geometry_a", "/contacts/geometry_b",
                                        "/contacts/point",      "/contacts/normal",
                                        "/contacts/impulse",    "/contacts/depth"};

}  // namespace

CompleteRecord FindCompleteRecord(const Hdf5File& file) {
  const auto rows = [&](const std::string& dataset) {
    return file.Dimensions(dataset)[0];
  };
  CompleteRecord complete;
  complete.samples = rows("/time");
  for (const char* dataset : {"/q", "/v", "/geometry/poses"})
    complete.samples = std::min(complete.samples, rows(dataset));
  for (const std::string& body : file.ReadStrings("/bodies/names")) {
    for (const BodyField& field : kBodyFields)
      complete.samples = std::min(complete.samples, rows(BodyDataset(body, field)));
    if (file.Exists(SensorDataset(body, "readings")))
      complete.samples =
          std::min(complete.samples, rows(SensorDataset(body, "readings")));
  }
  const std::vector<long long> offsets = file.ReadIntegers("/contacts/offsets");
  if (offsets.empty()) file.Fail("/contacts/offsets", "is empty");
  complete.samples = std::min(complete.samples, offsets.size() - 1);
  size_t contact_rows = rows(kContactDatasets[0]);
  for (const char* dataset : kContactDatasets)
    contact_rows = std::min(contact_rows, rows(dataset));
  while (complete.samples > 0 &&
         offsets[complete.samples] > static_cast<long long>(contact_rows))
    --complete.samples;
  complete.contacts = offsets[complete.samples];

  size_t step_rows = rows("/steps/time");
  for (const StepField& field : kStepFields)
    if (file.Exists(StepDataset(field)))
      step_rows = std::min(step_rows, rows(StepDataset(field)));
  const std::vector<double> step_times = file.ReadRows("/steps/time", 0, step_rows);
  const double last_time =
      complete.samples > 0 ? file.ReadRows("/time", complete.samples - 1, 1)[0] : 0.0;
  while (complete.steps < step_rows && step_times[complete.steps] <= last_time)
    ++complete.steps;
  return complete;
}

// Both constructors build PATH.partial and rename it: if that fails, the
// partial file is removed (the handler runs once file_ is closed) and the
// error goes on.
TrajectoryWriter::TrajectoryWriter(const std::string& path, const Trajectory& trajectory,
                                   const RunDescription& description) try
    : file_(path + ".partial", Hdf5File::Mode::kCreateGrowing),
      body_names_(trajectory.body_names) {
  if (!description.arguments.empty())
    file_.WriteStrings("/run/arguments", description.arguments);
  if (!description.scene_text.empty())
    file_.WriteStrings("/run/scene_text", {description.scene_text});
  file_.WriteStrings("/bodies/names", body_names_);
  file_.WriteDoubles("/time_step", Eigen::VectorXd::Constant(1, trajectory.time_step));
  WriteGeometries(&file_, trajectory);
  WriteSensorNames(&file_, trajectory);
  const long long first_offset = 0;
  file_.AppendIntegers("/contacts/offsets", &first_offset, 1);
  // The samples so far: every growable dataset exists from the start.
  Append(trajectory, 0, {}, 0);
  file_.StartSingleWriter();
  Flush();
  file_.Rename(path);  // the file appears readable, never half-built
} catch (...) {
  std::remove((path + ".partial").c_str());
}

TrajectoryWriter::TrajectoryWriter(const std::string& path, const Hdf5File& recorded,
                                   const CompleteRecord& complete) try
    : file_(path + ".partial", Hdf5File::Mode::kCreateGrowing) {
  CopyCompleteSamples(recorded, complete);
  file_.StartSingleWriter();
  Flush();
  file_.Rename(path);
} catch (...) {
  std::remove((path + ".partial").c_str());
}

void TrajectoryWriter::CopyCompleteSamples(const Hdf5File& recorded,
                                           const CompleteRecord& complete) {
  samples_ = complete.samples;
  contacts_ = complete.contacts;
  if (recorded.Exists("/run")) file_.CopyObject(recorded, "/run");
  // Written when the file was created, never grown: the body names, the time
  // step (not in files written before it was) and every geometry dataset but
  // the poses.
  file_.CopyObject(recorded, "/bodies/names");
  if (recorded.Exists("/time_step")) file_.CopyObject(recorded, "/time_step");
  for (const std::string& name : recorded.Members("/geometry"))
    if (name != "poses") file_.CopyObject(recorded, "/geometry/" + name);
  file_.CopyRows(recorded, "/contacts/offsets", samples_ + 1);
  for (const char* dataset : kContactDatasets)
    file_.CopyRows(recorded, dataset, static_cast<size_t>(contacts_));
  for (const char* dataset : {"/time", "/q", "/v", "/geometry/poses"})
    file_.CopyRows(recorded, dataset, samples_);
  body_names_ = recorded.ReadStrings("/bodies/names");
  for (const std::string& body : body_names_) {
    for (const BodyField& field : kBodyFields)
      file_.CopyRows(recorded, BodyDataset(body, field), samples_);
    // (A file written before sensors were recorded has none: they stay out.)
    if (!recorded.Exists(SensorDataset(body, "readings"))) continue;
    file_.CopyObject(recorded, SensorDataset(body, "names"));
    file_.CopyObject(recorded, SensorDataset(body, "columns"));
    file_.CopyRows(recorded, SensorDataset(body, "readings"), samples_);
  }
  for (const StepField& field : kStepFields) {
    const std::string dataset = StepDataset(field);
    if (recorded.Exists(dataset)) {
      file_.CopyRows(recorded, dataset, complete.steps);
    } else {  // a field newer than the file: zero for the steps it holds
      const std::vector<double> zeros(complete.steps, 0.0);
      file_.AppendRows(dataset, zeros.data(), complete.steps, 0);
    }
  }
}

void TrajectoryWriter::Append(const Trajectory& trajectory, size_t first,
                              const std::vector<StepRecord>& records,
                              size_t first_record) {
  const size_t end = trajectory.time.size();
  if (first > end || first_record > records.size())
    throw std::invalid_argument("TrajectoryWriter::Append: no such sample or record");
  for (const StepField& field : kStepFields) {
    std::vector<double> values;
    for (size_t r = first_record; r < records.size(); ++r)
      values.push_back(field.get(records[r]));
    file_.AppendRows(StepDataset(field), values.data(), values.size(), 0);
  }
  for (size_t body = 0; body < body_names_.size(); ++body) {
    for (const BodyField& field : kBodyFields) {
      std::vector<double> values;
      for (size_t s = first; s < end; ++s) {
        const auto& sample = trajectory.body_samples[body][s];
        values.insert(values.end(), sample.data() + field.first,
                      sample.data() + field.first + field.count);
      }
      file_.AppendRows(BodyDataset(body_names_[body], field), values.data(), end - first,
                       field.count);
    }
  }
  if (end > first) {
    AppendVectors(&file_, "/q", trajectory.q, first);
    AppendVectors(&file_, "/v", trajectory.v, first);
    AppendVectors(&file_, "/geometry/poses", trajectory.geometry_poses, first);
    AppendSensors(trajectory, first);
    const long long first_contact = trajectory.contact_offsets[first];
    AppendContacts(&file_, trajectory.contacts, static_cast<size_t>(first_contact));
    std::vector<long long> offsets;
    for (size_t s = first; s < end; ++s)
      offsets.push_back(contacts_ + trajectory.contact_offsets[s + 1] - first_contact);
    file_.AppendIntegers("/contacts/offsets", offsets.data(), offsets.size());
    contacts_ = offsets.back();
  }
  file_.AppendRows("/time", trajectory.time.data() + first, end - first, 0);
  samples_ += end - first;
}

void TrajectoryWriter::AppendSensors(const Trajectory& trajectory, size_t first) {
  for (size_t t = 0; t < trajectory.sensors.size(); ++t) {
    const std::string readings = SensorDataset(trajectory.body_names[t], "readings");
    if (trajectory.sensors[t].empty() || !file_.Exists(readings)) continue;
    AppendVectors(&file_, readings, trajectory.sensor_samples[t], first);
  }
}

std::vector<RobotSensorRecord> ReadRobotSensorRecords(const Hdf5File& file,
                                                      size_t frames) {
  std::vector<RobotSensorRecord> records;
  if (!file.Exists("/bodies/names")) return records;
  for (const std::string& robot : file.ReadStrings("/bodies/names")) {
    const std::string names_at = SensorDataset(robot, "names"),
                      columns_at = SensorDataset(robot, "columns"),
                      readings_at = SensorDataset(robot, "readings");
    if (!file.Exists(readings_at)) continue;
    RobotSensorRecord record{robot, {}, {}};
    const std::vector<std::string> names = file.ReadStrings(names_at);
    const std::vector<long long> columns = file.ReadIntegers(columns_at);
    if (columns.size() != names.size() + 1 || columns.front() != 0)
      file.Fail(columns_at, "expected 0 and one offset per sensor name");
    for (size_t k = 0; k < names.size(); ++k) {
      const long long dimension = columns[k + 1] - columns[k];
      if (dimension < 1) file.Fail(columns_at, "expected increasing offsets");
      record.sensors.push_back({names[k], static_cast<int>(dimension)});
    }
    const std::vector<size_t> shape = file.Dimensions(readings_at);
    if (shape.size() != 2 || shape[0] < frames ||
        shape[1] != static_cast<size_t>(columns.back())) {
      file.Fail(readings_at, "expected " + std::to_string(frames) + " × " +
                                 std::to_string(columns.back()));
    }
    record.readings = file.ReadRows(readings_at, 0, frames);
    records.push_back(std::move(record));
  }
  return records;
}

void VisitStepRecords(const Hdf5File& file,
                      const std::function<void(const StepRecord&)>& visit) {
  constexpr size_t kBlock = 4096;
  const size_t steps = file.Dimensions("/steps/time")[0];
  std::vector<const StepField*> stored;  // a field newer than the file reads 0
  for (const StepField& field : kStepFields)
    if (file.Exists(StepDataset(field))) stored.push_back(&field);
  std::vector<StepRecord> block;
  for (size_t first = 0; first < steps; first += kBlock) {
    const size_t count = std::min(kBlock, steps - first);
    block.assign(count, StepRecord{});
    for (const StepField* field : stored) {
      const std::vector<double> values = file.ReadRows(StepDataset(*field), first, count);
      for (size_t r = 0; r < count; ++r) field->set(&block[r], values[r]);
    }
    for (const StepRecord& record : block) visit(record);
  }
}

RunDescription ReadRunDescription(const Hdf5File& file) {
  if (!file.Exists("/run/arguments"))
    file.Fail("/run/arguments",
              "missing: not written by coulomb run --out, cannot resume");
  RunDescription description;
  description.arguments = file.ReadStrings("/run/arguments");
  if (file.Exists("/run/scene_text"))
    description.scene_text = file.ReadStrings("/run/scene_text").at(0);
  return description;
}

LastSample ReadLastSample(const Hdf5File& file, const CompleteRecord& complete) {
  LastSample last;
  const size_t samples = complete.samples;
  if (samples == 0) file.Fail("/time", "has no complete sample");
  last.index = samples - 1;
  last.time = file.ReadRows("/time", last.index, 1)[0];
  const auto row = [&](const std::string& dataset) {
    const std::vector<double> values = file.ReadRows(dataset, last.index, 1);
    return Eigen::VectorXd(Eigen::Map<const Eigen::VectorXd>(
        values.data(), static_cast<Eigen::Index>(values.size())));
  };
  last.q = row("/q");
  last.v = row("/v");
  // Only the last sample's rows are read (integers below 2⁵³ are exact as
  // doubles): a resume reads no dataset whole but those FindCompleteRecord
  // measures.
  const std::vector<double> offsets = file.ReadRows("/contacts/offsets", last.index, 2);
  const auto first = static_cast<long long>(offsets[0]);
  const auto count = static_cast<long long>(offsets[1]) - first;
  const std::vector<double> a = file.ReadRows("/contacts/geometry_a", first, count);
  const std::vector<double> b = file.ReadRows("/contacts/geometry_b", first, count);
  const std::vector<double> points = file.ReadRows("/contacts/point", first, count);
  const std::vector<double> normals = file.ReadRows("/contacts/normal", first, count);
  const std::vector<double> impulses = file.ReadRows("/contacts/impulse", first, count);
  const std::vector<double> depths = file.ReadRows("/contacts/depth", first, count);
  for (long long i = 0; i < count; ++i) {
    last.contacts.push_back(
        {static_cast<int>(a[i]), static_cast<int>(b[i]), Eigen::Vector3d(&points[3 * i]),
         Eigen::Vector3d(&normals[3 * i]), Eigen::Vector3d(&impulses[3 * i]), depths[i]});
  }
  return last;
}

}  // namespace coulomb
