// Simulation's actuator controls (simulation.h): MuJoCo's ctrl, as the PD
// controllers the file's actuators became.
#include "coulomb/sim/simulation.h"

namespace coulomb {

std::vector<std::string> Simulation::actuator_names(const std::string& tree) const {
  return NamesOf(scene_.system.tree(FindTree(tree)).actuators);
}

namespace {

// Robot `tree`'s actuator named `name`, or std::invalid_argument.
const ActuatorControl& NamedActuator(const std::string& tree,
                                     const std::vector<ActuatorControl>& actuators,
                                     const std::string& name) {
  for (const ActuatorControl& a : actuators)
    if (a.name == name) return a;
  throw std::invalid_argument(tree + ": no actuator named '" + name + "'");
}

void CheckControlIsFinite(const std::string& actuator, double control) {
  if (!std::isfinite(control))
    throw std::invalid_argument(actuator + ": control must be finite");
}

}  // namespace

void Simulation::SetActuatorControl(const std::string& tree, const std::string& actuator,
                                    double control) {
  CheckControlIsFinite(actuator, control);
  const ActuatorControl& a =
      NamedActuator(tree, scene_.system.tree(FindTree(tree)).actuators, actuator);
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

void Simulation::SetActuatorControls(const std::string& tree,
                                     const Eigen::VectorXd& controls) {
  const std::vector<std::string> actuators = actuator_names(tree);
  CheckOnePerName(tree, "ctrl", controls, actuators, "actuators");
  SetActuatorControls(tree, actuators, controls);
}

void Simulation::SetActuatorControls(const std::string& tree,
                                     const std::vector<std::string>& actuators,
                                     const Eigen::VectorXd& controls) {
  if (static_cast<Eigen::Index>(actuators.size()) != controls.size())
    throw std::invalid_argument(tree + ": " + std::to_string(actuators.size()) +
                                " actuators named for " +
                                std::to_string(controls.size()) + " controls");
  const std::vector<ActuatorControl>& all = scene_.system.tree(FindTree(tree)).actuators;
  for (size_t k = 0; k < actuators.size(); ++k) {
    NamedActuator(tree, all, actuators[k]);
    CheckControlIsFinite(actuators[k], controls[static_cast<Eigen::Index>(k)]);
  }
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
