#include "coulomb/sim/scene_file.h"

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "test_support.h"

namespace coulomb {
namespace {

namespace fs = std::filesystem;

fs::path WriteScene(const std::string& name, const std::string& text) {
  const fs::path path = fs::temp_directory_path() /
                        ("scene_" + std::to_string(getpid()) + "_" + name + ".yaml");
  std::ofstream(path) << text;
  return path;
}

// Loading `text` must fail with a message containing `message`.
void ExpectSceneError(const std::string& text, const std::string& message) {
  const fs::path bad = WriteScene("bad", text);
  try {
    LoadSceneFile(bad.string());
    ADD_FAILURE() << text << " was accepted";
  } catch (const SceneFileError& e) {
    EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
  }
  fs::remove(bad);
}

constexpr const char* kValid = R"(time_step: 0.002
duration: 0.5
scheme: midpoint
gravity: [0, 0, -3.7]
contact: {friction: 0.4, dissipation_time_scale: 0.01}
solver: {rel_tolerance: 1.0e-8, linear_solver: dense}
bodies:
  - name: ground
    shape: {halfspace: {}}
    fixed: true
  - name: brick
    shape: {box: {size: [0.1, 0.2, 0.3]}}
    density: 1000
    pose: {position: [1, 2, 3], rpy: [0, 0, 1.5707963267948966]}
    velocity: {linear: [0.5, 0, 0]}
    contact: {friction: 0.9}
)";

TEST(SceneFile, ReadsEveryKeyIntoTheScene) {
  const fs::path path = WriteScene("valid", kValid);
  Scene scene = LoadSceneFile(path.string());
  EXPECT_DOUBLE_EQ(scene.parameters.time_step, 0.002);
  EXPECT_DOUBLE_EQ(scene.duration, 0.5);
  EXPECT_EQ(scene.parameters.scheme, Scheme::kMidpoint);
  EXPECT_EQ(scene.parameters.solver.sap.linear_solver, LinearSolverType::kDense);
  EXPECT_DOUBLE_EQ(scene.parameters.solver.sap.rel_tolerance, 1e-8);
  EXPECT_EQ(scene.system.gravity(), Eigen::Vector3d(0, 0, -3.7));
  ASSERT_EQ(scene.system.num_trees(), 1);
  ASSERT_EQ(scene.system.collision_world().num_geometries(), 2);
  EXPECT_DOUBLE_EQ(scene.system.material(0).friction, 0.4);
  EXPECT_DOUBLE_EQ(scene.system.material(1).friction, 0.9);
  EXPECT_DOUBLE_EQ(scene.system.material(1).dissipation_time_scale, 0.01);
  MultibodySystem::Tree& brick = scene.system.tree(0);
  brick.model.SetState(brick.q, brick.v);
  EXPECT_NEAR(brick.model.mass_matrix()(0, 0), 1000 * 0.1 * 0.2 * 0.3,
              1e-12);  // density × volume
  EXPECT_TRUE(brick.model.body_pose(0).translation().isApprox(Eigen::Vector3d(1, 2, 3)));
  // yaw of 90°: the body x axis points along world y.
  EXPECT_TRUE(
      brick.model.body_pose(0).linear().col(0).isApprox(Eigen::Vector3d::UnitY(), 1e-12));
  EXPECT_TRUE(brick.model.BodyLinearVelocity(0).isApprox(Eigen::Vector3d(0.5, 0, 0)));
  fs::remove(path);
}

// Each broken variant of the valid file must fail with FILE:LINE: KEY: …
struct BrokenScene {
  const char* name;
  const char* replace;
  const char* with;
  const char* message;  // expected fragment: "LINE: KEY: what"
};

TEST(SceneFile, RejectsBadInputNamingFileLineAndKey) {
  const std::vector<BrokenScene> cases = {
      {"unknown_key", "duration: 0.5", "duraton: 0.5", ":2: duraton: unknown key"},
      {"negative_step", "time_step: 0.002", "time_step: -1",
       ":1: time_step: must be positive"},
      {"nan_gravity", "[0, 0, -3.7]", "[0, .nan, -3.7]",
       ":4: gravity[1]: must be finite"},
      {"bad_scheme", "scheme: midpoint", "scheme: leapfrog",
       ":3: scheme: unknown scheme"},
      {"negative_friction", "{friction: 0.9}", "{friction: -0.9}",
       ":16: bodies[1].contact.friction: must be ≥ 0"},
      {"negative_density", "density: 1000", "density: -1000",
       ":13: bodies[1].density: must be positive"},
      {"mass_and_density", "density: 1000", "density: 1000\n    mass: 2",
       "bodies[1]: give exactly one of mass and density"},
      {"wrong_type", "[0.1, 0.2, 0.3]", "big",
       "bodies[1].shape.box.size: expected a list of 3"},
      {"two_shapes", "{box: {size: [0.1, 0.2, 0.3]}}",
       "{box: {size: [0.1, 0.2, 0.3]}, sphere: {radius: 1}}",
       "bodies[1].shape: give exactly one"},
      {"duplicate_name", "name: brick", "name: ground", "bodies[1].name: duplicate name"},
      {"kinematic_with_mass", "density: 1000",
       "density: 1000\n    motion: {frequency: 1}",
       "bodies[1].density: not allowed on a fixed or kinematic body"},
      {"negative_frequency", "fixed: true", "motion: {frequency: -1}",
       ":10: bodies[0].motion.frequency: must be ≥ 0"},
      {"unknown_model", "{friction: 0.4,", "{model: rigid, friction: 0.4,",
       ":5: contact.model: unknown contact model 'rigid'"},
      {"lagged_without_stiffness", "{friction: 0.4,", "{model: lagged, friction: 0.4,",
       ":5: contact.model: Hunt & Crossley models need a finite contact.stiffness"},
      {"negative_hunt_crossley", "{friction: 0.9}", "{hunt_crossley_dissipation: -1}",
       ":16: bodies[1].contact.hunt_crossley_dissipation: must be ≥ 0"},
      {"zero_stiction_tolerance", "{friction: 0.4,",
       "{stiction_tolerance: 0, friction: 0.4,",
       ":5: contact.stiction_tolerance: must be positive"},
      {"negative_lookahead", "{friction: 0.4,", "{lookahead: -0.01, friction: 0.4,",
       ":5: contact.lookahead: must be ≥ 0"},
  };
  for (const BrokenScene& c : cases) {
    std::string text = kValid;
    const size_t at = text.find(c.replace);
    ASSERT_NE(at, std::string::npos) << c.name;
    text.replace(at, std::string(c.replace).size(), c.with);
    const fs::path path = WriteScene(c.name, text);
    try {
      LoadSceneFile(path.string());
      ADD_FAILURE() << c.name << " was accepted";
    } catch (const SceneFileError& e) {
      const std::string message = e.what();
      EXPECT_EQ(message.rfind(path.string(), 0), 0u) << message;  // starts with the file
      EXPECT_NE(message.find(c.message), std::string::npos) << c.name << ": " << message;
    }
    fs::remove(path);
  }
}

TEST(SceneFile, ReadsAnExplicitInertiaAboutTheCentreOfMass) {
  const std::string body =
      "bodies:\n  - name: b\n    shape: {sphere: {radius: 0.1}}\n    mass: 2\n";
  const fs::path path =
      WriteScene("inertia", body + "    inertia: [0.3, 0.2, 0.1, 0.01, 0, -0.02]\n");
  Scene scene = LoadSceneFile(path.string());
  MultibodySystem::Tree& tree = scene.system.tree(0);
  tree.model.SetState(tree.q, tree.v);
  Eigen::Matrix3d expected;
  expected << 0.3, 0.01, 0, 0.01, 0.2, -0.02, 0, -0.02, 0.1;
  // Free joint: v = [ṗ_WB, ω_B], so M = diag(m 1, I_B).
  const Eigen::Matrix3d rotational = tree.model.mass_matrix().bottomRightCorner(3, 3);
  EXPECT_TRUE(rotational.isApprox(expected, 1e-12)) << rotational;
  EXPECT_NEAR(tree.model.mass_matrix()(0, 0), 2.0, 1e-12);
  fs::remove(path);
  const std::pair<const char*, const char*> broken[] = {
      {"    inertia: [1, 1, 1]\n", ":5: bodies[0].inertia: expected [ixx"},
      {"    inertia: [1, 1, -1, 0, 0, 0]\n",
       ":5: bodies[0].inertia: must be positive definite"},
  };
  for (const auto& [text, message] : broken) ExpectSceneError(body + text, message);
}

TEST(SceneFile, ReadsConvexMeshesRelativeToTheSceneFile) {
  const fs::path obj =
      fs::temp_directory_path() / ("cube_" + std::to_string(getpid()) + ".obj");
  {
    std::ofstream file(obj);  // the unit cube [0, 1]³ (its centroid is 0.5, 0.5, 0.5)
    for (int c = 0; c < 8; ++c)
      file << "v " << (c & 1) << " " << (c >> 1 & 1) << " " << (c >> 2) << "\n";
    // Assimp keeps only vertices that faces use: a fan over all of them.
    for (int k = 2; k < 8; ++k) file << "f 1 " << k << " " << k + 1 << "\n";
  }
  const fs::path path = WriteScene(
      "mesh",
      "bodies:\n  - name: cube\n    shape: {mesh: {file: " + obj.filename().string() +
          ", scale: 0.1}}\n    density: 1000\n    pose: {position: [1, 0, 0]}\n");
  Scene scene = LoadSceneFile(path.string());
  ASSERT_EQ(scene.system.num_trees(), 1);
  MultibodySystem::Tree& cube = scene.system.tree(0);
  EXPECT_NEAR(cube.q[0], 1.05, 1e-6);  // the body frame is the centroid
  MultibodyTree& model = cube.model;
  model.SetState(cube.q, cube.v);
  EXPECT_NEAR(model.mass_matrix()(0, 0), 1.0, 1e-6);  // 1000 kg/m³ × (0.1 m)³
  const CollisionWorld& world = scene.system.collision_world();
  EXPECT_TRUE(
      std::holds_alternative<ConvexMesh>(world.shape(world.num_geometries() - 1)));
  const std::pair<const char*, const char*> broken[] = {
      {"{mesh: {file: missing.stl}}", ":3: bodies[0].shape.mesh.file: "},
      {"{mesh: {file: X, scale: [1, 0, 1]}}",
       ":3: bodies[0].shape.mesh.scale: must be positive"},
      {"{mesh: {path: X}}", ":3: bodies[0].shape.mesh.path: unknown key"},
  };
  for (const auto& [shape, message] : broken) {
    std::string text =
        std::string("bodies:\n  - name: b\n    shape: ") + shape + "\n    mass: 1\n";
    const size_t x = text.find("file: X");
    if (x != std::string::npos) text.replace(x + 6, 1, obj.filename().string());
    ExpectSceneError(text, message);
  }
  fs::remove(obj);
  fs::remove(path);
}

TEST(SceneFile, ReadsThreadedFastenersAndSampledMeshFields) {
  const fs::path obj =
      fs::temp_directory_path() / ("sdf_cube_" + std::to_string(getpid()) + ".obj");
  {
    std::ofstream file(obj);  // the unit cube [0, 1]³ as 12 outward triangles
    for (int c = 0; c < 8; ++c)
      file << "v " << (c & 1) << " " << (c >> 1 & 1) << " " << (c >> 2) << "\n";
    file << "f 1 3 2\nf 2 3 4\nf 5 6 7\nf 6 8 7\nf 1 2 5\nf 2 6 5\n"
            "f 3 7 4\nf 4 7 8\nf 1 5 3\nf 3 5 7\nf 2 4 6\nf 4 8 6\n";
  }
  const fs::path path = WriteScene(
      "sdf",
      "contact: {max_sdf_contacts: 40}\n"
      "bodies:\n  - name: bolt\n    shape: {threaded_bolt: {length: 0.06}}\n"
      "    fixed: true\n  - name: bowl\n    shape: {revolved_shell: {a: [0.04, 0],"
      " b: [0.075, 0.04], thickness: 0.002}}\n    mass: 0.1\n"
      "    pose: {position: [0, 1, 0]}\n"
      "  - name: nut\n    shape: {threaded_nut: {}}\n"
      "    density: 7850\n  - name: cube\n    shape: {sdf_mesh: {file: " +
          obj.filename().string() +
          ", scale: 0.1, resolution: 8}}\n    density: 1000\n"
          "    pose: {position: [1, 0, 0]}\n");
  Scene scene = LoadSceneFile(path.string());
  const CollisionWorld& world = scene.system.collision_world();
  ASSERT_EQ(world.num_geometries(), 4);
  EXPECT_EQ(world.max_sdf_contacts(), 40);
  for (int g = 0; g < 4; ++g)
    EXPECT_TRUE(std::holds_alternative<SdfShape>(world.shape(g)));
  EXPECT_NE(std::get<SdfShape>(world.shape(0)).description.find("60 mm"),
            std::string::npos);
  MultibodySystem::Tree& cube = scene.system.tree(2);
  cube.model.SetState(cube.q, cube.v);
  EXPECT_NEAR(cube.model.mass_matrix()(0, 0), 1.0, 1e-6);  // 1000 kg/m³ × (0.1 m)³
  EXPECT_NEAR(cube.q[0], 1.05, 1e-9);  // the body frame is the centroid
  ExpectSceneError(
      "bodies:\n  - name: b\n    shape: {threaded_nut: {pitch: 0}}\n    mass: 1\n",
      ":3: bodies[0].shape.threaded_nut: thread: need pitch > 0");
  ExpectSceneError(
      "bodies:\n  - name: b\n    shape: {sdf_mesh: {resolution: 8}}\n    mass: 1\n",
      ":3: bodies[0].shape.sdf_mesh: file is required");
  ExpectSceneError(
      "bodies:\n  - name: b\n    shape: {revolved_shell: {a: [0.04, 0], b: [0.07]}}\n"
      "    mass: 1\n",
      ":3: bodies[0].shape.revolved_shell: a, b and thickness are required");
  ExpectSceneError(
      "bodies:\n  - name: b\n    shape: {revolved_shell: {a: [0.001, 0], b: [0.07, "
      "0.03], "
      "thickness: 0.002}}\n    mass: 1\n",
      ":3: bodies[0].shape.revolved_shell: a revolved shell needs");
  ExpectSceneError("contact: {max_sdf_contacts: 0}\nbodies: []\n",
                   ":1: contact.max_sdf_contacts: must be at least 1");
  fs::remove(obj);
  fs::remove(path);
}

TEST(SceneFile, ReadsTheHuntCrossleyContactModel) {
  std::string text = kValid;
  const std::string defaults = "contact: {friction: 0.4, dissipation_time_scale: 0.01}";
  text.replace(
      text.find(defaults), defaults.size(),
      "contact: {model: similar, stiffness: 1.0e7, hunt_crossley_dissipation: 500,\n"
      "          stiction_tolerance: 1.0e-3, friction: 0.4}");
  const fs::path path = WriteScene("similar", text);
  const Scene scene = LoadSceneFile(path.string());
  fs::remove(path);
  EXPECT_EQ(scene.parameters.contact.model, ContactModel::kSimilar);
  EXPECT_DOUBLE_EQ(scene.parameters.contact.stiction_tolerance, 1e-3);
  EXPECT_DOUBLE_EQ(scene.system.material(1).stiffness, 1e7);
  EXPECT_DOUBLE_EQ(scene.system.material(1).hunt_crossley_dissipation, 500.0);
  EXPECT_FALSE(scene.parameters.contact_lookahead.has_value());  // the models' own
}

TEST(SceneFile, ReadsTheSpeculativeContactsLookahead) {
  std::string text = kValid;
  const std::string defaults = "contact: {friction: 0.4,";
  text.replace(text.find(defaults), defaults.size(),
               "contact: {lookahead: 0, friction: 0.4,");
  const fs::path path = WriteScene("lookahead", text);
  const Scene scene = LoadSceneFile(path.string());
  fs::remove(path);
  ASSERT_TRUE(scene.parameters.contact_lookahead.has_value());
  EXPECT_EQ(*scene.parameters.contact_lookahead, 0.0);
}

TEST(SceneFile, ReadsKinematicBodiesWithPrescribedMotion) {
  const fs::path path = WriteScene("belt", R"(bodies:
  - name: belt
    shape: {box: {size: [2, 1, 0.1]}}
    pose: {position: [0, 0, -0.05]}
    motion: {amplitude: [0.2, 0, 0], frequency: 2.0, phase: 0.5, drift_velocity: [0, 0.1, 0]}
)");
  Scene scene = LoadSceneFile(path.string());
  fs::remove(path);
  ASSERT_EQ(scene.system.num_trees(), 0);
  ASSERT_EQ(scene.system.collision_world().num_geometries(), 1);
  EXPECT_EQ(scene.system.collision_world().tree(0), -1);
  const int body = scene.system.collision_world().body(0);
  EXPECT_GE(body, 1);
  scene.system.set_time(0.3);
  // p(t) = p0 + u t + a sin(2π f t + φ)
  const Eigen::Vector3d expected(0.2 * std::sin(2 * M_PI * 2.0 * 0.3 + 0.5), 0.03, -0.05);
  EXPECT_TRUE(scene.system.WorldBodyPose(body).translation().isApprox(expected, 1e-14));
  // The step's mean velocity moves the body exactly to its next pose.
  const Eigen::Vector3d velocity = scene.system.WorldBodyVelocity(body, 0.01);
  scene.system.set_time(0.31);
  EXPECT_TRUE((expected + 0.01 * velocity)
                  .isApprox(scene.system.WorldBodyPose(body).translation(), 1e-14));
}

// Contacts between the two balls of a stack, with and without `exclude`.
int BallBallContacts(const std::string& exclude) {
  const fs::path path = WriteScene("exclude", R"(bodies:
  - name: ground
    shape: {halfspace: {}}
    fixed: true
  - name: low
    shape: {sphere: {radius: 0.1}}
    mass: 1
    pose: {position: [0, 0, 0.09]}
  - name: high
    shape: {sphere: {radius: 0.1}}
    mass: 1
    pose: {position: [0, 0, 0.27]}
)" + exclude);
  Scene scene = LoadSceneFile(path.string());
  fs::remove(path);
  scene.system.UpdateAllTrees();
  std::vector<Eigen::Isometry3d> poses;
  scene.system.CalcGeometryPoses(&poses);
  std::vector<ContactPoint> contacts;
  scene.system.collision_world().ComputeContacts(poses, 0.0, &contacts);
  int ball_ball = 0;
  for (const ContactPoint& c : contacts)
    ball_ball += (c.geometry_a == 1 && c.geometry_b == 2);
  EXPECT_EQ(contacts.size() - ball_ball, 1u);  // low on the ground, always
  return ball_ball;
}

TEST(SceneFile, ExcludesContactBetweenNamedBodies) {
  EXPECT_EQ(BallBallContacts(""), 1);
  EXPECT_EQ(BallBallContacts("exclude: [[high, low]]\n"), 0);
  const fs::path bad = WriteScene("bad_exclude",
                                  "bodies:\n  - {name: c, shape: {sphere: {radius: "
                                  "0.1}}, mass: 1}\nexclude: [[a, b]]\n");
  try {
    LoadSceneFile(bad.string());
    ADD_FAILURE() << "an unknown name was accepted";
  } catch (const SceneFileError& e) {
    EXPECT_NE(std::string(e.what()).find(":3: exclude[0]: no body or robot 'a'"),
              std::string::npos)
        << e.what();
  }
  fs::remove(bad);
}

TEST(SceneFile, ReportsMissingFilesAndYamlSyntaxErrors) {
  EXPECT_THROW(LoadSceneFile("/nonexistent/scene.yaml"), SceneFileError);
  const fs::path path = WriteScene("syntax", "bodies: [\n  {name: a\n");
  try {
    LoadSceneFile(path.string());
    ADD_FAILURE() << "a YAML syntax error was accepted";
  } catch (const SceneFileError& e) {
    EXPECT_NE(std::string(e.what()).find(path.string() + ":"), std::string::npos)
        << e.what();
  }
  fs::remove(path);
}

}  // namespace
}  // namespace coulomb

