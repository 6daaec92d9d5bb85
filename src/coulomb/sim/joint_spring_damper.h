#pragma once

#include <span>
#include <vector>

#include <Eigen/Dense>

namespace coulomb {

// A term c q of a linear combination s = Σ_k c_k q_k of one-dof joints'
// positions (its rate ṡ = Σ_k c_k v_k): a joint itself (one term, c = 1), or
// a fixed tendon's length (FixedTendon).
struct JointTerm {
  int position = -1;  // index in the tree's q
  int velocity = -1;  // index in the tree's v
  double coefficient = 1.0;
};

// s and ṡ of the terms at (q, v).
double CombinedPosition(std::span<const JointTerm> terms, const Eigen::VectorXd& q);
double CombinedVelocity(std::span<const JointTerm> terms, const Eigen::VectorXd& v);

// A linear spring and damper on s (a one-dof joint, revolute or prismatic,
// or a fixed tendon): force f = −k (s − s_rest) − d ṡ along s, generalized
// force τ_k = c_k f, potential ½ k (s − s_rest)². Units: k [N/m or N·m/rad],
// d [N·s/m or N·m·s/rad]. In the θ-method these are the forces k1 with
// negative-definite Jacobians (docs/math.md §1): K = −∂τ/∂q = k c cᵀ,
// D = −∂τ/∂v = d c cᵀ (k and d on the diagonal entry of a joint's own).
struct JointSpringDamper {
  std::vector<JointTerm> terms;
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
