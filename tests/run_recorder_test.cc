// Runs written while they go (io/run_recorder.h): the incremental file holds
// exactly what writing the whole run at the end would; memory stays flat; a
// file whose writer died in the middle of a batch or of a flush is copied up
// to its complete samples; a run stopped at a random step and resumed from its files ends
// where the uninterrupted run ends.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <random>

#include <gtest/gtest.h>

#include "coulomb/coulomb.h"
#include "coulomb/io/hdf5_file.h"
#include "coulomb/io/run_output.h"
#include "coulomb/io/run_recorder.h"
#include "coulomb/io/trajectory_writer.h"

namespace coulomb {
namespace {

namespace fs = std::filesystem;

// A ball rolling into a box on the ground (μ = 0.5): contact, friction and
// an impact, over 1 s of 10 ms steps.
Scene RollScene(ContactSolverKind solver = ContactSolverKind::kSap) {
  Scene scene;
  scene.name = "roll";
  scene.duration = 1.0;
  scene.parameters.solver.kind = solver;
  ContactMaterial material;
  material.friction = 0.5;
  scene.system.AddStaticGeometry(HalfSpace{}, Eigen::Isometry3d::Identity(), material);
  scene.system.AddFreeBody("ball", Sphere{0.1}, 1.0, Pose(Eigen::Vector3d(0, 0, 0.1)),
                           Eigen::Vector3d(1.5, 0, 0), Eigen::Vector3d::Zero(), material);
  const int box = scene.system.AddFreeBody(
      "box", Box{Eigen::Vector3d(0.2, 0.3, 0.2)}, 2.0, Pose(Eigen::Vector3d(0.6, 0, 0.1)),
      Eigen::Vector3d::Zero(), Eigen::Vector3d::Zero(), material);
  // Sensors of one and of three numbers: the file's /sensors/box.
  Sensor clock, where;
  clock.name = "clock";
  clock.kind = Sensor::Kind::kClock;
  where.name = "where";
  where.kind = Sensor::Kind::kFramePosition;
  scene.system.AddSensor(box, clock, "");
  scene.system.AddSensor(box, where, "box");
  return scene;
}

class RunRecorderTest : public ::testing::Test {
 protected:
  fs::path Folder(const std::string& name) {
    const fs::path folder = fs::temp_directory_path() /
                            ("coulomb_run_recorder_test_" + std::to_string(::getpid())) /
                            name;
    fs::remove_all(folder);
    return folder;
  }
  void TearDown() override {
    fs::remove_all(fs::temp_directory_path() /
                   ("coulomb_run_recorder_test_" + std::to_string(::getpid())));
  }
  static Hdf5File Open(const fs::path& folder) {
    return Hdf5File((folder / "trajectory.h5").string(), Hdf5File::Mode::kRead);
  }
};

// One junk row appended to each per-sample dataset of the roll's file but
// its sensor readings and contacts.
void AppendJunkSample(Hdf5File* file) {
  const std::vector<double> junk(280, 1.0);
  for (const std::string dataset :
       {"/time", "/q", "/v", "/geometry/poses", "/bodies/ball/position",
        "/bodies/ball/orientation", "/bodies/ball/linear_velocity",
        "/bodies/ball/angular_velocity", "/bodies/box/position",
        "/bodies/box/orientation", "/bodies/box/linear_velocity",
        "/bodies/box/angular_velocity"}) {
    const std::vector<size_t> extent = file->Dimensions(dataset);
    file->AppendRows(dataset, junk.data(), 1, extent.size() == 2 ? extent[1] : 0);
  }
}

// The roll recorded for 0.3 s into `folder` and flushed; then `damage`
// writes to the open file what a writer killed in its next flush might have.
void RecordKilledRoll(const fs::path& folder,
                      const std::function<void(Hdf5File&)>& damage) {
  Simulation simulation(RollScene());
  RunRecorder recorder(folder.string(), &simulation, /*keep_in_memory=*/true);
  simulation.RunFor(0.3);
  recorder.Flush();
  damage(recorder.file());
}

// Every dataset a viewer or a resumed run reads, bitwise.
void ExpectSameFiles(const Hdf5File& a, const Hdf5File& b) {
  for (const char* dataset :
       {"/time", "/time_step", "/q", "/v", "/geometry/poses", "/bodies/ball/position",
        "/bodies/box/orientation", "/contacts/point", "/contacts/impulse",
        "/contacts/depth", "/steps/time", "/steps/iterations", "/steps/energy",
        "/sensors/box/readings"}) {
    EXPECT_TRUE(a.ReadDoubles(dataset) == b.ReadDoubles(dataset)) << dataset;
  }
  EXPECT_EQ(a.ReadIntegers("/contacts/offsets"), b.ReadIntegers("/contacts/offsets"));
  EXPECT_EQ(a.ReadIntegers("/contacts/geometry_b"),
            b.ReadIntegers("/contacts/geometry_b"));
}

TEST_F(RunRecorderTest, IncrementalFileEqualsTheWholeRunWrittenAtOnce) {
  const fs::path whole = Folder("whole"), incremental = Folder("incremental");
  {
    Simulation simulation(RollScene());
    WriteRunOutput(whole.string(), simulation, simulation.RunFor(1.0));
  }
  Simulation simulation(RollScene());
  RunRecorder recorder(incremental.string(), &simulation, /*keep_in_memory=*/false,
                       RecordingCadence{0.07, 10.0});
  size_t most_samples_in_memory = 0;
  simulation.RunFor(1.0, [&](double) {
    recorder.AfterStep();
    most_samples_in_memory =
        std::max(most_samples_in_memory, simulation.trajectory().time.size());
  });
  recorder.Finish(simulation.Summary());
  // Flushed every 7 steps, memory held at most 8 samples (7 + the initial one).
  EXPECT_LE(most_samples_in_memory, 8u);
  EXPECT_EQ(recorder.steps(), 100u);
  ExpectSameFiles(Open(whole), Open(incremental));
  EXPECT_TRUE(fs::exists(incremental / "stats.json"));
}

// A writer killed before the metadata of the sensor readings reached the
// disk, every other per-sample dataset (contacts included) a sample ahead:
// the readings bound the complete samples.
TEST_F(RunRecorderTest, SensorReadingsShortOfASampleBoundTheCompleteSamples) {
  const fs::path folder = Folder("killed_sensors");
  RecordKilledRoll(folder, [](Hdf5File& file) {
    AppendJunkSample(&file);
    const long long last_offset = file.ReadIntegers("/contacts/offsets").back();
    file.AppendIntegers("/contacts/offsets", &last_offset, 1);  // no contacts
  });
  const Hdf5File killed((folder / "trajectory.h5").string(), Hdf5File::Mode::kRead);
  ASSERT_EQ(killed.Dimensions("/time")[0], 32u);
  EXPECT_EQ(killed.Dimensions("/sensors/box/readings")[0], 31u);
  EXPECT_EQ(FindCompleteRecord(killed).samples, 31u);
}

TEST_F(RunRecorderTest, FileOfAWriterKilledMidBatchIsCopiedUpToItsCompleteSamples) {
  const fs::path folder = Folder("killed");
  const std::string path = (folder / "trajectory.h5").string();
  // A writer killed in a flush, HDF5 having written the metadata of every
  // per-sample dataset but those of the contacts: one sample more
  // everywhere, its contacts missing; and rows of a next batch in some.
  RecordKilledRoll(folder, [](Hdf5File& file) {
    AppendJunkSample(&file);
    const std::vector<double> junk(280, 1.0);
    file.AppendRows("/q", junk.data(), 2, 14);
    file.AppendRows("/contacts/depth", junk.data(), 5, 0);
    const long long offsets[2] = {1000, 2000};
    file.AppendIntegers("/contacts/offsets", offsets, 2);
    file.AppendRows("/steps/time", junk.data(), 3, 0);
  });
  const Hdf5File killed(path, Hdf5File::Mode::kRead);
  ASSERT_EQ(killed.Dimensions("/time")[0], 32u);  // the junk is there
  TrajectoryWriter reopened(path, killed, FindCompleteRecord(killed));
  EXPECT_FALSE(fs::exists(path + ".partial"));
  const Hdf5File& file = reopened.file();
  const size_t samples = file.Dimensions("/time")[0];
  EXPECT_EQ(samples, 31u);
  EXPECT_EQ(file.Dimensions("/q")[0], samples);
  EXPECT_EQ(file.Dimensions("/contacts/offsets")[0], samples + 1);
  EXPECT_EQ(file.Dimensions("/contacts/depth")[0],
            static_cast<size_t>(file.ReadIntegers("/contacts/offsets").back()));
  EXPECT_EQ(file.Dimensions("/steps/time")[0], 30u);
  EXPECT_EQ(file.ReadRows("/q", 0, samples), killed.ReadRows("/q", 0, samples));
  EXPECT_EQ(file.ReadStrings("/geometry/body"), killed.ReadStrings("/geometry/body"));
  EXPECT_EQ(file.ReadDoubles("/geometry/size"), killed.ReadDoubles("/geometry/size"));
}

// What a resume starts from is the last sample as the run held it: state,
// time and every contact of its step (geometries, point, normal, impulse,
// depth), bitwise.
TEST_F(RunRecorderTest, LastSampleReadBackIsTheRunsLastSampleWithItsContacts) {
  const fs::path folder = Folder("last");
  Simulation simulation(RollScene());
  {
    RunRecorder recorder(folder.string(), &simulation, /*keep_in_memory=*/true);
    simulation.RunFor(0.5);  // the ball has reached the box: two contacts or more
    recorder.Flush();
  }
  const Trajectory& run = simulation.trajectory();
  const size_t index = run.time.size() - 1;
  const Hdf5File file = Open(folder);
  const LastSample last = ReadLastSample(file, FindCompleteRecord(file));
  EXPECT_EQ(last.index, index);
  EXPECT_EQ(last.time, run.time[index]);
  EXPECT_TRUE(last.q == run.q[index] && last.v == run.v[index]);
  const long long first = run.contact_offsets[index];
  ASSERT_EQ(static_cast<long long>(last.contacts.size()),
            run.contact_offsets[index + 1] - first);
  ASSERT_GE(last.contacts.size(), 2u);
  for (size_t i = 0; i < last.contacts.size(); ++i) {
    const RecordedContact& read = last.contacts[i];
    const RecordedContact& held = run.contacts[first + i];
    EXPECT_EQ(read.geometry_a, held.geometry_a) << "contact " << i;
    EXPECT_EQ(read.geometry_b, held.geometry_b) << "contact " << i;
    EXPECT_TRUE(read.point == held.point && read.normal == held.normal &&
                read.impulse == held.impulse && read.depth == held.depth)
        << "contact " << i;
  }
}

// The smallest run file a resume copies: one sample of one coordinate, no
// bodies, no contacts, no steps; its geometry group holds `geometry`.
void WriteSmallestRunFile(const std::string& path,
                          const std::vector<std::string>& geometry) {
  fs::create_directories(fs::path(path).parent_path());
  Hdf5File file(path, Hdf5File::Mode::kCreateGrowing);
  const double zero = 0.0;
  const long long offsets[2] = {0, 0};
  file.AppendRows("/time", &zero, 1, 0);
  file.AppendIntegers("/contacts/offsets", offsets, 2);
  file.WriteStrings("/bodies/names", {});
  for (const char* dataset : {"/q", "/v"}) file.AppendRows(dataset, &zero, 1, 1);
  for (const char* dataset : {"/contacts/geometry_a", "/contacts/geometry_b"})
    file.AppendIntegers(dataset, nullptr, 0);
  for (const char* dataset :
       {"/contacts/point", "/contacts/normal", "/contacts/impulse", "/contacts/depth"})
    file.AppendRows(dataset, nullptr, 0, 0);
  file.AppendRows("/steps/time", nullptr, 0, 0);
  file.AppendRows("/geometry/poses", &zero, 1, 1);
  for (const std::string& name : geometry) file.WriteStrings("/geometry/" + name, {name});
}

// Every dataset of /geometry but the growing poses is copied whole, whatever
// its name: one a later version adds is not dropped by a resume.
TEST_F(RunRecorderTest, CopyKeepsEveryGeometryDatasetWhateverItsName) {
  const std::string path = (Folder("geometry") / "trajectory.h5").string();
  WriteSmallestRunFile(path, {"shape_names", "added_by_a_later_version"});
  const Hdf5File recorded(path, Hdf5File::Mode::kRead);
  TrajectoryWriter copy(path, recorded, FindCompleteRecord(recorded));
  EXPECT_EQ(
      copy.file().Members("/geometry"),
      (std::vector<std::string>{"added_by_a_later_version", "poses", "shape_names"}));
  EXPECT_EQ(copy.file().ReadStrings("/geometry/added_by_a_later_version"),
            std::vector<std::string>{"added_by_a_later_version"});
  EXPECT_EQ(copy.file().Dimensions("/geometry/poses")[0], 1u);
}

// A copy that fails (here: asked for more samples than the file holds)
// leaves no partial file, and the file as found as it was.
TEST_F(RunRecorderTest, FailedCopyLeavesNoPartialFileAndTheFileAsFound) {
  const std::string path = (Folder("broken") / "trajectory.h5").string();
  WriteSmallestRunFile(path, {"shape_names"});
  const auto size_before = fs::file_size(path);
  {
    const Hdf5File recorded(path, Hdf5File::Mode::kRead);
    try {
      TrajectoryWriter copy(path, recorded, CompleteRecord{/*samples=*/2, 0, 0});
      FAIL() << "two samples cannot be copied from a file of one";
    } catch (const std::runtime_error& error) {
      EXPECT_NE(std::string(error.what()).find("/contacts/offsets"), std::string::npos)
          << error.what();
    }
  }
  EXPECT_FALSE(fs::exists(path + ".partial"));
  EXPECT_EQ(fs::file_size(path), size_before);
  EXPECT_EQ(Hdf5File(path, Hdf5File::Mode::kRead).Dimensions("/time")[0], 1u);
}

// The split of each step's time is in the file; a file written before it
// was recorded reads as a zero split (a resumed run continues such a file).
TEST_F(RunRecorderTest, StepTimeSplitIsWrittenAndReadsAsZeroFromAnOlderFile) {
  const fs::path folder = Folder("split");
  {
    Simulation simulation(RollScene());
    RunRecorder recorder(folder.string(), &simulation, false);
    recorder.Finish(simulation.RunFor(0.2, [&](double) { recorder.AfterStep(); }));
  }
  double solve_s = 0.0, parts_s = 0.0, wall_s = 0.0;
  VisitStepRecords(Open(folder), [&](const StepRecord& record) {
    const StepStatistics& s = record.statistics;
    solve_s += s.solve_time_s;
    parts_s += s.geometry_time_s + s.assembly_time_s + s.solve_time_s;
    wall_s += s.wall_time_s;
  });
  EXPECT_GT(solve_s, 0.0);
  EXPECT_LE(parts_s, wall_s);

  const std::string older = (Folder("older") / "trajectory.h5").string();
  fs::create_directories(fs::path(older).parent_path());
  {
    Hdf5File file(older, Hdf5File::Mode::kCreateGrowing);
    const double times[2] = {0.01, 0.02}, iterations[2] = {3, 4}, walls[2] = {1e-3, 2e-3};
    file.AppendRows("/steps/time", times, 2, 0);
    file.AppendRows("/steps/iterations", iterations, 2, 0);
    file.AppendRows("/steps/wall_time_s", walls, 2, 0);
  }
  std::vector<StepRecord> records;
  VisitStepRecords(Hdf5File(older, Hdf5File::Mode::kRead),
                   [&](const StepRecord& record) { records.push_back(record); });
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[1].time, 0.02);
  EXPECT_EQ(records[1].statistics.iterations, 4);
  EXPECT_EQ(records[1].statistics.wall_time_s, 2e-3);
  EXPECT_EQ(records[1].statistics.solve_time_s, 0.0);
}

// Stops a run at a random step through RequestStop, resumes it from its
// folder in a new Simulation, and compares with the uninterrupted run.
void ExpectResumedRunEndsLikeUninterrupted(ContactSolverKind solver, double tolerance,
                                           const fs::path& whole, const fs::path& parts) {
  Simulation uninterrupted(RollScene(solver));
  RunRecorder whole_recorder(whole.string(), &uninterrupted, false);
  uninterrupted.RunFor(1.0, [&](double) { whole_recorder.AfterStep(); });
  whole_recorder.Finish(uninterrupted.Summary());

  std::mt19937 random(static_cast<unsigned>(::getpid()));
  const int stop_after = std::uniform_int_distribution<int>(1, 98)(random);
  {
    Simulation first(RollScene(solver));
    RunRecorder recorder(parts.string(), &first, false);
    int steps = 0;
    const SimulationSummary part = first.RunFor(1.0, [&](double) {
      recorder.AfterStep();
      if (++steps == stop_after) first.RequestStop();
    });
    ASSERT_TRUE(part.interrupted);
    recorder.Finish(part);
  }
  Simulation second(RollScene(solver));
  RunRecorder recorder = RunRecorder::Resume(parts.string(), &second, false);
  EXPECT_EQ(recorder.steps(), static_cast<size_t>(stop_after));
  const SimulationSummary rest = second.RunFor((100 - stop_after) * second.time_step(),
                                               [&](double) { recorder.AfterStep(); });
  const SimulationSummary all = recorder.Finish(rest);
  EXPECT_EQ(all.steps, 100);
  EXPECT_LE((second.q() - uninterrupted.q()).cwiseAbs().maxCoeff(), tolerance)
      << ToString(solver) << " stopped after step " << stop_after;
  const Hdf5File a((whole / "trajectory.h5").string(), Hdf5File::Mode::kRead);
  const Hdf5File b((parts / "trajectory.h5").string(), Hdf5File::Mode::kRead);
  EXPECT_EQ(a.Dimensions("/q"), b.Dimensions("/q"));
  EXPECT_EQ(a.Dimensions("/steps/time"), b.Dimensions("/steps/time"));
  EXPECT_EQ(a.Dimensions("/sensors/box/readings"), b.Dimensions("/sensors/box/readings"));
  EXPECT_EQ(b.ReadStrings("/sensors/box/names"), b.ReadStrings("/sensors/box/names"));
  const Eigen::VectorXd whole_readings = a.ReadDoubles("/sensors/box/readings");
  const Eigen::VectorXd resumed_readings = b.ReadDoubles("/sensors/box/readings");
  ASSERT_EQ(whole_readings.size(), resumed_readings.size());
  EXPECT_LE((whole_readings - resumed_readings).cwiseAbs().maxCoeff(), tolerance);
}

// Each robot's sensors in the file: their names, the columns each reads of
// a row of /sensors/ROBOT/readings, and one row per sample, as the run read
// them (the clock is each sample's time).
TEST_F(RunRecorderTest, SensorReadingsAreRecordedPerSample) {
  const fs::path folder = Folder("sensors");
  Simulation simulation(RollScene());
  WriteRunOutput(folder.string(), simulation, simulation.RunFor(0.3));
  const Hdf5File file = Open(folder);
  EXPECT_EQ(file.ReadStrings("/sensors/box/names"),
            (std::vector<std::string>{"clock", "where"}));
  EXPECT_EQ(file.ReadIntegers("/sensors/box/columns"), (std::vector<long long>{0, 1, 4}));
  EXPECT_FALSE(file.Exists("/sensors/ball"));  // no sensors
  const std::vector<size_t> extent = file.Dimensions("/sensors/box/readings");
  const Eigen::VectorXd time = file.ReadDoubles("/time");
  ASSERT_EQ(extent, (std::vector<size_t>{static_cast<size_t>(time.size()), 4}));
  const Trajectory& recorded = simulation.trajectory();
  for (Eigen::Index s = 0; s < time.size(); ++s) {
    const std::vector<double> row = file.ReadRows("/sensors/box/readings", s, 1);
    EXPECT_EQ(row[0], time[s]);
    const Eigen::Vector3d p(row[1], row[2], row[3]);
    EXPECT_EQ(p, recorded.body_samples[1][s].head<3>()) << s;
  }
}

TEST_F(RunRecorderTest, SapRunResumedAtARandomStepEndsWhereTheUninterruptedRunEnds) {
  ExpectResumedRunEndsLikeUninterrupted(ContactSolverKind::kSap, 1e-12, Folder("sap"),
                                        Folder("sap_parts"));
}

TEST_F(RunRecorderTest, CanalRunResumedWithItsWarmStartEndsWithinItsTolerance) {
  ExpectResumedRunEndsLikeUninterrupted(ContactSolverKind::kCanal, 1e-7, Folder("canal"),
                                        Folder("canal_parts"));
}

// A run stopped right after its file appeared (SIGKILL before the first
// flush) left a file with the initial state: it resumes from there, and the
// resumed run ends where an uninterrupted one does.
TEST_F(RunRecorderTest, RunStoppedBeforeItsFirstFlushResumesFromItsStart) {
  const fs::path stopped = Folder("stopped"), whole = Folder("whole_run");
  {
    Simulation simulation(RollScene());
    RunRecorder recorder(stopped.string(), &simulation, false);  // then killed
  }
  EXPECT_EQ(Open(stopped).Dimensions("/time")[0], 1u);
  Simulation resumed(RollScene());
  RunRecorder recorder = RunRecorder::Resume(stopped.string(), &resumed, false);
  recorder.Finish(resumed.RunFor(0.2));
  Simulation uninterrupted(RollScene());
  RunRecorder reference(whole.string(), &uninterrupted, false);
  reference.Finish(uninterrupted.RunFor(0.2));
  ExpectSameFiles(Open(stopped), Open(whole));
}

// The writer appends a run's q, v, poses and sensor rows in their own
// width: the file refuses rows of another width than its dataset's columns,
// naming the dataset, and leaves the dataset as it was.
TEST_F(RunRecorderTest, RowsOfAnotherWidthThanTheFilesAreRefusedNamingTheDataset) {
  RecordKilledRoll(Folder("width"), [](Hdf5File& file) {
    const std::vector<size_t> before = file.Dimensions("/q");
    const std::vector<double> row(before[1] + 1, 0.0);
    try {
      file.AppendRows("/q", row.data(), 1, row.size());
      ADD_FAILURE() << "a row of " << row.size() << " numbers appended to /q";
    } catch (const std::runtime_error& error) {
      EXPECT_NE(std::string(error.what()).find("/q"), std::string::npos) << error.what();
      EXPECT_NE(std::string(error.what()).find("another shape"), std::string::npos)
          << error.what();
    }
    EXPECT_EQ(file.Dimensions("/q"), before);
  });
}

TEST_F(RunRecorderTest, ResumingAnotherScenesRunIsRefused) {
  const fs::path folder = Folder("other");
  {
    Simulation simulation(RollScene());
    RunRecorder recorder(folder.string(), &simulation, false);
    recorder.Finish(simulation.RunFor(0.1));
  }
  Simulation other(MakeBuiltinScene("sphere_on_ground", {}));
  EXPECT_THROW(RunRecorder::Resume(folder.string(), &other, false), std::runtime_error);
}

TEST_F(RunRecorderTest, UnwritableFolderFailsBeforeTheRun) {
  Simulation simulation(RollScene());
  const fs::path file = Folder("a_file");
  fs::create_directories(file.parent_path());
  std::ofstream(file.string()) << "not a folder";
  EXPECT_THROW(RunRecorder(file.string(), &simulation, false), std::runtime_error);
}

}  // namespace
}  // namespace coulomb
