#include "coulomb/solvers/contact_ncp.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "coulomb/contact/friction_cone_projection.h"
#include "coulomb/contact/pd_controller_constraint.h"
#include "coulomb/contact/sap_friction_cone.h"
#include "coulomb/contact/sap_unilateral_constraint.h"

namespace coulomb {

namespace {

const PdControllerConstraint* AsController(const ProblemConstraint& constraint) {
  return dynamic_cast<const PdControllerConstraint*>(constraint.potential.get());
}

bool IsUnilateral(const ProblemConstraint& constraint) {
  return dynamic_cast<const SapUnilateralConstraint*>(constraint.potential.get()) !=
         nullptr;
}

// A one-row potential acting on the normal entry of a padded three-row
// constraint: γ = (0, 0, γ₁(v_n)), G = diag(0, 0, G₁).
class NormalEntryPotential final : public ConvexConstraint {
 public:
  explicit NormalEntryPotential(const PdControllerConstraint& controller)
      : controller_(controller) {}
  int num_equations() const override { return 3; }
  void Prepare(const ConstraintMatrix& delassus, double time_step) override {
    controller_.Prepare(delassus.bottomRightCorner(1, 1), time_step);
  }
  double Evaluate(const ConstraintVector& v_c, ConstraintVector* gamma,
                  ConstraintMatrix* hessian) const override {
    const ConstraintVector v_n = v_c.tail(1);
    ConstraintVector gamma_n;
    ConstraintMatrix g_n;
    const double cost = controller_.Evaluate(v_n, &gamma_n, hessian ? &g_n : nullptr);
    gamma->setZero(3);
    (*gamma)(2) = gamma_n(0);
    if (hessian) {
      hessian->setZero(3, 3);
      (*hessian)(2, 2) = g_n(0, 0);
    }
    return cost;
  }
  const PdControllerConstraint& controller() const { return controller_; }

