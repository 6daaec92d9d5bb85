#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "coulomb/base/stopwatch.h"
#include "coulomb/io/trajectory_writer.h"
#include "coulomb/sim/simulation.h"

namespace coulomb {

// A run written into a folder while it goes (`coulomb run --out DIR`):
// * trajectory.h5 (TrajectoryWriter) grows by the new samples and step
//   records and is flushed to disk at least every simulated second and every
//   10 s of wall time (Cadence), so a run killed even by SIGKILL leaves a
//   readable file up to its last flush;
// * stats.json (summary and per_step, run_output.h) is rewritten atomically
//   at most every 10 s of wall time with "running": true, and at the end.
// Samples and records on disk are dropped from the simulation's memory
// unless keep_in_memory (a live viewer reads them), so memory stays flat.
// A resumed run (Resume) appends to the same files; its summary covers every
// step since the run began.
// Writing the run's files failed (a full disk, a removed folder): what
// failed, named by file. The files hold the run up to the last flush.
struct RunOutputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// How often a RunRecorder flushes: whichever comes first.
struct RecordingCadence {
  double sim_seconds = 1.0;
  double wall_seconds = 10.0;
};

class RunRecorder {
 public:
  using Cadence = RecordingCadence;

  // A new run: creates `directory` and trajectory.h5 now, so an unwritable
  // place fails before the first step (std::runtime_error naming it).
  // `description` goes into the file for --resume.
  RunRecorder(const std::string& directory, Simulation* simulation, bool keep_in_memory,
              Cadence cadence = {}, const RunDescription& description = {});
  // The run recorded in `directory` continued by `simulation` (built from
  // the same scene): its state, clock and NCP warm start are set from the
  // last complete sample. Throws std::runtime_error naming the file when it
  // has no usable sample or the scene does not match it.
  static RunRecorder Resume(const std::string& directory, Simulation* simulation,
                            bool keep_in_memory, Cadence cadence = {});

  // After each step: writes and flushes what is new when the cadence says.
  // Writing errors throw RunOutputError (here, Flush and Finish).
  void AfterStep();
  void Flush();
  // Flushes, writes stats.json and returns the summary of the whole run
  // (`part`: that of the last Run, whose failure and interruption it keeps).
  SimulationSummary Finish(const SimulationSummary& part);

  // Steps of the run so far, failed ones included, and its last one.
  size_t steps() const { return steps_; }
  const StepRecord& last_step() const { return last_step_; }
  bool resumed() const { return resumed_; }
  Hdf5File& file() { return writer_.file(); }

 private:
  RunRecorder(TrajectoryWriter writer, std::string directory, Simulation* simulation,
              bool keep_in_memory, Cadence cadence);
  void WriteStatistics(const SimulationSummary& summary, bool running);
  void WriteNew();
  void Count(const StepRecord& record);  // into summary_, steps_, last_step_

  TrajectoryWriter writer_;
  std::string directory_;
  Simulation* simulation_;
  bool keep_in_memory_;
  Cadence cadence_;
  bool resumed_ = false;
  // Of the whole run (the file holds the records themselves).
  StepSummary summary_;
  size_t steps_ = 0;
  StepRecord last_step_;
  // What of the simulation's recording is on disk already.
  size_t samples_written_ = 0, records_written_ = 0;
  double flushed_sim_time_ = 0.0;
  Stopwatch since_flush_, since_statistics_;
};

}  // namespace coulomb