namespace coulomb {
namespace {

TEST(SceneFile, PlacesAFixedBaseRobotAndSetsItsJoints) {
  const fs::path urdf =
      fs::temp_directory_path() / ("pendulum_" + std::to_string(getpid()) + ".urdf");
  testing::WritePendulumUrdf(urdf.string());
  const fs::path path = WriteScene(
      "robot",
      "bodies: []\nrobots:\n  - name: arm\n    urdf: " + urdf.filename().string() +
          "\n    base: fixed\n    pose: {position: [1, 0, 2]}\n"
          "    joints: {hinge: 0.3}\n");
  Scene scene =
      LoadSceneFile(path.string());  // the URDF path is relative to the scene file
  ASSERT_EQ(scene.system.num_trees(), 1);
  ASSERT_EQ(scene.system.collision_world().num_geometries(), 1);
  scene.system.UpdateAllTrees();
  std::vector<Eigen::Isometry3d> poses;
  scene.system.CalcGeometryPoses(&poses);
  // Hinge at (1, 0, 2), bob at R_y(0.3) (0, 0, −0.5) from it.
  const Eigen::Vector3d expected(1 - 0.5 * std::sin(0.3), 0, 2 - 0.5 * std::cos(0.3));
  EXPECT_TRUE(poses[0].translation().isApprox(expected, 1e-12))
      << poses[0].translation().transpose();

  const fs::path bad_joint = WriteScene(
      "bad_joint", "bodies: []\nrobots:\n  - name: arm\n    urdf: " +
                       urdf.filename().string() + "\n    joints: {elbow: 0.3}\n");
  try {
    LoadSceneFile(bad_joint.string());
    ADD_FAILURE() << "an unknown joint was accepted";
  } catch (const SceneFileError& e) {
    EXPECT_NE(
        std::string(e.what()).find(":5: robots[0].joints.elbow: no joint named 'elbow'"),
        std::string::npos)
        << e.what();
  }
  const fs::path missing = WriteScene(
      "missing_urdf", "bodies: []\nrobots:\n  - name: arm\n    urdf: nowhere.urdf\n");
  try {
    LoadSceneFile(missing.string());
    ADD_FAILURE() << "a missing URDF was accepted";
  } catch (const SceneFileError& e) {
    EXPECT_NE(std::string(e.what()).find(":4: robots[0].urdf:"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("URDF file not found"), std::string::npos)
        << e.what();
  }
  for (const auto& p : {urdf, path, bad_joint, missing}) fs::remove(p);
}

TEST(SceneFile, ReadsJointLimitsControllersSpringsAndArmature) {
  const fs::path urdf =
      fs::temp_directory_path() / ("pendulum_j_" + std::to_string(getpid()) + ".urdf");
  testing::WritePendulumUrdf(urdf.string());
  const std::string robot =
      "bodies: []\nrobots:\n  - name: arm\n    urdf: " + urdf.filename().string() +
      "\n    base: fixed\n";
  const fs::path path = WriteScene(
      "joints", robot +
                    "    limits: {hinge: [-0.5, .inf]}\n"
                    "    controllers: {hinge: {kp: 100, kd: 10, target: 0.2}}\n"
                    "    springs: {hinge: {stiffness: 3, rest: 0.1, damping: 0.5}}\n"
                    "    armature: {hinge: 0.05}\n");
  const Scene scene = LoadSceneFile(path.string());
  const MultibodySystem::Tree& arm = scene.system.tree(0);
  ASSERT_EQ(arm.limits.size(), 1u);
  EXPECT_EQ(arm.limits[0].lower, -0.5);
  EXPECT_TRUE(std::isinf(arm.limits[0].upper));
  ASSERT_EQ(arm.controllers.size(), 1u);
  EXPECT_EQ(arm.controllers[0].gains.proportional_gain, 100.0);
  EXPECT_EQ(arm.controllers[0].gains.target_position, 0.2);
  EXPECT_EQ(arm.controllers[0].gains.effort_limit, 10.0);  // the URDF's effort
  ASSERT_EQ(arm.springs.size(), 1u);
  EXPECT_EQ(arm.springs[0].stiffness, 3.0);
  EXPECT_EQ(arm.model.joint_armature("hinge"), 0.05);

  const fs::path no_limits = WriteScene("no_limits", robot + "    joint_limits: false\n");
  EXPECT_TRUE(LoadSceneFile(no_limits.string()).system.tree(0).limits.empty());

  const std::pair<const char*, const char*> broken[] = {
      {"    limits: {hinge: [1, -1]}\n", ":6: robots[0].limits.hinge: "},
      {"    controllers: {hinge: {kp: -1}}\n",
       ":6: robots[0].controllers.hinge.kp: must be ≥ 0"},
      {"    controllers: {elbow: {kp: 1}}\n",
       ":6: robots[0].controllers.elbow: no joint"},
      {"    springs: {hinge: {stiff: 1}}\n",
       "robots[0].springs.hinge.stiff: unknown key"},
      {"    armature: {hinge: -0.1}\n", ":6: robots[0].armature.hinge: must be ≥ 0"},
  };
  for (const auto& [text, message] : broken) ExpectSceneError(robot + text, message);
  for (const auto& p : {urdf, path, no_limits}) fs::remove(p);
}

}  // namespace
}  // namespace coulomb
