#include "coulomb/scenes/al_scenes.h"

#include <cmath>
#include <numbers>
#include <stdexcept>

#include "coulomb/geometry/revolved_shell.h"
#include "coulomb/geometry/threaded_fasteners.h"
#include "coulomb/scenes/scene_options.h"

namespace coulomb {

namespace {

// The dishes as revolved 2-D SDFs (AL App. B): base O–A and wall A–B, 2d
// thick. The paper gives the construction, not the numbers: these fit the
// cylinders' envelopes (bowls 7.5 cm in radius, 4 cm high; a plate 11 cm,
// 1.2 cm; a pot 10 cm, 12 cm).
struct ShellDish {
  const char* name;
  RevolvedShellSize size;
  double mass;
  Eigen::Vector2d offset;
};
const ShellDish kShellDishes[] = {
    {"bowl_1", {{0.04, 0.0}, {0.075, 0.04}, 0.002}, 0.1, {0.0, 0.0}},
    {"bowl_2", {{0.04, 0.0}, {0.075, 0.04}, 0.002}, 0.1, {0.01, -0.005}},
    {"plate", {{0.07, 0.0}, {0.11, 0.012}, 0.002}, 0.1, {-0.008, 0.006}},
    {"pot", {{0.1, 0.0}, {0.1, 0.12}, 0.003}, 5.0, {0.012, 0.01}}};

// Each dish 1 mm above the top of the one below: the second bowl drops into
// the first and nests, the plate and the pot settle on it.
void AddShellDishes(const ContactMaterial& material, Scene* scene) {
  double bottom = 0.0;
  for (const ShellDish& dish : kShellDishes) {
    const double z = bottom + dish.size.thickness;  // O, the base's middle
    scene->system.AddFreeBody(dish.name, MakeRevolvedShell(dish.size, dish.name),
                              dish.mass, Pose({dish.offset.x(), dish.offset.y(), z}),
                              Eigen::Vector3d::Zero(), Eigen::Vector3d::Zero(), material);
    bottom = z + dish.size.b.y() + dish.size.thickness + 1e-3;
  }
}

void AddCylinderDishes(const ContactMaterial& material, Scene* scene) {
  struct Dish {
    const char* name;
    Cylinder shape;
    double mass;
    Eigen::Vector2d offset;
  };
  const Dish dishes[] = {{"bowl_1", {0.075, 0.04}, 0.1, {0.0, 0.0}},
                         {"bowl_2", {0.075, 0.04}, 0.1, {0.01, -0.005}},
                         {"plate", {0.11, 0.012}, 0.1, {-0.008, 0.006}},
                         {"pot", {0.1, 0.12}, 5.0, {0.012, 0.01}}};
  double z = 0.0;
  for (const Dish& dish : dishes) {
    z += 0.5 * dish.shape.length;
    scene->system.AddFreeBody(dish.name, dish.shape, dish.mass,
                              Pose({dish.offset.x(), dish.offset.y(), z}),
                              Eigen::Vector3d::Zero(), Eigen::Vector3d::Zero(), material);
    z += 0.5 * dish.shape.length;
  }
}

}  // namespace

Scene DishPileScene(const std::map<std::string, std::string>& options) {
  bool shells = false;
  for (const auto& [key, value] : options) {
    if (key != "dishes" || (value != "cylinders" && value != "sdf")) {
      throw std::invalid_argument("dish_pile: unknown option '" + key + "=" + value +
                                  "' (dishes=cylinders|sdf)");
    }
    shells = value == "sdf";
  }
  Scene scene{"dish_pile", MultibodySystem(), {}, 0.5};
  scene.parameters.time_step = 1.0 / 240.0;
  ContactMaterial material;
  material.friction = 0.5;
  scene.system.AddStaticGeometry(HalfSpace{}, Eigen::Isometry3d::Identity(), material);
  if (shells) {
    AddShellDishes(material, &scene);
  } else {
    AddCylinderDishes(material, &scene);
  }
  return scene;
}

Scene LaikagoDropScene(const std::map<std::string, std::string>& options) {
  int robots = 8;
  for (const auto& [key, value] : options) {
    if (key != "robots") {
      throw std::invalid_argument("laikago_drop: unknown option '" + key + "' (robots)");
    }
    robots = ParseCount(key, value, 1000);
  }
  Scene scene{"laikago_drop", MultibodySystem(), {}, 0.5};
  scene.parameters.time_step = 1.0 / 240.0;
  scene.system.AddStaticGeometry(HalfSpace{}, Eigen::Isometry3d::Identity(),
                                 ContactMaterial{});
  const std::string urdf =
      RobotDataDirectory() + "/laikago_description/urdf/laikago.urdf";
  const int columns = static_cast<int>(std::ceil(std::sqrt(robots)));
  for (int k = 0; k < robots; ++k) {
    MultibodyTree robot = MultibodyTree::FromUrdf(urdf, /*floating_base=*/true);
    Eigen::VectorXd q = robot.NeutralConfiguration();
    q.head<3>() << (k % columns) * 1.0, (k / columns) * 1.0, 0.6;
    const Eigen::VectorXd v = Eigen::VectorXd::Zero(robot.num_velocities());
    const int tree = scene.system.AddRobot("laikago_" + std::to_string(k),
                                           std::move(robot), q, v, ContactMaterial{});
    scene.system.tree(tree).limits.clear();  // contacts only, as in AL §VII-D2
  }
  return scene;
}

Scene BoltNutScene(const std::map<std::string, std::string>& options) {
  double friction = 0.15, torque = 0.0, turn = 0.0;
  for (const auto& [key, value] : options) {
    if (key == "friction") {
      friction = ParseFinite(key, value);
      if (friction < 0.0)
        throw std::invalid_argument("friction: must be ≥ 0, got " + value);
    } else if (key == "torque") {
      torque = ParseFinite(key, value);
    } else if (key == "turn") {
      turn = ParseFinite(key, value);
    } else {
      throw std::invalid_argument("bolt_nut: unknown option '" + key +
                                  "' (friction, torque, turn)");
    }
  }
  Scene scene{"bolt_nut", MultibodySystem(), {}, 1.0};
  scene.parameters.time_step = 1e-3;
  scene.parameters.contact_margin = 5e-4;
  ContactMaterial material;
  material.friction = friction;
  scene.system.AddStaticGeometry(MakeThreadedBolt({}), Eigen::Isometry3d::Identity(),
                                 material);
  const ThreadedNutSize size;
  const Shape nut = MakeThreadedNut(size);
  constexpr double kSteelDensity = 7850.0;  // [kg/m³]
  // Turned by `turn` about z and raised by P turn/2π: in phase with the thread.
  Eigen::Isometry3d X_WN = Eigen::Isometry3d::Identity();
  X_WN.linear() = Eigen::AngleAxisd(turn, Eigen::Vector3d::UnitZ()).toRotationMatrix();
  X_WN.translation().z() = size.pitch * turn / (2.0 * std::numbers::pi);
  const int tree = scene.system.AddFreeBody("nut", nut, kSteelDensity * Volume(nut), X_WN,
                                            Eigen::Vector3d::Zero(),
                                            Eigen::Vector3d::Zero(), material);
  if (torque != 0.0) {
    Eigen::VectorXd wrench = Eigen::VectorXd::Zero(6);
    wrench[5] = torque;  // about the nut's own z axis, the bolt's
    scene.system.tree(tree).applied_force = wrench;
  }
  return scene;
}

}  // namespace coulomb
