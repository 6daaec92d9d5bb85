#include "coulomb/viewer/recorded_run.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "coulomb/io/hdf5_file.h"
#include "coulomb/io/run_output.h"
#include "coulomb/io/trajectory_writer.h"

namespace coulomb {
namespace {

namespace fs = std::filesystem;

// The time step, for the page's forces (impulse / δt): /time_step, or in a
// file written before that was stored, the smallest gap between samples (a
// pause in recording leaves a longer one and a state set between steps a
// sample at the same time; 1 s without any).
double ReadTimeStep(const Hdf5File& file, const Eigen::VectorXd& time) {
  if (file.Exists("/time_step")) {
    const Eigen::VectorXd time_step = file.ReadDoubles("/time_step");
    if (time_step.size() != 1 || !(time_step[0] > 0.0) || !std::isfinite(time_step[0]))
      file.Fail("/time_step", "expected one positive, finite time step [s]");
    return time_step[0];
  }
  double gap = std::numeric_limits<double>::infinity();
  for (Eigen::Index k = 1; k < time.size(); ++k) {
    if (time[k] > time[k - 1]) gap = std::min(gap, time[k] - time[k - 1]);
  }
  return std::isfinite(gap) ? gap : 1.0;
}

std::vector<float> ToFloat(const std::vector<double>& values) {
  return std::vector<float>(values.begin(), values.end());
}

std::string ReadText(const fs::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

RecordedRun::RecordedRun(const std::string& directory) : directory_(directory) {
  const fs::path trajectory = fs::path(directory) / "trajectory.h5";
  if (fs::is_regular_file(directory)) {  // a scene or model file, likely
    throw std::runtime_error(directory + ": a file, not a run's folder (coulomb run " +
                             directory + " --view watches a scene or model as it runs)");
  }
  if (!fs::is_directory(directory)) {
    throw std::runtime_error(directory +
                             ": no such directory (write a run with coulomb run --out " +
                             directory + ")");
  }
  if (!fs::exists(trajectory)) {
    throw std::runtime_error(trajectory.string() +
                             ": missing (write a run with coulomb run --out DIR)");
  }
  file_ = std::make_unique<Hdf5File>(trajectory.string(), Hdf5File::Mode::kRead);
  if (!file_->Exists("/geometry/poses")) {
    file_->Fail("/geometry/poses", "missing: the run predates the viewer; run it again");
  }
  ReplayMeta meta;
  meta.name = fs::path(directory).lexically_normal().filename().string();
  if (meta.name.empty()) meta.name = fs::absolute(directory).parent_path().filename();
  const Eigen::VectorXd time = file_->ReadDoubles("/time");
  meta.time.assign(time.begin(), time.end());
  meta.time_step = ReadTimeStep(*file_, time);
  meta.geometries = ReadTrajectoryGeometry(*file_);
  frames_ = meta.time.size();
  geometries_ = static_cast<int>(meta.geometries.size());
  ReadFixedPoses();
  const std::vector<size_t> poses = file_->Dimensions("/geometry/poses");
  if (poses.size() != 2 || poses[0] != frames_ || poses[1] != 7 * moving_.size()) {
    file_->Fail("/geometry/poses", "expected " + std::to_string(frames_) + " × " +
                                       std::to_string(7 * moving_.size()));
  }
  contact_offsets_ = file_->ReadIntegers("/contacts/offsets");
  if (contact_offsets_.size() != frames_ + 1) {
    file_->Fail("/contacts/offsets",
                "expected " + std::to_string(frames_ + 1) + " entries");
  }
  meta.first_poses = first_poses_;
  meta.moving = moving_;
  const fs::path stats = fs::path(directory) / "stats.json";
  if (fs::exists(stats)) meta.stats_json = ReadText(stats);
  meta.sensors = ReadRobotSensorRecords(*file_, frames_);
  meta_json_ = MetaJson(meta);
}

RecordedRun::~RecordedRun() = default;

void RecordedRun::ReadFixedPoses() {
  const size_t count = static_cast<size_t>(geometries_);
  if (!file_->Exists("/geometry/moving")) {  // written before: every geometry
    for (int g = 0; g < geometries_; ++g) moving_.push_back(g);
    first_poses_ = frames_ > 0 ? file_->ReadRows("/geometry/poses", 0, 1)
                               : std::vector<double>(7 * count, 0.0);
    return;
  }
  first_poses_ = file_->ReadRows("/geometry/first_poses", 0, count);
  for (const long long g : file_->ReadIntegers("/geometry/moving")) {
    if (g < 0 || g >= geometries_ || (!moving_.empty() && g <= moving_.back()))
      file_->Fail("/geometry/moving",
                  "geometry " + std::to_string(g) + " out of range or out of order");
    moving_.push_back(static_cast<int>(g));
  }
}

std::optional<std::string> RecordedRun::Chunk(int index) const {
  const size_t first = static_cast<size_t>(index) * kChunkFrames;
  if (index < 0 || first >= frames_) return std::nullopt;
  const size_t count = std::min<size_t>(kChunkFrames, frames_ - first);
  ReplayFrames frames{static_cast<int>(first),
                      static_cast<int>(count),
                      static_cast<int>(moving_.size()),
                      {},
                      {},
                      {}};
  const long long begin = contact_offsets_[first], end = contact_offsets_[first + count];
  for (size_t f = first; f <= first + count; ++f)
    frames.offsets.push_back(static_cast<uint32_t>(contact_offsets_[f] - begin));
  const std::lock_guard<std::mutex> lock(mutex_);
  frames.poses = ToFloat(file_->ReadRows("/geometry/poses", first, count));
  const size_t rows = static_cast<size_t>(end - begin);
  const std::vector<double> point = file_->ReadRows("/contacts/point", begin, rows);
  const std::vector<double> normal = file_->ReadRows("/contacts/normal", begin, rows);
  const std::vector<double> impulse = file_->ReadRows("/contacts/impulse", begin, rows);
  const std::vector<double> depth = file_->ReadRows("/contacts/depth", begin, rows);
  for (size_t i = 0; i < rows; ++i) {
    for (const std::vector<double>* field : {&point, &normal, &impulse}) {
      for (int k = 0; k < 3; ++k)
        frames.contacts.push_back(static_cast<float>((*field)[3 * i + k]));
    }
    frames.contacts.push_back(static_cast<float>(depth[i]));
  }
  return EncodeChunk(frames);
}

}  // namespace coulomb
