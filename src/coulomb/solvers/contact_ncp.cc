#include "coulomb/solvers/contact_ncp.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "coulomb/contact/friction_cone_projection.h"
#include "coulomb/contact/sap_friction_cone.h"

namespace coulomb {

namespace {

// The compliant law λ_n = clamp(c − d v_n, lo, hi) on the normal entry of a
// padded three-row constraint (RigidLaw::Kind::kSoft), as a convex potential:
// with y = c − d v_n and Φ'(y) = clamp(y, lo, hi) (Φ(y) = y²/2 inside,
// continued linearly outside), ℓ = Φ(y)/d, γ = (0, 0, clamp(y)), G = d inside
// the bounds and 0 when saturated; ℓ = −clamp(c) v_n when d = 0.
class SoftNormalPotential final : public ConvexConstraint {
 public:
  explicit SoftNormalPotential(const RigidLaw& law) : law_(law) {}
  int num_equations() const override { return 3; }
  void Prepare(const ConstraintMatrix&, double) override {}
  double Evaluate(const ConstraintVector& v_c, ConstraintVector* gamma,
                  ConstraintMatrix* hessian) const override {
    const double y = law_.c - law_.d * v_c(2);
    const double impulse = std::clamp(y, law_.lo, law_.hi);
    gamma->setZero(3);
    (*gamma)(2) = impulse;
    if (hessian) {
      hessian->setZero(3, 3);
      if (impulse == y) (*hessian)(2, 2) = law_.d;
    }
    if (law_.d == 0.0) return -impulse * v_c(2);
    const double phi = impulse == y ? 0.5 * y * y : impulse * y - 0.5 * impulse * impulse;
    return phi / law_.d;
  }
  RigidLaw rigid_law() const override { return law_; }

