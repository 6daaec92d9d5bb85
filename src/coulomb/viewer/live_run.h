#pragma once

#include <mutex>
#include <string>
#include <vector>

#include "coulomb/base/stopwatch.h"
#include "coulomb/viewer/replay_source.h"

namespace coulomb {

// A run while it is computed (`coulomb run --view`): the stepping thread
// calls Update after each step, the server's threads read. Meta says
// live = true until Finish, and the page follows the frames as they come.
// Keeps its own float copy of the poses and contacts (the Simulation's
// trajectory is not shared across threads).
class LiveRun : public ReplaySource {
 public:
  explicit LiveRun(const Simulation& simulation);

  // Takes the samples the simulation recorded since the last call (and the
  // statistics, every kStatsPeriod). Samples it recorded and discarded
  // (Simulation::DiscardRecording) between two calls are lost to the page;
  // the frames after them still come.
  void Update(const Simulation& simulation);
  // The run is over: the page becomes a replay of what was recorded.
  void Finish(const Simulation& simulation, const SimulationSummary& summary);

  std::string Meta() const override;
  std::optional<std::string> Chunk(int index) const override;

 private:
  mutable std::mutex mutex_;
  ReplayMeta meta_;
  std::vector<float> poses_;
  std::vector<uint32_t> contact_offsets_{0};
  std::vector<float> contacts_;
  std::vector<size_t> sensor_trees_;  // the tree of each of meta_.sensors
  // The run's next sample to take (counting those the simulation discarded,
  // Simulation::num_discarded_samples).
  size_t next_sample_ = 0;
  // stats.json costs O(steps) to build: at most every kStatsPeriod seconds.
  static constexpr double kStatsPeriod = 0.25;
  Stopwatch since_stats_;
};

}  // namespace coulomb
