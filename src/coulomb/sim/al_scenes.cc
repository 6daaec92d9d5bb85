#include "coulomb/sim/al_scenes.h"

#include "coulomb/sim/scene_options.h"

namespace coulomb {

Scene DishPileScene(const std::map<std::string, std::string>& options) {
  RejectOptions("dish_pile", options);
  Scene scene{"dish_pile", MultibodySystem(), {}, 0.5};
  scene.parameters.time_step = 1.0 / 240.0;
  ContactMaterial material;
  material.friction = 0.5;
  scene.system.AddStaticGeometry(HalfSpace{}, Eigen::Isometry3d::Identity(), material);
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
    scene.system.AddFreeBody(dish.name, dish.shape, dish.mass,
                             Pose({dish.offset.x(), dish.offset.y(), z}),
                             Eigen::Vector3d::Zero(), Eigen::Vector3d::Zero(), material);
    z += 0.5 * dish.shape.length;
  }
  return scene;
}

}  // namespace coulomb
