#include "coulomb/scenes/builtin_scenes.h"

#include "coulomb/scenes/al_scenes.h"
#include "coulomb/scenes/irr_scenes.h"
#include "coulomb/scenes/scene_options.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <numbers>
#include <stdexcept>
#include <vector>

namespace coulomb {
namespace {

Scene SphereOnGround(const std::map<std::string, std::string>& options) {
  RejectOptions("sphere_on_ground", options);
  Scene scene{"sphere_on_ground", MultibodySystem(), {}, 2.0};
  scene.parameters.time_step = 0.01;
  scene.system.AddStaticGeometry(HalfSpace{}, Eigen::Isometry3d::Identity(),
                                 ContactMaterial{});
  scene.system.AddFreeBody("ball", Sphere{0.1}, 1.0, Pose({0, 0, 0.5}),
                           Eigen::Vector3d::Zero(), Eigen::Vector3d::Zero(),
                           ContactMaterial{});
  return scene;
}

Scene BoxSlide(const std::map<std::string, std::string>& options) {
  RejectOptions("box_slide", options);
  Scene scene{"box_slide", MultibodySystem(), {}, 0.5};
  scene.parameters.time_step = 1e-3;
  ContactMaterial material;
  material.friction = 0.5;
  scene.system.AddStaticGeometry(HalfSpace{}, Eigen::Isometry3d::Identity(), material);
  scene.system.AddFreeBody("box", Box{{0.2, 0.2, 0.1}}, 1.0, Pose({0, 0, 0.05}),
                           Eigen::Vector3d(1.0, 0, 0), Eigen::Vector3d::Zero(), material);
  return scene;
}

// Centres (x, y) of the clutter's columns. Four columns: the paper's layout,
// (±0.2, ±0.2) in the order (+,+), (−,+), (−,−), (+,−). More: a square grid
// of ⌈√C⌉ columns per side, 0.4 m apart like the paper's, centred on the
// origin, filled row by row.
std::vector<Eigen::Vector2d> ClutterColumns(int columns) {
  if (columns == 4) return {{0.2, 0.2}, {-0.2, 0.2}, {-0.2, -0.2}, {0.2, -0.2}};
  const int side = static_cast<int>(std::ceil(std::sqrt(static_cast<double>(columns))));
  std::vector<Eigen::Vector2d> centres;
  for (int k = 0; k < columns; ++k) {
    centres.emplace_back(0.4 * (k % side - 0.5 * (side - 1)),
                         0.4 * (k / side - 0.5 * (side - 1)));
  }
  return centres;
}

// Half the side of the square the columns stand in (0.4 m for four).
double ClutterHalfWidth(int columns) {
  return columns == 4 ? 0.4 : 0.2 * std::ceil(std::sqrt(static_cast<double>(columns)));
}

// The four walls, 0.05 m thick and 0.8 m high, outside the floor's
// interior square of half-width `half`.
void AddClutterWalls(double half, const ContactMaterial& material, Scene* scene) {
  const double thickness = 0.05, height = 0.8;
  const double center = half + 0.5 * thickness, length = 2 * half + 2 * thickness;
  for (const auto& [position, size] :
       {std::pair{Eigen::Vector3d(center, 0, 0.5 * height),
                  Eigen::Vector3d(thickness, length, height)},
        std::pair{Eigen::Vector3d(-center, 0, 0.5 * height),
                  Eigen::Vector3d(thickness, length, height)},
        std::pair{Eigen::Vector3d(0, center, 0.5 * height),
                  Eigen::Vector3d(length, thickness, height)},
        std::pair{Eigen::Vector3d(0, -center, 0.5 * height),
                  Eigen::Vector3d(length, thickness, height)}}) {
    scene->system.AddStaticGeometry(Box{size}, Pose(position), material);
  }
}

// SAP §VI-C with the exact layout of ../shared/spec/scenes.md; `columns`
// spreads the bodies over more columns (ClutterColumns) for large scenes.
Scene Clutter(const std::map<std::string, std::string>& options) {
  int bodies = 40;
  int columns = 4;
  bool walls = true;
  const double dt = 0.01;
  ContactMaterial material;  // per geometry: a pair has half the stiffness
  material.stiffness = 1e12;
  material.dissipation_time_scale = dt;
  material.friction = 1.0;
  double clamp = kDefaultHuntCrossleyNearRigidThreshold;
  double sigma = kDefaultSigma;
  for (const auto& [key, value] : options) {
    if (key == "bodies") {
      bodies = ParseCount(key, value, 100000);
    } else if (key == "columns") {
      columns = ParseCount(key, value, 10000);
    } else if (key == "walls") {
      walls = ParseBool(key, value);
    } else if (key == "stiffness") {
      material.stiffness = ParsePositive(key, value);
    } else if (key == "hunt_crossley_dissipation") {
      material.hunt_crossley_dissipation = ParsePositive(key, value);
    } else if (key == "dissipation_time_scale") {
      material.dissipation_time_scale = ParsePositive(key, value);
    } else if (key == "hunt_crossley_near_rigid_threshold") {
      clamp = value == "0" ? 0.0 : ParsePositive(key, value);
    } else if (key == "sigma") {
      sigma = ParsePositive(key, value);
    } else {
      throw std::invalid_argument("clutter: unknown option '" + key +
                                  "' (bodies, columns, walls, stiffness, "
                                  "hunt_crossley_dissipation, dissipation_time_scale, "
                                  "hunt_crossley_near_rigid_threshold, sigma)");
    }
  }
  Scene scene{"clutter", MultibodySystem(), {}, 10.0};
  scene.parameters.time_step = dt;
  scene.parameters.contact.hunt_crossley_near_rigid_threshold = clamp;
  scene.parameters.contact.sigma = sigma;
  scene.system.AddStaticGeometry(HalfSpace{}, Eigen::Isometry3d::Identity(), material);
  if (walls) AddClutterWalls(ClutterHalfWidth(columns), material, &scene);
  const std::vector<Eigen::Vector2d> centres = ClutterColumns(columns);
  // N not a multiple of C: the first N mod C columns hold one more object.
  for (int k = 0; k < columns; ++k) {
    for (int j = 0; j < bodies / columns + (k < bodies % columns ? 1 : 0); ++j) {
      const Eigen::Vector3d position(centres[k].x(), centres[k].y(), 0.1 + 0.15 * j);
      const std::string name = "body_" + std::to_string(k) + "_" + std::to_string(j);
      if ((j + k) % 2 == 0) {
        scene.system.AddFreeBody(name, Sphere{0.05}, 1000.0 * Volume(Sphere{0.05}),
                                 Pose(position), Eigen::Vector3d::Zero(),
                                 Eigen::Vector3d::Zero(), material);
      } else {
        const Eigen::Vector3d rpy(0.2 * j, 0.3 * k, 0.1 * (j + k));
        scene.system.AddFreeBody(name, Box{Eigen::Vector3d::Constant(0.1)}, 1.0,
                                 Pose(position, rpy), Eigen::Vector3d::Zero(),
                                 Eigen::Vector3d::Zero(), material);
      }
    }
  }
  return scene;
}

// SAP §VI-B: a solid cylinder (R = 5 cm, 0.5 kg) moving in the x–z plane on
// the ground, its center tied by a spring k_s = 100 N/m to x = 0, released
// at rest from x0 = 0.1 m. Contact k = 1e4 N/m, τ_d = 0.02 s; δt = 0.02 s.
// friction=0: a spring–mass (ω = √(k_s/m)); friction=1: it rolls
// (m_eff = 1.5 m). It starts at its static contact deflection m g / k.
Scene SpringCylinder(const std::map<std::string, std::string>& options) {
  double friction = 0.0;
  for (const auto& [key, value] : options) {
    if (key != "friction") {
      throw std::invalid_argument("spring_cylinder: unknown option '" + key +
                                  "' (friction)");
    }
    size_t used = 0;
    try {
      friction = std::stod(value, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != value.size() || !(friction >= 0.0)) {
      throw std::invalid_argument("friction: expected a number ≥ 0, got '" + value + "'");
    }
  }
  const double radius = 0.05, length = 0.1, mass = 0.5, gravity = 9.81;
  ContactMaterial material;
  material.stiffness = 1e4;
  material.dissipation_time_scale = 0.02;
  material.friction = friction;
  Scene scene{
      "spring_cylinder", MultibodySystem(Eigen::Vector3d(0, 0, -gravity)), {}, 10.0};
  scene.parameters.time_step = 0.02;
  scene.parameters.scheme = Scheme::kMidpoint;
  // The cylinder's axis (z of its shape) along world y: rotate by 90° about x.
  const Eigen::Matrix3d R_BG =
      Eigen::AngleAxisd(std::numbers::pi / 2, Eigen::Vector3d::UnitX())
          .toRotationMatrix();
  const Shape shape = Cylinder{radius, length};
  const Eigen::Matrix3d inertia =
      mass / Volume(shape) * R_BG * UnitDensityInertia(shape) * R_BG.transpose();
  const int tree = scene.system.AddTree(
      "cylinder", MultibodyTree::PlanarBody("cylinder", mass, inertia),
      Eigen::Vector3d(0.1, radius - mass * gravity / material.stiffness, 0.0),
      Eigen::Vector3d::Zero());
  Eigen::Isometry3d X_BG = Eigen::Isometry3d::Identity();
  X_BG.linear() = R_BG;
  scene.system.AddGeometry(shape, tree, 0, X_BG, material);
  scene.system.AddStaticGeometry(HalfSpace{}, Eigen::Isometry3d::Identity(), material);
  scene.system.AddJointSpringDamper(tree, "x", 100.0, 0.0, 0.0);
  return scene;
}

// Unitree A1 from example-robot-data (collision primitives only), dropped
// from 0.5 m unactuated, each joint at its neutral position clamped into its
// URDF limits (the neutral calf angle 0 lies outside [−2.7, −0.9] rad: a start
// 0.9 rad past the limit would be pushed out at ~350 rad/s).
Scene QuadrupedDrop(const std::map<std::string, std::string>& options) {
  RejectOptions("quadruped_drop", options);
  const std::string urdf = RobotDataDirectory() + "/a1_description/urdf/a1.urdf";
  Scene scene{"quadruped_drop", MultibodySystem(), {}, 1.0};
  scene.parameters.time_step = 2e-3;
  scene.system.AddStaticGeometry(HalfSpace{}, Eigen::Isometry3d::Identity(),
                                 ContactMaterial{});
  MultibodyTree robot = MultibodyTree::FromUrdf(urdf, /*floating_base=*/true);
  Eigen::VectorXd q = robot.NeutralConfiguration();
  q[2] = 0.5;
  for (const std::string& name : robot.OneDofJointNames()) {
    const MultibodyTree::JointIndex joint = robot.FindOneDofJoint(name);
    q[joint.position] =
        std::clamp(q[joint.position], joint.lower_limit, joint.upper_limit);
  }
  const Eigen::VectorXd v = Eigen::VectorXd::Zero(robot.num_velocities());
  scene.system.AddRobot("a1", std::move(robot), q, v, ContactMaterial{});
  return scene;
}

}  // namespace

std::vector<BuiltinSceneInfo> BuiltinScenes() {
  return {
      {"clutter",
       "SAP §VI-C: 40 spheres and boxes fall into an 80 cm box (bodies=N, columns=C "
       "(4: the paper's; more: a grid 0.4 m apart, walls around it), walls=false, "
       "stiffness=K, hunt_crossley_dissipation=D, dissipation_time_scale=T, "
       "hunt_crossley_near_rigid_threshold=B, sigma=σ: SAP's tangential "
       "regularization)"},
      {"sphere_on_ground", "a 1 kg ball dropped from 0.5 m onto the ground"},
      {"box_slide", "a box sliding at 1 m/s on the ground comes to rest (μ = 0.5)"},
      {"spring_cylinder",
       "SAP §VI-B: a cylinder on a spring, sliding (friction=0) or rolling (friction=1)"},
      {"quadruped_drop",
       "a Unitree A1 (example-robot-data URDF) dropped on the ground, limp"},
      {"conveyor_belt",
       "IRR §IX-A: a box on a belt oscillating at 1 Hz, ±0.2 m (μ = 0.7; stiffness=K)"},
      {"falling_sphere",
       "IRR §IX-B: a steel sphere lands sliding at 2 m/s and starts to roll "
       "(stiffness=K)"},
      {"dish_pile",
       "AL §VII-A1: two bowls and a plate (0.1 kg) under a 5 kg pot "
       "(dishes=cylinders|sdf)"},
      {"bolt_nut",
       "AL §VII-A1: an M48 nut on a fixed bolt, SDF contact clustered to 120 "
       "(friction=μ, torque=T N·m about the axis, turn=θ: start turned by θ rad)"},
      {"laikago_drop",
       "AL §VII-D2: 8 Laikago quadrupeds dropped on the ground (robots=N)"},
      {"sliding_rod",
       "IRR §IX-C: Painlevé's rod jams into the ground (dissipation=true|false, "
       "stiffness=K)"}};
}

Scene MakeBuiltinScene(const std::string& name,
                       const std::map<std::string, std::string>& options) {
  if (name == "clutter") return Clutter(options);
  if (name == "sphere_on_ground") return SphereOnGround(options);
  if (name == "box_slide") return BoxSlide(options);
  if (name == "quadruped_drop") return QuadrupedDrop(options);
  if (name == "spring_cylinder") return SpringCylinder(options);
  if (name == "conveyor_belt") return ConveyorBeltScene(options);
  if (name == "falling_sphere") return FallingSphereScene(options);
  if (name == "sliding_rod") return SlidingRodScene(options);
  if (name == "dish_pile") return DishPileScene(options);
  if (name == "bolt_nut") return BoltNutScene(options);
  if (name == "laikago_drop") return LaikagoDropScene(options);
  std::string names;
  for (const BuiltinSceneInfo& info : BuiltinScenes())
    names += (names.empty() ? "" : ", ") + info.name;
  throw std::invalid_argument("unknown scene '" + name + "' (built-in scenes: " + names +
                              ")");
}

}  // namespace coulomb
