#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "coulomb/io/robot_sensor_record.h"
#include "coulomb/sim/simulation.h"

namespace coulomb {

// What the viewer page (viewer/src) reads from a run: its meta data as JSON
// and its frames in binary chunks of kChunkFrames frames, so that long runs
// stream instead of loading whole.
//
// Meta data: {name, frames, chunk_frames, live, time_step, scene_size,
// time: [frame times], geometries: [{shape, body, size, radius, vertices,
// triangles}], first_poses: [[x, y, z, qw, qx, qy, qz] per geometry],
// moving: [the geometries whose poses the chunks carry, ascending], stats:
// the run's stats.json, sensors: [{robot, names, dimensions, readings:
// frames × Σ dimensions, row-major}]}. A geometry not in `moving` stays at
// its first pose (a floor, a wall, a height field's prisms), so that a
// frame costs 28 bytes per moving geometry only. Chunk format:
// viewer/src/data.js (a header, float32 poses of the moving geometries,
// uint32 contact offsets, float32 contact rows).
class ReplaySource {
 public:
  static constexpr int kChunkFrames = 128;

  virtual ~ReplaySource() = default;
  virtual std::string Meta() const = 0;
  // Chunk `index`, or nullopt when it starts past the last frame.
  virtual std::optional<std::string> Chunk(int index) const = 0;
};

// Frames [first, first + count) of a run, as the chunk format carries them.
struct ReplayFrames {
  int first = 0;
  int count = 0;
  int moving = 0;                 // geometries with a pose per frame
  std::vector<float> poses;       // count × moving × 7
  std::vector<uint32_t> offsets;  // count + 1, from 0
  std::vector<float> contacts;    // 10 per contact: point, normal, impulse, depth
};
std::string EncodeChunk(const ReplayFrames& frames);

// The meta data (see above); `stats_json` is the text of stats.json ("{}"
// when there is none).
struct ReplayMeta {
  std::string name;
  bool live = false;
  double time_step = 0.0;
  std::vector<double> time;
  std::vector<RecordedGeometry> geometries;
  std::vector<double> first_poses;  // 7 per geometry
  std::vector<int> moving;          // ascending geometry indices
  std::string stats_json = "{}";
  std::vector<RobotSensorRecord> sensors;  // robots without sensors left out
};
std::string MetaJson(const ReplayMeta& meta);

}  // namespace coulomb
