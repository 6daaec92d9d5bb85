#include "coulomb/sim/time_stepper.h"

#include "coulomb/contact/sap_unilateral_constraint.h"
#include "coulomb/solvers/canal_solver.h"
#include "coulomb/solvers/pgs_solver.h"
#include "coulomb/solvers/subadmm_solver.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>

namespace coulomb {
namespace {

// Rotation whose z axis is the unit vector n (the contact frame C).
Eigen::Matrix3d ContactFrame(const Eigen::Vector3d& normal) {
  const Eigen::Vector3d helper =
      std::abs(normal.x()) < 0.9 ? Eigen::Vector3d::UnitX() : Eigen::Vector3d::UnitY();
  const Eigen::Vector3d t1 = normal.cross(helper).normalized();
  Eigen::Matrix3d frame;
  frame << t1, normal.cross(t1), normal;
  return frame;
}

}  // namespace

ContactSolver ParseContactSolver(const std::string& name) {
  if (name == "sap") return ContactSolver::kSap;
  if (name == "canal") return ContactSolver::kCanal;
  if (name == "subadmm") return ContactSolver::kSubAdmm;
  if (name == "admm") return ContactSolver::kAdmm;
  if (name == "pgs") return ContactSolver::kPgs;
  throw std::invalid_argument("unknown solver '" + name +
                              "' (use sap, canal, subadmm, pgs)");
}

std::string ToString(ContactSolver solver) {
  switch (solver) {
    case ContactSolver::kSap:
      return "sap";
    case ContactSolver::kCanal:
      return "canal";
    case ContactSolver::kSubAdmm:
      return "subadmm";
    case ContactSolver::kAdmm:
      return "admm";
    case ContactSolver::kPgs:
      return "pgs";
  }
  return "unknown";
}

Scheme ParseScheme(const std::string& name) {
  if (name == "explicit_euler") return Scheme::kExplicitEuler;
  if (name == "symplectic_euler") return Scheme::kSymplecticEuler;
  if (name == "implicit_euler") return Scheme::kImplicitEuler;
  if (name == "midpoint") return Scheme::kMidpoint;
  throw std::invalid_argument(
      "unknown scheme '" + name +
      "' (use explicit_euler, symplectic_euler, implicit_euler, midpoint)");
}

std::string ToString(Scheme scheme) {
  switch (scheme) {
    case Scheme::kExplicitEuler:
      return "explicit_euler";
    case Scheme::kSymplecticEuler:
      return "symplectic_euler";
    case Scheme::kImplicitEuler:
      return "implicit_euler";
    case Scheme::kMidpoint:
      return "midpoint";
  }
  return "unknown";
}

namespace {

// Time stepping measures SAP's momentum error against the change of momentum
// over the step (see SapSolverParameters::momentum_relative_to_guess).
SapSolverParameters StepSolverParameters(SapSolverParameters sap) {
  sap.momentum_relative_to_guess = true;
  return sap;
}

}  // namespace

TimeStepper::TimeStepper(const TimeStepperParameters& parameters)
    : parameters_(parameters), solver_(StepSolverParameters(parameters.sap)) {
  if (!(parameters.time_step > 0.0) || !std::isfinite(parameters.time_step)) {
    throw std::invalid_argument("time_step: must be positive and finite");
  }
  if (!(parameters.contact_margin >= 0.0)) {
    throw std::invalid_argument("contact_margin: must be ≥ 0");
  }
}

TimeStepper::Theta TimeStepper::SchemeTheta() const {
  switch (parameters_.scheme) {
    case Scheme::kExplicitEuler:
      return {0.0, 0.0};
    case Scheme::kSymplecticEuler:
      return {0.0, 1.0};
    case Scheme::kImplicitEuler:
      return {1.0, 1.0};
    case Scheme::kMidpoint:
      return {0.5, 0.5};
  }
  return {0.0, 1.0};
}

int TimeStepper::SolveFreeMotion(MultibodySystem::Tree* tree, const Theta& theta,
                                 Eigen::VectorXd* v_star, Eigen::MatrixXd* a,
                                 bool* converged) const {
  const double dt = parameters_.time_step;
  const Eigen::VectorXd q0 = tree->q;
  const Eigen::VectorXd v0 = tree->v;
  *v_star = v0;
  *converged = true;
  Eigen::VectorXd force(v0.size());
  for (int iteration = 1; iteration <= parameters_.free_motion_max_iterations;
       ++iteration) {
    const Eigen::VectorXd v_theta_vq =
        theta.theta_vq * *v_star + (1 - theta.theta_vq) * v0;
    const Eigen::VectorXd q_theta =
        tree->model.Integrate(q0, theta.theta * dt * v_theta_vq);
    const Eigen::VectorXd v_theta = theta.theta * *v_star + (1 - theta.theta) * v0;
    tree->model.SetState(q_theta, v_theta);
    // m(v) = M(q^θ)(v − v0) − δt k(q^θ, v^θ), k = −h + k1 (springs, dampers).
    force = -tree->model.nonlinear_effects();
    AddSpringDamperForces(tree->springs, q_theta, v_theta, &force);
    const Eigen::VectorXd momentum_residual =
        tree->model.mass_matrix() * (*v_star - v0) - dt * force;
    // Newton with the SPD linearization A = M + δt² θ θvq K + δt θ D (the
    // ∂M/∂q and ∂h/∂v terms are left out): exact in one step for explicit
    // schemes, where q^θ = q0 and v^θ = v0 do not depend on v.
    *a = tree->model.mass_matrix();
    AddSpringDamperLinearization(tree->springs, dt * dt * theta.theta * theta.theta_vq,
                                 dt * theta.theta, a);
    const Eigen::VectorXd step = -a->llt().solve(momentum_residual);
    *v_star += step;
    if (theta.theta == 0.0) return iteration;
    if (step.norm() <= parameters_.free_motion_tolerance * (1.0 + v_star->norm())) {
      return iteration;
    }
  }
  *converged = false;
  return parameters_.free_motion_max_iterations;
}

TimeStepper::ContactConstraint TimeStepper::MakeContactConstraint(
    const MultibodySystem& system, const ContactPoint& contact) const {
  const CollisionWorld& world = system.collision_world();
  ContactConstraint constraint;
  ContactPointState point{.phi0 = contact.phi, .v_n0 = 0.0};
  // v_c = R_WCᵀ (v_B(p) − v_A(p)): positive v_n separates B from A.
  const Eigen::Matrix3d R_CW = ContactFrame(contact.normal_W).transpose();
  for (const auto& [geometry, sign] :
       {std::pair{contact.geometry_b, 1.0}, std::pair{contact.geometry_a, -1.0}}) {
    const int tree = world.tree(geometry);
    if (tree < 0) {  // v_B(p) of a kinematic body is prescribed: a bias
      constraint.bias +=
          sign * R_CW *
          system.WorldBodyVelocity(world.body(geometry), parameters_.time_step);
      continue;
    }
    const Eigen::MatrixXd block =
        sign * R_CW *
        system.tree(tree).model.PointJacobian(world.body(geometry), contact.p_W);
    point.v_n0 += block.row(2).dot(system.tree(tree).v);
    auto same_tree =
        std::find_if(constraint.jacobian.begin(), constraint.jacobian.end(),
                     [tree](const JacobianBlock& b) { return b.clique == tree; });
    if (same_tree != constraint.jacobian.end()) {
      same_tree->matrix += block;  // two bodies of one tree
    } else {
      constraint.jacobian.push_back({tree, block});
    }
  }
  if (constraint.jacobian.empty()) return constraint;
  point.v_n0 += constraint.bias(2);
  const ContactMaterial pair = CombineContactMaterials(
      system.material(contact.geometry_a), system.material(contact.geometry_b));
  constraint.potential =
      MakeContactPotential(parameters_.contact, pair, point, parameters_.time_step);
  return constraint;
}

void TimeStepper::AddJointConstraints(const MultibodySystem& system,
                                      ContactProblem* problem) const {
  const double dt = parameters_.time_step;
  SapUnilateralConstraint::Parameters limit_parameters;
  limit_parameters.near_rigid_threshold = parameters_.contact.near_rigid_threshold;
  for (int t = 0; t < system.num_trees(); ++t) {
    const MultibodySystem::Tree& tree = system.tree(t);
    const auto joint_row = [&tree, t](int velocity, double sign) {
      JacobianBlock block{t, Eigen::MatrixXd::Zero(1, tree.v.size())};
      block.matrix(0, velocity) = sign;
      return std::vector<JacobianBlock>{std::move(block)};
    };
    for (const JointLimit& limit : tree.limits) {
      const double q = tree.q[limit.position];
      const double reach =
          parameters_.contact_margin + 2.0 * dt * std::abs(tree.v[limit.velocity]);
      // Lower: gap q − q_l opens with q̇; upper: gap q_u − q opens with −q̇.
      for (const auto& [gap, sign] :
           {std::pair{q - limit.lower, 1.0}, std::pair{limit.upper - q, -1.0}}) {
        if (gap >= reach) continue;
        problem->AddConstraint(
            joint_row(limit.velocity, sign),
            std::make_unique<SapUnilateralConstraint>(limit_parameters, gap));
      }
    }
    for (const JointPdController& controller : tree.controllers) {
      problem->AddConstraint(joint_row(controller.velocity, 1.0),
                             std::make_unique<PdControllerConstraint>(
                                 controller.gains, tree.q[controller.position]));
    }
  }
}

bool TimeStepper::SolveRigidContact(const Eigen::VectorXd& v_guess,
                                    StepStatistics* stats) {
  std::optional<ContactNcp> ncp;
  try {
    ncp.emplace(*problem_);
  } catch (const std::invalid_argument& error) {
    stats->failure = ToString(parameters_.solver) +
                     " needs contact.model sap and no joint limits or controllers (" +
                     error.what() + ")";
    return false;
  }
  NcpSolverParameters budget = parameters_.ncp;
  if (budget.max_iterations <= 0) {
    budget.max_iterations = parameters_.solver == ContactSolver::kCanal ? 20 : 100;
  }
  NcpSolution rigid;
  NcpSolverStatistics ncp_stats;
  switch (parameters_.solver) {
    case ContactSolver::kCanal:
      ncp_stats = CanalSolver(budget).Solve(*ncp, v_guess, &rigid);
      break;
    case ContactSolver::kSubAdmm:
      ncp_stats = SubAdmmSolver(budget, parameters_.threads).Solve(*ncp, &rigid);
      break;
    case ContactSolver::kAdmm:
      ncp_stats = SubAdmmSolver(budget, parameters_.threads, /*split_subsystems=*/false)
                      .Solve(*ncp, &rigid);
      break;
    default:
      ncp_stats = PgsSolver(budget).Solve(*ncp, Eigen::VectorXd(), &rigid);
  }
  stats->sap_iterations = ncp_stats.iterations;
  stats->ncp_residual = ncp_stats.residual;
  solution_.v = rigid.v;  // v = v* + A⁻¹Jᵀλ: no momentum error
  solution_.gamma = rigid.lambda;
  // A fixed iteration budget per step is how these solvers are used in
  // simulation (AL §VII-C: CANAL 5, PGS 100): reaching it is not a failure,
  // the residual says how far from the rigid solution the step is.
  if (ncp_stats.status == "inner_solve_failed" || !rigid.v.allFinite()) {
    stats->failure = ToString(parameters_.solver) + " " + ncp_stats.status + " after " +
                     std::to_string(ncp_stats.iterations) + " iterations";
    return false;
  }
  return true;
}

double TimeStepper::ContactMargin(const MultibodySystem& system) const {
  // Speculative contacts: a pair closing at speed s is seen if s δt reaches
  // the gap. The fastest body origin bounds s (up to rotation).
  double max_speed = 0.0;
  for (int t = 0; t < system.num_trees(); ++t) {
    const MultibodyTree& model = system.tree(t).model;
    for (int body = 0; body < model.num_bodies(); ++body) {
      max_speed = std::max(max_speed, model.BodyLinearVelocity(body).norm());
    }
  }
  return parameters_.contact_margin + 2.0 * max_speed * parameters_.time_step;
}

bool TimeStepper::ComputeContactConstraints(MultibodySystem* system,
                                            StepStatistics* stats) {
  system->UpdateAllTrees();
  system->CalcGeometryPoses(&geometry_poses_);
  system->collision_world().ComputeContacts(geometry_poses_, ContactMargin(*system),
                                            &contacts_);
  constraints_.clear();
  int overlapping = 0;
  for (const ContactPoint& contact : contacts_) {
    stats->max_penetration = std::max(stats->max_penetration, -contact.phi);
    if (contact.phi < 0.0) {
      stats->mean_penetration -= contact.phi;
      ++overlapping;
    }
    try {
      ContactConstraint constraint = MakeContactConstraint(*system, contact);
      if (!constraint.jacobian.empty()) constraints_.push_back(std::move(constraint));
    } catch (const std::invalid_argument& error) {  // e.g. k = ∞ with lagged
      stats->failure = error.what();
      return false;
    }
  }
  if (overlapping > 0) stats->mean_penetration /= overlapping;
  stats->num_contacts = static_cast<int>(constraints_.size());
  return true;
}

bool TimeStepper::AssembleProblem(MultibodySystem* system, const Theta& theta,
                                  Eigen::VectorXd* v_guess, StepStatistics* stats) {
  problem_.emplace(parameters_.time_step);
  ContactProblem& problem = *problem_;
  Eigen::VectorXd v_star_all(system->num_velocities());
  v_guess->resize(system->num_velocities());
  int offset = 0;
  for (int t = 0; t < system->num_trees(); ++t) {
    MultibodySystem::Tree& tree = system->tree(t);
    Eigen::VectorXd v_star;
    Eigen::MatrixXd a;
    bool converged = true;
    stats->free_motion_iterations =
        std::max(stats->free_motion_iterations,
                 SolveFreeMotion(&tree, theta, &v_star, &a, &converged));
    if (!converged) {
      stats->failure = "free motion of " + tree.name + " did not converge";
      return false;
    }
    problem.AddClique(std::move(a));
    v_star_all.segment(offset, v_star.size()) = v_star;
    v_guess->segment(offset, tree.v.size()) = tree.v;
    offset += static_cast<int>(tree.v.size());
  }
  problem.SetFreeMotionVelocities(v_star_all);
  for (ContactConstraint& c : constraints_) {
    problem.AddConstraint(std::move(c.jacobian), ConstraintVector(c.bias),
                          std::move(c.potential));
  }
  AddJointConstraints(*system, &problem);
  problem.Finalize();
  return true;
}

bool TimeStepper::SolveContact(const Eigen::VectorXd& v_guess, StepStatistics* stats) {
  if (parameters_.solver != ContactSolver::kSap) return SolveRigidContact(v_guess, stats);
  const SapSolverStatistics sap = solver_.Solve(*problem_, v_guess, &solution_);
  stats->sap_iterations = sap.iterations;
  stats->momentum_error = sap.momentum_error;
  stats->complementarity_error = sap.complementarity_error;
  if (sap.converged()) return true;
  stats->failure = "SAP " + ToString(sap.status) + " after " +
                   std::to_string(sap.iterations) +
                   " iterations (e_m = " + std::to_string(sap.momentum_error) + ")";
  return false;
}

StepStatistics TimeStepper::Step(MultibodySystem* system) {
  using Clock = std::chrono::steady_clock;
  const auto seconds_since = [](Clock::time_point from) {
    return std::chrono::duration<double>(Clock::now() - from).count();
  };
  const auto start = Clock::now();
  StepStatistics stats;
  if (!ComputeContactConstraints(system, &stats)) return stats;
  stats.geometry_time_s = seconds_since(start);

  const auto assembly_start = Clock::now();
  const Theta theta = SchemeTheta();
  Eigen::VectorXd v_guess;
  if (!AssembleProblem(system, theta, &v_guess, &stats)) return stats;
  stats.assembly_time_s = seconds_since(assembly_start);

  const auto solve_start = Clock::now();
  if (!SolveContact(v_guess, &stats)) return stats;
  stats.solve_time_s = seconds_since(solve_start);

  // Positions: q = q0 ⊕ δt v^θvq.
  const ContactProblem& problem = *problem_;
  for (int t = 0; t < system->num_trees(); ++t) {
    MultibodySystem::Tree& tree = system->tree(t);
    const Eigen::VectorXd v =
        solution_.v.segment(problem.clique_offset(t), problem.clique_size(t));
    const Eigen::VectorXd v_theta_vq = theta.theta_vq * v + (1 - theta.theta_vq) * tree.v;
    tree.q = tree.model.Integrate(tree.q, parameters_.time_step * v_theta_vq);
    tree.v = v;
  }
  system->set_time(system->time() + parameters_.time_step);
  stats.converged = true;
  stats.wall_time_s = seconds_since(start);
  return stats;
}

}  // namespace coulomb
