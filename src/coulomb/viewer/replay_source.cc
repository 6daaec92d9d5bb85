#include "coulomb/viewer/replay_source.h"

#include <cstring>

#include "coulomb/geometry/shape.h"
#include "coulomb/io/json_writer.h"

namespace coulomb {
namespace {

template <class T>
void Append(std::string* bytes, const std::vector<T>& values) {
  const size_t size = values.size() * sizeof(T);
  const size_t at = bytes->size();
  bytes->resize(at + size);
  if (size > 0) std::memcpy(bytes->data() + at, values.data(), size);
}

JsonObjectWriter GeometryJson(const RecordedGeometry& geometry) {
  JsonObjectWriter json;
  json.Add("shape", ShapeName(geometry.shape));
  json.Add("body", geometry.body);
  const Eigen::Vector3d size = ShapeSize(geometry.shape);
  json.Add("size", std::vector<double>(size.data(), size.data() + 3));
  const double radius = BoundingRadius(geometry.shape);
  json.Add("radius", std::isfinite(radius) ? radius : 0.0);
  std::vector<double> vertices;
  std::vector<int> triangles;
  if (const TriangleMesh* mesh = SurfaceMesh(geometry.shape)) {
    for (const Eigen::Vector3d& vertex : mesh->vertices)
      vertices.insert(vertices.end(), vertex.data(), vertex.data() + 3);
    for (const std::array<int, 3>& triangle : mesh->triangles)
      triangles.insert(triangles.end(), triangle.begin(), triangle.end());
  }
  json.Add("vertices", vertices);
  json.Add("triangles", triangles);
  return json;
}

// Diameter [m] of the moving geometry's bounding box at the first frame
// (of all bounded geometry when nothing moves; 1 m when there is none): the
// page sizes its force arrows by it.
double SceneSize(const ReplayMeta& meta) {
  Eigen::AlignedBox3d moving, all;
  for (size_t g = 0; g < meta.geometries.size(); ++g) {
    const double radius = BoundingRadius(meta.geometries[g].shape);
    if (!std::isfinite(radius)) continue;
    const Eigen::Vector3d center(&meta.first_poses[7 * g]);
    for (Eigen::AlignedBox3d* box : {&moving, &all}) {
      if (box == &moving && meta.geometries[g].body == "world") continue;
      box->extend(center - Eigen::Vector3d::Constant(radius));
      box->extend(center + Eigen::Vector3d::Constant(radius));
    }
  }
  const Eigen::AlignedBox3d& box = moving.isEmpty() ? all : moving;
  return box.isEmpty() ? 1.0 : std::max(box.diagonal().norm(), 0.1);
}

JsonObjectWriter SensorsJson(const RobotSensorRecord& robot) {
  JsonObjectWriter json;
  json.Add("robot", robot.robot);
  std::vector<std::string> names;
  std::vector<int> dimensions;
  for (const RecordedSensor& sensor : robot.sensors) {
    names.push_back(sensor.name);
    dimensions.push_back(sensor.dimension);
  }
  json.Add("names", names);
  json.Add("dimensions", dimensions);
  json.Add("readings", robot.readings);
  return json;
}

}  // namespace

std::string EncodeChunk(const ReplayFrames& frames) {
  const uint32_t header[4] = {static_cast<uint32_t>(frames.first),
                              static_cast<uint32_t>(frames.count),
                              static_cast<uint32_t>(frames.moving),
                              static_cast<uint32_t>(frames.contacts.size() / 10)};
  std::string bytes(reinterpret_cast<const char*>(header), sizeof(header));
  Append(&bytes, frames.poses);
  Append(&bytes, frames.offsets);
  Append(&bytes, frames.contacts);
  return bytes;
}

std::string MetaJson(const ReplayMeta& meta) {
  JsonObjectWriter json;
  json.Add("name", meta.name);
  json.Add("frames", static_cast<int>(meta.time.size()));
  json.Add("chunk_frames", ReplaySource::kChunkFrames);
  json.Add("live", meta.live);
  json.Add("time_step", meta.time_step);
  json.Add("scene_size", SceneSize(meta));
  json.Add("time", meta.time);
  std::vector<JsonObjectWriter> geometries;
  for (const RecordedGeometry& geometry : meta.geometries)
    geometries.push_back(GeometryJson(geometry));
  json.Add("geometries", geometries);
  std::string poses = "[";
  for (size_t g = 0; g < meta.geometries.size(); ++g) {
    const double* pose = &meta.first_poses[7 * g];
    poses +=
        (g > 0 ? "," : "") + JsonObjectWriter::Array(std::vector<double>(pose, pose + 7));
  }
  json.AddJson("first_poses", poses + "]");
  json.Add("moving", meta.moving);
  json.AddJson("stats", meta.stats_json);
  std::vector<JsonObjectWriter> sensors;
  for (const RobotSensorRecord& robot : meta.sensors)
    sensors.push_back(SensorsJson(robot));
  json.Add("sensors", sensors);
  return json.str();
}

}  // namespace coulomb
