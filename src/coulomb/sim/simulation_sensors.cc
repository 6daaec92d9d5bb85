// Simulation's sensor readings (simulation.h): kinematic ones from the
// trees' state (sensors.h), forces from the last step's solution.
#include "coulomb/sim/simulation.h"

namespace coulomb {

std::vector<std::string> Simulation::sensor_names(const std::string& tree) const {
  return NamesOf(scene_.system.tree(FindTree(tree)).sensors);
}

std::vector<Eigen::VectorXd> Simulation::SensorReadings(const std::string& tree) const {
  const int t = FindTree(tree);
  const MultibodySystem::Tree& owner = scene_.system.tree(t);
  const std::vector<std::string> joints = owner.model.OneDofJointNames();
  const Eigen::VectorXd efforts = JointEfforts(tree);
  std::vector<Eigen::VectorXd> readings;
  for (const Sensor& sensor : owner.sensors) {
    Eigen::VectorXd value = Eigen::VectorXd::Zero(sensor.dimension());
    if (sensor.kind == Sensor::Kind::kJointActuatorForce) {
      for (size_t k = 0; k < joints.size(); ++k)
        if (owner.model.FindOneDofJoint(joints[k]).velocity == sensor.terms[0].velocity)
          value[0] = efforts[static_cast<Eigen::Index>(k)];
      value = ApplyCutoff(sensor, value);
    } else if (sensor.kind == Sensor::Kind::kTouch) {
      value[0] = TouchForce(t, sensor);
      value = ApplyCutoff(sensor, value);
    } else {
      value = ReadKinematicSensor(sensor, owner.model, owner.q, owner.v);
    }
    readings.push_back(std::move(value));
  }
  return readings;
}

double Simulation::TouchForce(int tree, const Sensor& sensor) const {
  const CollisionWorld& world = scene_.system.collision_world();
  const auto on_body = [&](int geometry) {
    return world.tree(geometry) == tree && world.body(geometry) == sensor.body;
  };
  const Eigen::Isometry3d X_SW =
      SensorFrame(sensor, scene_.system.tree(tree).model).inverse();
  double force = 0.0;
  VisitLastContacts([&](const ContactPoint& point, const Eigen::Vector3d& gamma_W) {
    if ((on_body(point.geometry_a) || on_body(point.geometry_b)) &&
        sensor.Contains(X_SW * point.p_W))
      force += std::abs(gamma_W.dot(point.normal_W)) / time_step();
  });
  return force;
}

}  // namespace coulomb
