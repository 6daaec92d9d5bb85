// Simulation's actuator controls (simulation.h): MuJoCo's ctrl, as the PD
// controllers the file's actuators became.
#include "coulomb/sim/simulation.h"

namespace coulomb {

std::vector<std::string> Simulation::actuator_names(const std::string& tree) const {
  return NamesOf(scene_.system.tree(FindTree(tree)).actuators);
}

void Simulation::SetActuatorControl(const std::string& tree, const std::string& actuator,
                                    double control) {
  if (!std::isfinite(control))
    throw std::invalid_argument(actuator + ": control must be finite");
  for (const ActuatorControl& a : scene_.system.tree(FindTree(tree)).actuators) {
    if (a.name != actuator) continue;
    const double value = a.per_control * control;
    switch (a.sets) {
      case ActuatorControl::Sets::kEffort:
        SetJointEffort(tree, a.acted_on, value);
        return;
      case ActuatorControl::Sets::kTargetPosition:
        SetJointPdTarget(tree, a.acted_on, value, 0.0);
        return;
      case ActuatorControl::Sets::kTargetVelocity:
        SetJointPdTarget(tree, a.acted_on, 0.0, value);
        return;
    }
  }
  throw std::invalid_argument(tree + ": no actuator named '" + actuator + "'");
}

void Simulation::SetActuatorControls(const std::string& tree,
                                     const Eigen::VectorXd& controls) {
  const std::vector<std::string> actuators = actuator_names(tree);
  CheckOnePerName(tree, "ctrl", controls, actuators, "actuators");
  for (size_t k = 0; k < actuators.size(); ++k)
    SetActuatorControl(tree, actuators[k], controls[static_cast<Eigen::Index>(k)]);
}

Eigen::VectorXd Simulation::ActuatorForces(const std::string& tree) const {
  Eigen::VectorXd forces;
  CalcActuatorForces(FindTree(tree), &forces);
  return forces;
}

void Simulation::CalcActuatorForces(int t, Eigen::VectorXd* forces) const {
  const std::vector<ActuatorControl>& actuators = scene_.system.tree(t).actuators;
  forces->setZero(static_cast<Eigen::Index>(actuators.size()));
  VisitControllerEfforts(
      t, [&](const TimeStepper::ControllerConstraint& c, double effort) {
        for (size_t k = 0; k < actuators.size(); ++k)
          if (actuators[k].controller == c.controller)
            (*forces)[static_cast<Eigen::Index>(k)] = effort / actuators[k].gear;
      });
}

}  // namespace coulomb
