#include "coulomb/viewer/live_run.h"

#include "coulomb/io/run_output.h"

namespace coulomb {

LiveRun::LiveRun(const Simulation& simulation) {
  meta_.name = simulation.scene().name;
  meta_.live = true;
  meta_.time_step = simulation.time_step();
  meta_.geometries = simulation.trajectory().geometries;
  const Trajectory& trajectory = simulation.trajectory();
  meta_.first_poses.assign(trajectory.first_poses.begin(), trajectory.first_poses.end());
  meta_.moving = trajectory.moving_geometries;
  for (size_t t = 0; t < trajectory.sensors.size(); ++t) {
    if (trajectory.sensors[t].empty()) continue;
    meta_.sensors.push_back({trajectory.body_names[t], trajectory.sensors[t], {}});
    sensor_trees_.push_back(t);
  }
  Update(simulation);
  meta_.stats_json =
      RunStatisticsJson(simulation.scene(), simulation.Summary(), simulation.records())
          .str();
}

void LiveRun::Update(const Simulation& simulation) {
  const Trajectory& trajectory = simulation.trajectory();
  const std::lock_guard<std::mutex> lock(mutex_);
  // Samples the simulation discarded before this call took them are lost
  // to the page (it shows each frame's time).
  const size_t discarded = simulation.num_discarded_samples();
  const size_t first = next_sample_ > discarded ? next_sample_ - discarded : 0;
  next_sample_ = discarded + trajectory.time.size();
  for (size_t s = first; s < trajectory.time.size(); ++s) {
    meta_.time.push_back(trajectory.time[s]);
    const Eigen::Map<const Eigen::VectorXd> moving_poses = trajectory.geometry_poses[s];
    poses_.insert(poses_.end(), moving_poses.begin(), moving_poses.end());
    for (long long c = trajectory.contact_offsets[s];
         c < trajectory.contact_offsets[s + 1]; ++c) {
      const RecordedContact& contact = trajectory.contacts[c];
      for (const Eigen::Vector3d* field :
           {&contact.point, &contact.normal, &contact.impulse})
        contacts_.insert(contacts_.end(), field->data(), field->data() + 3);
      contacts_.push_back(static_cast<float>(contact.depth));
    }
    contact_offsets_.push_back(static_cast<uint32_t>(contacts_.size() / 10));
    for (size_t k = 0; k < sensor_trees_.size(); ++k) {
      const Eigen::Map<const Eigen::VectorXd> readings =
          trajectory.sensor_samples[sensor_trees_[k]][s];
      std::vector<double>& recorded = meta_.sensors[k].readings;
      recorded.insert(recorded.end(), readings.begin(), readings.end());
    }
  }
  if (since_stats_.Seconds() < kStatsPeriod) return;
  since_stats_.Restart();
  meta_.stats_json =
      RunStatisticsJson(simulation.scene(), simulation.Summary(), simulation.records())
          .str();
}

void LiveRun::Finish(const Simulation& simulation, const SimulationSummary& summary) {
  Update(simulation);
  const std::lock_guard<std::mutex> lock(mutex_);
  meta_.stats_json =
      RunStatisticsJson(simulation.scene(), summary, simulation.records()).str();
  meta_.live = false;
}

std::string LiveRun::Meta() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return MetaJson(meta_);
}

std::optional<std::string> LiveRun::Chunk(int index) const {
  const std::lock_guard<std::mutex> lock(mutex_);
  const size_t first = static_cast<size_t>(index) * kChunkFrames;
  const size_t frames = meta_.time.size();
  if (index < 0 || first >= frames) return std::nullopt;
  const size_t count = std::min<size_t>(kChunkFrames, frames - first);
  const int moving = static_cast<int>(meta_.moving.size());
  ReplayFrames chunk{
      static_cast<int>(first), static_cast<int>(count), moving, {}, {}, {}};
  const size_t pose_size = 7 * static_cast<size_t>(moving);
  chunk.poses.assign(poses_.begin() + first * pose_size,
                     poses_.begin() + (first + count) * pose_size);
  const uint32_t begin = contact_offsets_[first], end = contact_offsets_[first + count];
  for (size_t f = first; f <= first + count; ++f)
    chunk.offsets.push_back(contact_offsets_[f] - begin);
  chunk.contacts.assign(contacts_.begin() + 10 * begin, contacts_.begin() + 10 * end);
  return EncodeChunk(chunk);
}

}  // namespace coulomb
