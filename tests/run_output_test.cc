// What `coulomb run --out` writes for a viewer (io/run_output.h): geometry,
// per-sample geometry poses and contacts, read back from trajectory.h5 and
// checked against the bodies' own trajectories and the weight they carry.
#include <filesystem>
#include <numeric>

#include <gtest/gtest.h>

#include "coulomb/coulomb.h"
#include "coulomb/geometry/convex_mesh.h"
#include "coulomb/geometry/threaded_fasteners.h"
#include "coulomb/io/hdf5_file.h"
#include "coulomb/io/run_output.h"

namespace coulomb {
namespace {

constexpr double kMass = 2.0, kG = 9.81;

// A 2 kg ball and a 2 kg tetrahedron (a convex mesh) dropped on the ground.
Scene DropScene() {
  Scene scene;
  scene.name = "drop";
  scene.system.AddStaticGeometry(HalfSpace{}, Eigen::Isometry3d::Identity(),
                                 ContactMaterial{});
  scene.system.AddFreeBody("ball", Sphere{0.1}, kMass, Pose(Eigen::Vector3d(0, 0, 0.2)),
                           Eigen::Vector3d::Zero(), Eigen::Vector3d::Zero(),
                           ContactMaterial{});
  const ConvexMesh tetrahedron =
      MakeConvexMesh({{0, 0, 0}, {0.2, 0, 0}, {0, 0.2, 0}, {0, 0, 0.2}}, "tetrahedron");
  scene.system.AddFreeBody("tetrahedron", tetrahedron, kMass,
                           Pose(Eigen::Vector3d(1, 0, 0.1)), Eigen::Vector3d::Zero(),
                           Eigen::Vector3d::Zero(), ContactMaterial{});
  return scene;
}

class RunOutputTest : public ::testing::Test {
 protected:
  void SetUp() override {
    directory_ = std::filesystem::temp_directory_path() /
                 ("coulomb_run_output_test_" + std::to_string(::getpid()));
    Simulation simulation(DropScene());
    const SimulationSummary summary = simulation.RunFor(1.0);
    ASSERT_EQ(summary.failed_steps, 0);
    WriteRunOutput(directory_.string(), simulation, summary);
    file_ = std::make_unique<Hdf5File>((directory_ / "trajectory.h5").string(),
                                       Hdf5File::Mode::kRead);
    time_step_ = simulation.time_step();
  }
  void TearDown() override { std::filesystem::remove_all(directory_); }