 private:
  PdControllerConstraint controller_;
};

// [0; 0; J] for a one-row constraint's blocks, and its bias as (0, 0, b).
void PadRows(const ProblemConstraint& c, std::vector<JacobianBlock>* jacobian,
             ConstraintVector* bias) {
  for (const JacobianBlock& block : c.jacobian) {
    Eigen::MatrixXd rows = Eigen::MatrixXd::Zero(3, block.matrix.cols());
    rows.row(2) = block.matrix.row(0);
    jacobian->push_back({block.clique, std::move(rows)});
  }
  *bias = ConstraintVector::Zero(3);
  (*bias)(2) = c.bias(0);
}

}  // namespace

std::unique_ptr<ContactProblem> ContactNcp::PadUnilateralConstraints(
    const ContactProblem& problem) {
  auto padded = std::make_unique<ContactProblem>(problem.time_step());
  for (int t = 0; t < problem.num_cliques(); ++t) padded->AddCliqueOf(problem, t);
  padded->SetFreeMotionVelocities(problem.v_star());
  for (int i = 0; i < problem.num_constraints(); ++i) {
    const ProblemConstraint& c = problem.constraint(i);
    if (const auto* cone = dynamic_cast<const SapFrictionCone*>(c.potential.get())) {
      padded->AddConstraint(c.jacobian, c.bias, std::make_unique<SapFrictionCone>(*cone));
      continue;
    }
    std::vector<JacobianBlock> jacobian;
    ConstraintVector bias;
    PadRows(c, &jacobian, &bias);
    if (const PdControllerConstraint* controller = AsController(c)) {
      padded->AddConstraint(std::move(jacobian), bias,
                            std::make_unique<NormalEntryPotential>(*controller));
      continue;
    }
    const auto& limit = dynamic_cast<const SapUnilateralConstraint&>(*c.potential);
    SapContactParameters frictionless;
    frictionless.friction = 0.0;
    padded->AddConstraint(std::move(jacobian), bias,
                          std::make_unique<SapFrictionCone>(
                              frictionless, Eigen::Vector3d(0.0, 0.0, limit.v_hat())));
  }
  padded->Finalize();
  return padded;
}

std::unique_ptr<ConvexConstraint> ContactNcp::CloneSoftPotential(int constraint) const {
  return std::make_unique<NormalEntryPotential>(dynamic_cast<const NormalEntryPotential&>(
      *problem_->constraint(constraint).potential));
}

ContactNcp::ContactNcp(const ContactProblem& problem, ResidualScale residual_scale)
    : original_(&problem), problem_(&problem) {
  if (!problem.finalized())
    throw std::invalid_argument("ContactNcp: problem not finalized");
  bool needs_padding = false;
  for (int i = 0; i < problem.num_constraints(); ++i) {
    const ProblemConstraint& constraint = problem.constraint(i);
    if (IsUnilateral(constraint) || AsController(constraint)) {
      needs_padding = true;
    } else if (!dynamic_cast<const SapFrictionCone*>(constraint.potential.get())) {
      throw std::invalid_argument("ContactNcp: constraint " + std::to_string(i) +
                                  " is not a friction-cone contact, a unilateral limit "
                                  "or a PD controller");
    }
  }
  if (needs_padding) {
    padded_ = PadUnilateralConstraints(problem);
    problem_ = padded_.get();
    soft_laws_.resize(problem_->num_constraints());
  }
  offsets_.setZero(problem_->num_constraint_equations());
  for (int i = 0; i < problem_->num_constraints(); ++i) {
    const ConvexConstraint& potential = *problem_->constraint(i).potential;
    if (const auto* soft = dynamic_cast<const NormalEntryPotential*>(&potential)) {
      const PdControllerConstraint& pd = soft->controller();
      const double dt = pd.time_step();
      soft_laws_[i] = SoftLaw{dt * pd.offset(), dt * pd.slope(), -dt * pd.effort_limit(),
                              dt * pd.effort_limit()};
      friction_.push_back(0.0);
      continue;
    }
    const auto& cone = dynamic_cast<const SapFrictionCone&>(potential);
    friction_.push_back(cone.friction());
    offsets_.segment<3>(problem_->constraint_offset(i)) = -cone.v_hat();
  }
  for (int t = 0; t < problem_->num_cliques(); ++t) {
    factorizations_.emplace_back(problem_->clique_matrix(t));
  }
  Eigen::VectorXd q;
  CalcContactVelocities(problem_->v_star(), &q);
  residual_scale_floor_ = q.norm();
  if (residual_scale == ResidualScale::kContactPointSpeed) {
    residual_scale_floor_ =
        std::max(residual_scale_floor_, kSpeedScaleFloor * ContactPointSpeedScale());
  }
}

Eigen::VectorXd ContactNcp::ToProblemImpulses(const Eigen::VectorXd& lambda) const {
  if (!padded_) return lambda;
  Eigen::VectorXd impulses(original_->num_constraint_equations());
  for (int i = 0; i < original_->num_constraints(); ++i) {
    const int padded = problem_->constraint_offset(i),
              own = original_->constraint_offset(i);
    if (original_->constraint(i).potential->num_equations() == 1) {
      impulses(own) = lambda(padded + 2);
    } else {
      impulses.segment<3>(own) = lambda.segment<3>(padded);
    }
  }
  return impulses;
}

Eigen::VectorXd ContactNcp::FromProblemImpulses(const Eigen::VectorXd& impulses) const {
  if (!padded_ || impulses.size() == 0) return impulses;
  Eigen::VectorXd lambda = Eigen::VectorXd::Zero(problem_->num_constraint_equations());
  for (int i = 0; i < original_->num_constraints(); ++i) {
    const int padded = problem_->constraint_offset(i),
              own = original_->constraint_offset(i);
    if (original_->constraint(i).potential->num_equations() == 1) {
      lambda(padded + 2) = impulses(own);
    } else {
      lambda.segment<3>(padded) = impulses.segment<3>(own);
    }
  }
  return lambda;
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
    if (const SoftLaw* soft = soft_law(i)) {  // ‖λ − (0, 0, law(u_n))‖
      squared +=
          l.head<2>().squaredNorm() + std::pow(l(2) - soft->Impulse(u(offset + 2)), 2);
      continue;
    }
    Eigen::Vector3d u_tilde = u.segment<3>(offset);
    u_tilde(2) += friction_[i] * u_tilde.head<2>().norm();
    squared += (l - ProjectOntoFrictionConeWithJacobian(l - u_tilde, friction_[i]).value)
                   .squaredNorm();
  }
  const double scale = std::max({residual_scale_floor_, lambda.norm(), u.norm()});
  return scale > 0.0 ? std::sqrt(squared) / scale : std::sqrt(squared);
}

double ContactNcp::ContactPointSpeedScale() const {
  double squared = 0.0;
  for (int i = 0; i < num_contacts(); ++i) {
    const ProblemConstraint& constraint = problem_->constraint(i);
    const int offset = problem_->constraint_offset(i);
    double speed = (constraint.bias.head<3>() + offsets_.segment<3>(offset)).norm();
    for (const JacobianBlock& block : constraint.jacobian) {
      speed += block.matrix.norm() *
               problem_->v_star()
                   .segment(problem_->clique_offset(block.clique), block.matrix.cols())
                   .norm();
    }
    squared += speed * speed;
  }
  return std::sqrt(squared);
}

void ValidateLambdaGuess(const ContactNcp& ncp, const Eigen::VectorXd& lambda) {
  const int expected = ncp.problem().num_constraint_equations();
  if (lambda.size() != expected || !lambda.allFinite()) {
    throw std::invalid_argument("initial impulses: expected " + std::to_string(expected) +
                                " finite entries, got " + std::to_string(lambda.size()));
  }
}

}  // namespace coulomb