 private:
  RigidLaw law_;
};

// [0; 0; J] for a one-row constraint's blocks, and its bias as (0, 0, b),
// into a padded constraint slot (storage reused).
void PadRowsInto(const ProblemConstraint& c, ProblemConstraint* padded) {
  padded->jacobian.resize(c.jacobian.size());
  for (size_t b = 0; b < c.jacobian.size(); ++b) {
    JacobianBlock& rows = padded->jacobian[b];
    rows.clique = c.jacobian[b].clique;
    rows.matrix.setZero(3, c.jacobian[b].matrix.cols());
    rows.matrix.row(2) = c.jacobian[b].matrix.row(0);
    rows.bodies.clear();
  }
  padded->bias.setZero(3);
  padded->bias(2) = c.bias(0);
}

// A placeholder potential for a hard law in the padded problem: SAP's
// near-rigid cone with the law's μ and v̂ = −e (the NCP solvers read only
// the law; Finalize prepares every potential).
void EmplaceHardLawPotential(const RigidLaw& law,
                             std::unique_ptr<ConvexConstraint>* slot) {
  SapContactParameters parameters;
  parameters.friction = law.friction;
  EmplaceConstraintPotential<SapFrictionCone>(slot, parameters,
                                              Eigen::Vector3d(-law.offset));
}

// Which rigid laws fit a constraint of `equations` rows: contacts have
// three, limits and soft laws one (padded to three).
bool LawFits(const RigidLaw& law, int equations) {
  switch (law.kind) {
    case RigidLaw::Kind::kContact:
      return equations == 3;
    case RigidLaw::Kind::kUnilateral:
    case RigidLaw::Kind::kSoft:
      return equations == 1;
    case RigidLaw::Kind::kNone:
      return false;
  }
  return false;
}

}  // namespace

void ContactNcp::PadUnilateralConstraints(const ContactProblem& problem,
                                          ContactProblem* padded) {
  padded->ResetCliquesFrom(problem);
  for (int i = 0; i < problem.num_constraints(); ++i) {
    const ProblemConstraint& c = problem.constraint(i);
    const RigidLaw law = c.potential->rigid_law();
    ProblemConstraint& slot = padded->EmplaceConstraint(c.kind);
    if (law.kind == RigidLaw::Kind::kContact) {
      slot.jacobian = c.jacobian;
      slot.bias = c.bias;
    } else {
      PadRowsInto(c, &slot);
    }
    if (law.kind == RigidLaw::Kind::kSoft) {
      EmplaceConstraintPotential<SoftNormalPotential>(&slot.potential, law);
    } else {
      EmplaceHardLawPotential(law, &slot.potential);
    }
  }
  padded->Finalize();
}

void ContactNcp::EmplaceSoftPotential(int constraint,
                                      std::unique_ptr<ConvexConstraint>* slot) const {
  EmplaceConstraintPotential<SoftNormalPotential>(
      slot, problem_->constraint(constraint).potential->rigid_law());
}

ContactNcp::ContactNcp(const ContactProblem& problem, ResidualScale residual_scale) {
  Rebuild(problem, residual_scale);
}

void ContactNcp::Rebuild(const ContactProblem& problem, ResidualScale residual_scale) {
  if (!problem.finalized())
    throw std::invalid_argument("ContactNcp: problem not finalized");
  bool needs_padding = false;
  for (int i = 0; i < problem.num_constraints(); ++i) {
    const ConvexConstraint& potential = *problem.constraint(i).potential;
    const RigidLaw law = potential.rigid_law();
    if (!LawFits(law, potential.num_equations())) {
      throw std::invalid_argument(
          "ContactNcp: constraint " + std::to_string(i) +
          " states no rigid law (RigidLaw: a contact, a unilateral limit or a soft law)");
    }
    needs_padding = needs_padding || law.kind != RigidLaw::Kind::kContact;
  }
  original_ = &problem;
  problem_ = &problem;
  soft_laws_.clear();
  if (needs_padding) {
    if (!padded_ || padded_->time_step() != problem.time_step())
      padded_ = std::make_unique<ContactProblem>(problem.time_step());
    PadUnilateralConstraints(problem, padded_.get());
    problem_ = padded_.get();
    soft_laws_.resize(problem_->num_constraints());
  }
  offsets_.setZero(problem_->num_constraint_equations());
  regularization_.setZero(problem_->num_constraint_equations());
  friction_.clear();
  for (int i = 0; i < problem_->num_constraints(); ++i) {
    const RigidLaw law = problem_->constraint(i).potential->rigid_law();
    friction_.push_back(law.kind == RigidLaw::Kind::kContact ? law.friction : 0.0);
    if (law.kind == RigidLaw::Kind::kSoft) {
      soft_laws_[i] = SoftLaw{law.c, law.d, law.lo, law.hi};
      continue;
    }
    offsets_.segment<3>(problem_->constraint_offset(i)) = law.offset;
    regularization_.segment<3>(problem_->constraint_offset(i)) = law.regularization;
  }
  if (static_cast<int>(factorizations_.size()) < problem_->num_cliques())
    factorizations_.resize(problem_->num_cliques());
  for (int t = 0; t < problem_->num_cliques(); ++t) {
    factorizations_[t].compute(problem_->clique_matrix(t));
  }
  CalcContactVelocities(problem_->v_star(), &free_contact_velocity_);
  residual_scale_floor_ = free_contact_velocity_.norm();
  if (residual_scale == ResidualScale::kContactPointSpeed) {
    residual_scale_floor_ =
        std::max(residual_scale_floor_, kSpeedScaleFloor * ContactPointSpeedScale());
  }
}

void ContactNcp::ToProblemImpulses(Eigen::Ref<const Eigen::VectorXd> lambda,
                                   ReusableVector* impulses) const {
  if (problem_ == original_) {
    *impulses = lambda;
    return;
  }
  impulses->resize(original_->num_constraint_equations());
  for (int i = 0; i < original_->num_constraints(); ++i) {
    const int padded = problem_->constraint_offset(i),
              own = original_->constraint_offset(i);
    if (original_->constraint(i).potential->num_equations() == 1) {
      (*impulses)(own) = lambda(padded + 2);
    } else {
      impulses->segment<3>(own) = lambda.segment<3>(padded);
    }
  }
}

void ContactNcp::FromProblemImpulses(Eigen::Ref<const Eigen::VectorXd> impulses,
                                     ReusableVector* lambda) const {
  if (problem_ == original_ || impulses.size() == 0) {
    *lambda = impulses;
    return;
  }
  lambda->setZero(problem_->num_constraint_equations());
  for (int i = 0; i < original_->num_constraints(); ++i) {
    const int padded = problem_->constraint_offset(i),
              own = original_->constraint_offset(i);
    if (original_->constraint(i).potential->num_equations() == 1) {
      (*lambda)(padded + 2) = impulses(own);
    } else {
      lambda->segment<3>(padded) = impulses.segment<3>(own);
    }
  }
}

const Eigen::VectorXd& ContactNcp::VelocityChange(
    Eigen::Ref<const Eigen::VectorXd> lambda) const {
  Eigen::VectorXd& impulse = impulse_workspace_;
  impulse.setZero(problem_->num_dofs());
  problem_->AddJacobianTransposeTimes(lambda, &impulse);
  for (int t = 0; t < problem_->num_cliques(); ++t) {
    auto clique_impulse =
        impulse.segment(problem_->clique_offset(t), problem_->clique_size(t));
    factorizations_[t].solveInPlace(clique_impulse);
  }
  return impulse;
}

double ContactNcp::NaturalMapResidual(Eigen::Ref<const Eigen::VectorXd> lambda,
                                      Eigen::Ref<const Eigen::VectorXd> u) const {
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

void ValidateLambdaGuess(const ContactNcp& ncp,
                         Eigen::Ref<const Eigen::VectorXd> lambda) {
  const int expected = ncp.problem().num_constraint_equations();
  if (lambda.size() != expected || !lambda.allFinite()) {
    throw std::invalid_argument("initial impulses: expected " + std::to_string(expected) +
                                " finite entries, got " + std::to_string(lambda.size()));
  }
}

}  // namespace coulomb
