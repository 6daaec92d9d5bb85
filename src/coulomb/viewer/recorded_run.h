#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "coulomb/viewer/replay_source.h"

namespace coulomb {

class Hdf5File;

// A run written by `coulomb run --out DIR`: DIR/trajectory.h5 (geometry,
// poses, contacts; io/run_output.h) and DIR/stats.json (optional). Chunks
// are read from the file on demand (hyperslabs), so runs larger than memory
// can be viewed. Thread-safe: the server asks from several threads.
class RecordedRun : public ReplaySource {
 public:
  // Throws std::runtime_error naming the file when DIR has no readable
  // trajectory with geometry (older outputs: run the scene again).
  explicit RecordedRun(const std::string& directory);
  ~RecordedRun() override;

  std::string Meta() const override { return meta_json_; }
  std::optional<std::string> Chunk(int index) const override;
  const std::string& directory() const { return directory_; }

 private:
  std::string directory_;
  std::unique_ptr<Hdf5File> file_;
  mutable std::mutex mutex_;  // HDF5 is not thread-safe
  // first_poses_ and moving_ from /geometry/first_poses and /geometry/moving
  // (Trajectory's); a file without them records every geometry per frame.
  void ReadFixedPoses();

  size_t frames_ = 0;
  int geometries_ = 0;
  std::vector<double> first_poses_;
  std::vector<int> moving_;
  std::vector<long long> contact_offsets_;
  std::string meta_json_;
};

}  // namespace coulomb
