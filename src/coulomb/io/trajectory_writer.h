#pragma once

#include <functional>
#include <string>
#include <vector>

#include "coulomb/io/hdf5_file.h"
#include "coulomb/io/robot_sensor_record.h"
#include "coulomb/sim/simulation.h"

namespace coulomb {

// Writes trajectory.h5 (layout in run_output.h) while a run goes on: the
// geometries once, then samples and step records appended in batches, each
// batch followed by Flush, which puts it on the disk. A writer killed in the
// middle of a batch or of a flush leaves datasets of different lengths; a
// resumed run copies the samples complete in every dataset (and the records
// of their steps) into a new file, leaving behind what was written past them.
//
// Per step, /steps holds the StepRecord: time, converged, iterations,
// momentum_error, complementarity_error, ncp_residual, contacts,
// near_rigid_contacts, converged_at_roundoff, ended_at_budget, penetration_max,
// energy, wall_time_s and its split geometry_time_s, assembly_time_s,
// solve_time_s
// (one row per step, failed steps included).
// What a resumed run needs to rebuild the scene (/run/arguments: the command
// line that started it; /run/scene_text: the scene file's text).
struct RunDescription {
  std::vector<std::string> arguments;
  std::string scene_text;
};

// What every dataset of a run's file holds. A writer killed in the middle of
// a batch, or of a flush (HDF5 writes its cached metadata in an order of its
// own, not in the order the datasets grew), leaves some datasets longer than
// others: the complete samples are those every per-sample dataset holds,
// with their contacts in every contact dataset; the complete steps, those
// every step dataset holds up to the last complete sample (a failed step has
// no sample).
struct CompleteRecord {
  size_t samples = 0, steps = 0;
  long long contacts = 0;
};
CompleteRecord FindCompleteRecord(const Hdf5File& file);

class TrajectoryWriter {
 public:
  // A new file at `path` (replacing one there) with the body names and the
  // geometries of `trajectory`, `description` (when given) and the samples
  // `trajectory` holds so far (a run's initial state; no step records);
  // built as PATH.partial and renamed once readable, then written in
  // single-writer mode (Hdf5File::StartSingleWriter), so that it stays
  // readable whenever its writer stops, and a run stopped before its first
  // step can be resumed from the state it started in.
  TrajectoryWriter(const std::string& path, const Trajectory& trajectory,
                   const RunDescription& description = {});
  // The `complete` samples of `recorded` (a run's file whose writer stopped,
  // perhaps killed in the middle of a batch; FindCompleteRecord) copied into a new file
  // that replaces the one at `path` once readable, to append to. `recorded` is only read:
  // a block its killed writer left half-written is never grown or rewritten (HDF5 can
  // wait without end on such a block), and until the new file replaces it, it stays as it
  // was.
  TrajectoryWriter(const std::string& path, const Hdf5File& recorded,
                   const CompleteRecord& complete);

  // Appends samples [first, end) of `trajectory`, its contacts following
  // those of the file, then step records [first_record, end) of `records`.
  void Append(const Trajectory& trajectory, size_t first,
              const std::vector<StepRecord>& records, size_t first_record);
  void Flush() { file_.Flush(); }

  size_t samples() const { return samples_; }
  Hdf5File& file() { return file_; }

 private:
  // Every dataset of `recorded`, its growing ones up to its `complete` samples
  // and steps.
  void CopyCompleteSamples(const Hdf5File& recorded, const CompleteRecord& complete);
  // Samples [first, end) of each robot's sensor readings that the file
  // records (one resumed from a file written before they were has none).
  void AppendSensors(const Trajectory& trajectory, size_t first);

  Hdf5File file_;
  std::vector<std::string> body_names_;
  size_t samples_ = 0;
  long long contacts_ = 0;
};

// The step records of a trajectory.h5 (failure texts are not stored):
// visit(record) for each, read in blocks so memory does not grow with the run.
void VisitStepRecords(const Hdf5File& file,
                      const std::function<void(const StepRecord&)>& visit);

// The description of the run a trajectory.h5 holds; throws if it has none.
RunDescription ReadRunDescription(const Hdf5File& file);

// The last of a trajectory.h5's `complete` samples: what a resumed run
// starts from.
struct LastSample {
  size_t index = 0;
  double time = 0.0;
  Eigen::VectorXd q, v;
  std::vector<RecordedContact> contacts;  // of the step that ended there
};
LastSample ReadLastSample(const Hdf5File& file, const CompleteRecord& complete);

// Each robot's sensor record (/sensors/ROBOT: names, columns as offsets,
// readings) for the first `frames` frames; robots without sensors left
// out, and all of them in a file written before sensors were recorded.
// Throws (Hdf5File::Fail) naming the dataset of a damaged record.
std::vector<RobotSensorRecord> ReadRobotSensorRecords(const Hdf5File& file,
                                                      size_t frames);

}  // namespace coulomb
