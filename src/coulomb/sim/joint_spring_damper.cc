#include "coulomb/sim/joint_spring_damper.h"

namespace coulomb {
namespace {

template <typename Vector>
double Combined(std::span<const JointTerm> terms, const Vector& x, bool positions) {
  double sum = 0.0;
  for (const JointTerm& term : terms)
    sum += term.coefficient * x[positions ? term.position : term.velocity];
  return sum;
}

}  // namespace

double CombinedPosition(std::span<const JointTerm> terms, const Eigen::VectorXd& q) {
  return Combined(terms, q, /*positions=*/true);
}

double CombinedVelocity(std::span<const JointTerm> terms, const Eigen::VectorXd& v) {
  return Combined(terms, v, /*positions=*/false);
}

void AddSpringDamperForces(const std::vector<JointSpringDamper>& springs,
                           const Eigen::Ref<const Eigen::VectorXd>& q,
                           const Eigen::Ref<const Eigen::VectorXd>& v,
                           Eigen::VectorXd* force) {
  for (const JointSpringDamper& s : springs) {
    const double f = -s.stiffness * (Combined(s.terms, q, true) - s.rest_position) -
                     s.damping * Combined(s.terms, v, false);
    for (const JointTerm& term : s.terms) (*force)[term.velocity] += term.coefficient * f;
  }
}

void AddSpringDamperLinearization(const std::vector<JointSpringDamper>& springs,
                                  double stiffness_scale, double damping_scale,
                                  Eigen::MatrixXd* a) {
  for (const JointSpringDamper& s : springs) {
    const double scale = stiffness_scale * s.stiffness + damping_scale * s.damping;
    for (const JointTerm& i : s.terms)
      for (const JointTerm& j : s.terms)
        (*a)(i.velocity, j.velocity) += scale * i.coefficient * j.coefficient;
  }
}

double SpringPotentialEnergy(const std::vector<JointSpringDamper>& springs,
                             const Eigen::VectorXd& q) {
  double energy = 0.0;
  for (const JointSpringDamper& s : springs) {
    const double stretch = Combined(s.terms, q, true) - s.rest_position;
    energy += 0.5 * s.stiffness * stretch * stretch;
  }
  return energy;
}

}  // namespace coulomb
