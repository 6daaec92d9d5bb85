#include "coulomb/solvers/contact_ncp.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "coulomb/contact/friction_cone_projection.h"
#include "coulomb/contact/sap_friction_cone.h"

namespace coulomb {

ContactNcp::ContactNcp(const ContactProblem& problem) : problem_(&problem) {
  if (!problem.finalized())
    throw std::invalid_argument("ContactNcp: problem not finalized");
  offsets_.resize(problem.num_constraint_equations());
  for (int i = 0; i < problem.num_constraints(); ++i) {
    const auto* cone =
        dynamic_cast<const SapFrictionCone*>(problem.constraint(i).potential.get());
    if (cone == nullptr) {
      throw std::invalid_argument("ContactNcp: constraint " + std::to_string(i) +
                                  " is not a friction-cone contact");
    }
    friction_.push_back(cone->friction());
    offsets_.segment<3>(problem.constraint_offset(i)) = -cone->v_hat();
  }
  for (int t = 0; t < problem.num_cliques(); ++t) {
    factorizations_.emplace_back(problem.clique_matrix(t));
  }
  Eigen::VectorXd q;
  CalcContactVelocities(problem.v_star(), &q);
  free_velocity_norm_ = q.norm();
}

void ContactNcp::CalcContactVelocities(const Eigen::VectorXd& v,
                                       Eigen::VectorXd* u) const {
  problem_->CalcConstraintVelocities(v, u);
  *u += offsets_;
}

void ContactNcp::CalcVelocities(const Eigen::VectorXd& lambda, Eigen::VectorXd* v) const {
  Eigen::VectorXd impulse = Eigen::VectorXd::Zero(problem_->num_dofs());
  problem_->AddJacobianTransposeTimes(lambda, &impulse);
  *v = problem_->v_star();
  for (int t = 0; t < problem_->num_cliques(); ++t) {
    const int offset = problem_->clique_offset(t), size = problem_->clique_size(t);
    v->segment(offset, size) += factorizations_[t].solve(impulse.segment(offset, size));
  }
}

double ContactNcp::NaturalMapResidual(const Eigen::VectorXd& lambda,
                                      const Eigen::VectorXd& u) const {
  double squared = 0.0;
  for (int i = 0; i < num_contacts(); ++i) {
    const int offset = problem_->constraint_offset(i);
    const Eigen::Vector3d l = lambda.segment<3>(offset);
    Eigen::Vector3d u_tilde = u.segment<3>(offset);
    u_tilde(2) += friction_[i] * u_tilde.head<2>().norm();
    squared += (l - ProjectOntoFrictionConeWithJacobian(l - u_tilde, friction_[i]).value)
                   .squaredNorm();
  }
  const double scale = std::max({free_velocity_norm_, lambda.norm(), u.norm()});
  return scale > 0.0 ? std::sqrt(squared) / scale : std::sqrt(squared);
}

void ValidateLambdaGuess(const ContactNcp& ncp, const Eigen::VectorXd& lambda) {
  const int expected = ncp.problem().num_constraint_equations();
  if (lambda.size() != expected || !lambda.allFinite()) {
    throw std::invalid_argument("initial impulses: expected " + std::to_string(expected) +
                                " finite entries, got " + std::to_string(lambda.size()));
  }
}

}  // namespace coulomb
