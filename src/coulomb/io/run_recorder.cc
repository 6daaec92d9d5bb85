#include "coulomb/io/run_recorder.h"

#include <sys/resource.h>
#include <sys/statvfs.h>

#include <filesystem>
#include <limits>
#include <optional>
#include <stdexcept>

#include "coulomb/io/run_output.h"

namespace coulomb {
namespace {

namespace fs = std::filesystem;

std::string TrajectoryPath(const std::string& directory) {
  return (fs::path(directory) / "trajectory.h5").string();
}

// trajectory.h5 in a folder created first (errors name the folder).
TrajectoryWriter CreateTrajectory(const std::string& directory,
                                  const Trajectory& trajectory,
                                  const RunDescription& description) {
  std::error_code error;
  fs::create_directories(directory, error);
  if (error)
    throw std::runtime_error(directory + ": cannot create (" + error.message() + ")");
  return TrajectoryWriter(TrajectoryPath(directory), trajectory, description);
}

// Refuses a recording of another scene than `simulation`'s.
void CheckSameScene(const Hdf5File& file, const Simulation& simulation,
                    const LastSample& last) {
  const size_t geometries = file.Dimensions("/geometry/shape")[0];
  if (geometries != simulation.trajectory().geometries.size() ||
      last.q.size() != simulation.q().size() || last.v.size() != simulation.v().size()) {
    file.Fail("/", "recorded from another scene (" + std::to_string(geometries) +
                       " geometries, " + std::to_string(last.q.size()) + " positions)");
  }
}

// Bytes a file in `directory` may still grow by: the free space of its file
// system and the process's file size limit (ulimit -f), whichever is less.
double RoomForGrowth(const std::string& directory, const std::string& file) {
  double room = std::numeric_limits<double>::infinity();
  struct statvfs disk;
  if (statvfs(directory.c_str(), &disk) == 0)
    room = static_cast<double>(disk.f_bavail) * static_cast<double>(disk.f_frsize);
  struct rlimit limit;
  std::error_code error;
  const auto size = fs::file_size(file, error);
  if (getrlimit(RLIMIT_FSIZE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY && !error)
    room =
        std::min(room, static_cast<double>(limit.rlim_cur) - static_cast<double>(size));
  return room;
}

// An upper estimate of the bytes the samples and records not yet written
// take on disk: their numbers, doubled for chunks and index, plus 1 MB.
double BatchBytes(const Trajectory& trajectory, size_t first_sample, size_t new_records) {
  const size_t samples = trajectory.time.size() - first_sample;
  size_t numbers = 0;
  if (samples > 0) {
    numbers += samples * (1 + trajectory.q.width() + trajectory.v.width() +
                          trajectory.geometry_poses.width() +
                          13 * trajectory.body_samples.size() + 1);
    numbers +=
        11 * (trajectory.contacts.size() - trajectory.contact_offsets[first_sample]);
  }
  numbers += 12 * new_records;
  return 2.0 * 8.0 * static_cast<double>(numbers) + 1e6;
}

}  // namespace

RunRecorder::RunRecorder(const std::string& directory, Simulation* simulation,
                         bool keep_in_memory, Cadence cadence,
                         const RunDescription& description)
    : RunRecorder(CreateTrajectory(directory, simulation->trajectory(), description),
                  directory, simulation, keep_in_memory, cadence) {}

RunRecorder::RunRecorder(TrajectoryWriter writer, std::string directory,
                         Simulation* simulation, bool keep_in_memory, Cadence cadence)
    : writer_(std::move(writer)),
      directory_(std::move(directory)),
      simulation_(simulation),
      keep_in_memory_(keep_in_memory),
      cadence_(cadence),
      summary_(simulation->initial_energy(), simulation->time_step()),
      // A new file holds the samples recorded so far (a resumed run has
      // discarded its recording: none).
      samples_written_(simulation->trajectory().time.size()),
      flushed_sim_time_(simulation->time()) {
  if (!simulation_->recording())
    throw std::invalid_argument("RunRecorder: the simulation must be recording");
}

RunRecorder RunRecorder::Resume(const std::string& directory, Simulation* simulation,
                                bool keep_in_memory, Cadence cadence) {
  const std::string path = TrajectoryPath(directory);
  LastSample last;
  std::optional<TrajectoryWriter> writer;
  {
    const Hdf5File recorded(path, Hdf5File::Mode::kRead);
    const CompleteRecord complete = FindCompleteRecord(recorded);
    last = ReadLastSample(recorded, complete);
    CheckSameScene(recorded, *simulation, last);
    writer.emplace(path, recorded, complete);
  }
  simulation->SetState(last.q, last.v);
  simulation->set_time(last.time);
  simulation->RestoreImpulseWarmStart(last.contacts);
  simulation->DiscardRecording();  // the file holds the state resumed from
  RunRecorder recorder(std::move(*writer), directory, simulation, keep_in_memory,
                       cadence);
  recorder.resumed_ = true;
  VisitStepRecords(recorder.writer_.file(),
                   [&](const StepRecord& record) { recorder.Count(record); });
  return recorder;
}

void RunRecorder::Count(const StepRecord& record) {
  summary_.Add(record);
  ++steps_;
  last_step_ = record;
}

void RunRecorder::AfterStep() {
  // (Half a step of slack: the clock accumulates round-off.)
  const double half_step = 0.5 * simulation_->time_step();
  // stats.json lists the steps the file holds: it is written after a flush.
  const bool statistics_due = since_statistics_.Seconds() >= cadence_.wall_seconds;
  if (statistics_due ||
      simulation_->time() - flushed_sim_time_ >= cadence_.sim_seconds - half_step ||
      since_flush_.Seconds() >= cadence_.wall_seconds) {
    Flush();
  }
  if (statistics_due) WriteStatistics(summary_.Finish(), true);
}

void RunRecorder::Flush() {
  try {
    WriteNew();
  } catch (const std::runtime_error& error) {
    throw RunOutputError(error.what());
  }
}

void RunRecorder::WriteNew() {
  const std::vector<StepRecord>& records = simulation_->records();
  // HDF5 leaves a file unreadable when a write fails half-way: a batch is
  // written only where it fits, so a full disk stops the run with the file
  // as it was at the last flush.
  const double needed = BatchBytes(simulation_->trajectory(), samples_written_,
                                   records.size() - records_written_);
  const double room = RoomForGrowth(directory_, TrajectoryPath(directory_));
  if (room < needed) {
    throw RunOutputError(TrajectoryPath(directory_) + ": no room for the next " +
                         std::to_string(static_cast<long long>(needed / 1e6)) + " MB (" +
                         std::to_string(static_cast<long long>(room / 1e6)) +
                         " MB left)");
  }
  for (size_t r = records_written_; r < records.size(); ++r) Count(records[r]);
  writer_.Append(simulation_->trajectory(), samples_written_, records, records_written_);
  writer_.Flush();
  if (keep_in_memory_) {
    samples_written_ = simulation_->trajectory().time.size();
    records_written_ = records.size();
  } else {
    simulation_->DiscardRecording();
    samples_written_ = records_written_ = 0;
  }
  flushed_sim_time_ = simulation_->time();
  since_flush_.Restart();
}

SimulationSummary RunRecorder::Finish(const SimulationSummary& part) {
  Flush();
  SimulationSummary summary = part;
  if (resumed_) {
    summary = summary_.Finish();
    summary.failure = part.failure;
    summary.interrupted = part.interrupted;
  }
  WriteStatistics(summary, false);
  return summary;
}

void RunRecorder::WriteStatistics(const SimulationSummary& summary, bool running) {
  try {
    const Hdf5File& file = writer_.file();
    WriteRunStatistics((fs::path(directory_) / "stats.json").string(),
                       simulation_->scene(), summary,
                       [&](const std::function<void(const StepRecord&)>& visit) {
                         VisitStepRecords(file, visit);
                       },
                       running);
  } catch (const std::runtime_error& error) {
    throw RunOutputError(error.what());
  }
  since_statistics_.Restart();
}

}  // namespace coulomb
