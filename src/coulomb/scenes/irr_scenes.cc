#include "coulomb/scenes/irr_scenes.h"

#include <cmath>
#include <numbers>
#include <stdexcept>

#include "coulomb/scenes/scene_options.h"

namespace coulomb {
namespace {

constexpr double kSteelStiffness = 1e7;  // [N/m], IRR §IX

// The options of the IRR scenes: stiffness=K [N/m] of the moving body
// (default steel, 1e7) and, for the rod, dissipation=true|false.
struct IrrOptions {
  double stiffness = kSteelStiffness;
  bool dissipation = true;
};

IrrOptions ParseIrrOptions(const std::string& scene,
                           const std::map<std::string, std::string>& options,
                           bool has_dissipation) {
  IrrOptions parsed;
  for (const auto& [key, value] : options) {
    if (key == "stiffness") {
      parsed.stiffness = ParsePositive(key, value);
    } else if (key == "dissipation" && has_dissipation) {
      parsed.dissipation = ParseBool(key, value);
    } else {
      throw std::invalid_argument(scene + ": unknown option '" + key + "' (stiffness" +
                                  (has_dissipation ? ", dissipation)" : ")"));
    }
  }
  return parsed;
}

// The moving body's material; the ground or belt is rigid (k = ∞).
ContactMaterial BodyMaterial(double stiffness, double friction,
                             double hunt_crossley_dissipation,
                             double dissipation_time_scale) {
  ContactMaterial material;
  material.stiffness = stiffness;
  material.friction = friction;
  material.hunt_crossley_dissipation = hunt_crossley_dissipation;
  material.dissipation_time_scale = dissipation_time_scale;
  return material;
}

ContactMaterial RigidMaterial(const ContactMaterial& body) {
  ContactMaterial rigid = body;  // the same μ; k = ∞ leaves the body's k and d
  rigid.stiffness = std::numeric_limits<double>::infinity();
  return rigid;
}

Scene IrrScene(const std::string& name, double time_step, double duration) {
  Scene scene{name, MultibodySystem(), {}, duration};
  scene.parameters.time_step = time_step;
  scene.parameters.contact.model = ContactModel::kLagged;
  scene.parameters.contact.stiction_tolerance = 1e-4;
  scene.parameters.contact.sigma = 1e-3;
  return scene;
}

}  // namespace

Scene ConveyorBeltScene(const std::map<std::string, std::string>& options) {
  const IrrOptions parsed = ParseIrrOptions("conveyor_belt", options, false);
  Scene scene = IrrScene("conveyor_belt", 0.01, 3.0);
  const ContactMaterial box = BodyMaterial(parsed.stiffness, 0.7, 500.0, 1e-3);
  PrescribedMotion belt;
  belt.X_WB0 = Pose({0.0, 0.0, -0.05});  // top surface at z = 0
  belt.amplitude = Eigen::Vector3d(0.2, 0.0, 0.0);
  belt.frequency = 1.0;
  belt.phase = -0.5 * std::numbers::pi;  // x = −0.2 cos(2π t): starts at rest
  const int belt_body = scene.system.AddKinematicBody(belt);
  scene.system.AddGeometry(Box{{2.0, 1.0, 0.1}}, -1, belt_body,
                           Eigen::Isometry3d::Identity(), RigidMaterial(box));
  // At rest on four corners: static deflection m g / (4 k).
  const double deflection = 1.0 * 9.81 / (4.0 * parsed.stiffness);
  scene.system.AddFreeBody("box", Box{Eigen::Vector3d::Constant(0.05)}, 1.0,
                           Pose({0.0, 0.0, 0.025 - deflection}), Eigen::Vector3d::Zero(),
                           Eigen::Vector3d::Zero(), box);
  return scene;
}

Scene FallingSphereScene(const std::map<std::string, std::string>& options) {
  const IrrOptions parsed = ParseIrrOptions("falling_sphere", options, false);
  Scene scene = IrrScene("falling_sphere", 2e-3, 0.4);
  const ContactMaterial sphere = BodyMaterial(parsed.stiffness, 0.5, 500.0, 1e-3);
  scene.system.AddStaticGeometry(HalfSpace{}, Eigen::Isometry3d::Identity(),
                                 RigidMaterial(sphere));
  const double radius = 0.025;
  scene.system.AddFreeBody("sphere", Sphere{radius}, 0.5, Pose({0.0, 0.0, 0.05 + radius}),
                           Eigen::Vector3d(2.0, 0.0, 0.0), Eigen::Vector3d::Zero(),
                           sphere);
  return scene;
}

Scene SlidingRodScene(const std::map<std::string, std::string>& options) {
  const IrrOptions parsed = ParseIrrOptions("sliding_rod", options, true);
  Scene scene = IrrScene("sliding_rod", 1e-5, 0.1);
  const ContactMaterial rod = parsed.dissipation
                                  ? BodyMaterial(parsed.stiffness, 2.3, 0.2, 4e-6)
                                  : BodyMaterial(parsed.stiffness, 2.3, 0.0, 0.0);
  scene.system.AddStaticGeometry(HalfSpace{}, Eigen::Isometry3d::Identity(),
                                 RigidMaterial(rod));
  // Capsule axis z turned by −60° about y: axis (−cos 30°, 0, sin 30°), the
  // lower end at +x leads the motion; friction turns the rod upwards.
  const double radius = 0.005, length = 0.5 - 2 * radius;
  const double angle = std::numbers::pi / 6.0;
  const double center_height = 0.5 * length * std::sin(angle) + radius;
  scene.system.AddFreeBody(
      "rod", Capsule{radius, length}, 0.3,
      Pose({0.0, 0.0, center_height}, {0.0, angle - std::numbers::pi / 2, 0.0}),
      Eigen::Vector3d(10.0, 0.0, 0.0), Eigen::Vector3d::Zero(), rod);
  return scene;
}

}  // namespace coulomb