  std::filesystem::path directory_;
  std::unique_ptr<Hdf5File> file_;
  double time_step_ = 0.0;
};

TEST_F(RunOutputTest, GeometryPosesFollowTheBodies) {
  const std::vector<std::string> bodies = file_->ReadStrings("/geometry/body");
  ASSERT_EQ(bodies, (std::vector<std::string>{"world", "ball", "tetrahedron"}));
  const std::vector<std::string> names = file_->ReadStrings("/geometry/shape_names");
  const std::vector<long long> shapes = file_->ReadIntegers("/geometry/shape");
  EXPECT_EQ(names[shapes[0]], "halfspace");
  EXPECT_EQ(names[shapes[1]], "sphere");
  EXPECT_EQ(names[shapes[2]], "mesh");
  EXPECT_EQ(file_->ReadRows("/geometry/size", 1, 1)[0], 0.1);

  // The ground never moves: its pose is written once, the bodies' per sample.
  EXPECT_EQ(file_->ReadIntegers("/geometry/moving"), (std::vector<long long>{1, 2}));
  EXPECT_EQ(file_->ReadRows("/geometry/first_poses", 0, 1),
            (std::vector<double>{0, 0, 0, 1, 0, 0, 0}));
  const size_t samples = file_->Dimensions("/time")[0];
  ASSERT_EQ(file_->Dimensions("/geometry/poses"), (std::vector<size_t>{samples, 2 * 7}));
  const Eigen::VectorXd ball = file_->ReadDoubles("/bodies/ball/position");
  const Eigen::VectorXd orientation = file_->ReadDoubles("/bodies/ball/orientation");
  for (size_t s = 0; s < samples; s += 10) {
    const std::vector<double> pose = file_->ReadRows("/geometry/poses", s, 1);
    for (int k = 0; k < 3; ++k) EXPECT_EQ(pose[k], ball(3 * s + k));  // G = B
    for (int k = 0; k < 4; ++k)  // the same rotation, up to the quaternion's sign
      EXPECT_NEAR(std::abs(pose[3 + k]), std::abs(orientation(4 * s + k)), 1e-12);
  }
}

TEST_F(RunOutputTest, ConvexMeshHullIsWrittenWhole) {
  const std::vector<long long> vertex_offsets =
      file_->ReadIntegers("/geometry/mesh_vertex_offsets");
  const std::vector<long long> triangle_offsets =
      file_->ReadIntegers("/geometry/mesh_triangle_offsets");
  ASSERT_EQ(vertex_offsets, (std::vector<long long>{0, 0, 0, 4}));
  ASSERT_EQ(triangle_offsets, (std::vector<long long>{0, 0, 0, 4}));
  const std::vector<long long> triangles =
      file_->ReadIntegers("/geometry/mesh_triangles");
  ASSERT_EQ(triangles.size(), 12u);
  // Every vertex is used by three of the tetrahedron's four faces.
  std::vector<int> uses(4, 0);
  for (long long index : triangles) ++uses.at(index);
  EXPECT_EQ(uses, std::vector<int>(4, 3));
}

TEST_F(RunOutputTest, ContactsAtRestCarryTheWeight) {
  const std::vector<long long> offsets = file_->ReadIntegers("/contacts/offsets");
  const size_t samples = file_->Dimensions("/time")[0];
  ASSERT_EQ(offsets.size(), samples + 1);
  EXPECT_EQ(offsets[0], 0);
  EXPECT_EQ(offsets[1], 0);  // sample 0 ends no step
  EXPECT_TRUE(std::is_sorted(offsets.begin(), offsets.end()));
  const std::vector<long long> body_b = file_->ReadIntegers("/contacts/geometry_b");
  ASSERT_EQ(static_cast<long long>(body_b.size()), offsets.back());
  const Eigen::VectorXd impulse = file_->ReadDoubles("/contacts/impulse");
  const Eigen::VectorXd normal = file_->ReadDoubles("/contacts/normal");
  // At rest (the last sample) each body's ground contacts carry m g δt.
  Eigen::Vector2d carried = Eigen::Vector2d::Zero();
  for (long long i = offsets[samples - 1]; i < offsets[samples]; ++i) {
    EXPECT_NEAR(normal(3 * i + 2), 1.0, 1e-12);
    carried(body_b[i] - 1) += impulse(3 * i + 2);
  }
  EXPECT_NEAR(carried(0), kMass * kG * time_step_, 1e-6 * kMass * kG * time_step_);
  EXPECT_NEAR(carried(1), kMass * kG * time_step_, 1e-6 * kMass * kG * time_step_);
}

TEST(SamplesFrom, KeepsEachSampleWithItsContacts) {
  Simulation simulation(DropScene());
  simulation.RunFor(0.5);
  const Trajectory& all = simulation.trajectory();
  const size_t first = all.time.size() - 5;
  const Trajectory part = SamplesFrom(all, first);
  ASSERT_EQ(part.time.size(), 5u);
  ASSERT_EQ(part.contact_offsets.size(), 6u);
  EXPECT_EQ(part.contact_offsets.front(), 0);
  for (size_t s = 0; s < 5; ++s) {
    const long long count = part.contact_offsets[s + 1] - part.contact_offsets[s];
    ASSERT_EQ(count, all.contact_offsets[first + s + 1] - all.contact_offsets[first + s]);
    if (count > 0) {
      EXPECT_EQ(part.contacts[part.contact_offsets[s]].point,
                all.contacts[all.contact_offsets[first + s]].point);
    }
  }
  EXPECT_EQ(part.geometry_poses[0], all.geometry_poses[first]);
  // Every geometry's pose at a sample: the ground's kept once, the ball's
  // and the tetrahedron's of the sample, in a part as in the whole.
  const Eigen::VectorXd poses = GeometryPosesAt(part, 0);
  ASSERT_EQ(poses.size(), 3 * 7);
  EXPECT_EQ(Eigen::VectorXd(poses.head<7>()),
            (Eigen::VectorXd(7) << 0, 0, 0, 1, 0, 0, 0).finished());
  EXPECT_EQ(Eigen::VectorXd(poses.tail<14>()), all.geometry_poses[first]);
  EXPECT_EQ(poses.segment<3>(7), all.body_samples[0][first].head<3>());
  EXPECT_THROW(SamplesFrom(all, all.time.size() + 1), std::invalid_argument);
}

// The geometries of a run of `scene` over 0.01 s, written and read back.
std::vector<RecordedGeometry> RecordedGeometriesOf(Scene scene) {
  const std::filesystem::path directory =
      std::filesystem::temp_directory_path() /
      ("coulomb_shape_output_test_" + std::to_string(::getpid()));
  Simulation simulation(std::move(scene));
  const SimulationSummary summary = simulation.RunFor(0.01);
  WriteRunOutput(directory.string(), simulation, summary);
  const Hdf5File file((directory / "trajectory.h5").string(), Hdf5File::Mode::kRead);
  std::vector<RecordedGeometry> geometries = ReadTrajectoryGeometry(file);
  std::filesystem::remove_all(directory);
  return geometries;
}

// An SDF shape is written as its display surface and read back as that
// surface (for the viewer), without a field.
TEST(RunOutput, SdfShapesKeepTheirDisplaySurface) {
  Scene scene;
  scene.name = "bolt";
  const SdfShape bolt = MakeThreadedBolt({});
  scene.system.AddStaticGeometry(bolt, Eigen::Isometry3d::Identity(), ContactMaterial{});
  scene.system.AddFreeBody("ball", Sphere{0.01}, 0.1, Pose(Eigen::Vector3d(0.2, 0, 0.1)),
                           Eigen::Vector3d::Zero(), Eigen::Vector3d::Zero(),
                           ContactMaterial{});
  const std::vector<RecordedGeometry> geometries = RecordedGeometriesOf(std::move(scene));
  ASSERT_EQ(geometries.size(), 2u);
  const auto* read = std::get_if<SdfShape>(&geometries[0].shape);
  ASSERT_NE(read, nullptr);
  EXPECT_EQ(read->field, nullptr);
  ASSERT_NE(read->surface, nullptr);
  EXPECT_EQ(read->surface->vertices.size(), bolt.surface->vertices.size());
  EXPECT_EQ(read->surface->triangles, bolt.surface->triangles);
  EXPECT_NEAR(Volume(geometries[0].shape), Volume(bolt), 1e-12 * Volume(bolt));
}

// An ellipsoid is read back with its semi-axes (the last shape code).
TEST(RunOutput, EllipsoidsKeepTheirSemiAxes) {
  Scene scene;
  scene.name = "egg";
  const Eigen::Vector3d semi_axes(0.1, 0.05, 0.2);
  scene.system.AddFreeBody("egg", Ellipsoid{semi_axes}, 1.0,
                           Pose(Eigen::Vector3d(0, 0, 1)), Eigen::Vector3d::Zero(),
                           Eigen::Vector3d::Zero(), ContactMaterial{});
  const std::vector<RecordedGeometry> geometries = RecordedGeometriesOf(std::move(scene));
  ASSERT_EQ(geometries.size(), 1u);
  const auto* read = std::get_if<Ellipsoid>(&geometries[0].shape);
  ASSERT_NE(read, nullptr);
  EXPECT_EQ(read->semi_axes, semi_axes);
}

}  // namespace
}  // namespace coulomb
