#pragma once

#include <vector>

#include <Eigen/Dense>

namespace coulomb {

// A linear spring and damper on a one-dof joint (revolute or prismatic):
// generalized force τ = −k (q − q_rest) − d v, potential ½ k (q − q_rest)².
// Units: k [N/m or N·m/rad], d [N·s/m or N·m·s/rad]. In the θ-method these
// are the forces k1 with negative-definite Jacobians (docs/math.md §1):
// K = −∂τ/∂q = k, D = −∂τ/∂v = d on the joint's diagonal entry.
struct JointSpringDamper {
  int position = -1;  // index in q
  int velocity = -1;  // index in v
  double stiffness = 0.0;
  double rest_position = 0.0;
  double damping = 0.0;
};

// force += τ for every spring-damper, its spring at q and its damper at v.
void AddSpringDamperForces(const std::vector<JointSpringDamper>& springs,
                           const Eigen::Ref<const Eigen::VectorXd>& q,
                           const Eigen::Ref<const Eigen::VectorXd>& v,
                           Eigen::VectorXd* force);
// A += stiffness_scale K + damping_scale D.
void AddSpringDamperLinearization(const std::vector<JointSpringDamper>& springs,
                                  double stiffness_scale, double damping_scale,
                                  Eigen::MatrixXd* a);
double SpringPotentialEnergy(const std::vector<JointSpringDamper>& springs,
                             const Eigen::VectorXd& q);

}  // namespace coulomb
