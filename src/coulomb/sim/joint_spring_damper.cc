#include "coulomb/sim/joint_spring_damper.h"

namespace coulomb {

void AddSpringDamperForces(const std::vector<JointSpringDamper>& springs,
                           const Eigen::Ref<const Eigen::VectorXd>& q,
                           const Eigen::Ref<const Eigen::VectorXd>& v,
                           Eigen::VectorXd* force) {
  for (const JointSpringDamper& s : springs) {
    (*force)[s.velocity] +=
        -s.stiffness * (q[s.position] - s.rest_position) - s.damping * v[s.velocity];
  }
}

void AddSpringDamperLinearization(const std::vector<JointSpringDamper>& springs,
                                  double stiffness_scale, double damping_scale,
                                  Eigen::MatrixXd* a) {
  for (const JointSpringDamper& s : springs) {
    (*a)(s.velocity, s.velocity) +=
        stiffness_scale * s.stiffness + damping_scale * s.damping;
  }
}

double SpringPotentialEnergy(const std::vector<JointSpringDamper>& springs,
                             const Eigen::VectorXd& q) {
  double energy = 0.0;
  for (const JointSpringDamper& s : springs) {
    const double stretch = q[s.position] - s.rest_position;
    energy += 0.5 * s.stiffness * stretch * stretch;
  }
  return energy;
}

}  // namespace coulomb
