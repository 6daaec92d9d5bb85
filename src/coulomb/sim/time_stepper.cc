#include "coulomb/sim/time_stepper.h"

#include "coulomb/base/stopwatch.h"
#include "coulomb/contact/joint_friction_constraint.h"
#include "coulomb/contact/sap_friction_cone.h"
#include "coulomb/contact/sap_holonomic_constraint.h"
#include "coulomb/contact/sap_unilateral_constraint.h"
#include "coulomb/math/contact_frame.h"
#include "coulomb/math/dense_cholesky.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace coulomb {
namespace {
constexpr int kBodyDofs = 6;  // a free rigid body's velocities

// True when each spring's dofs lie on one chain of the dof tree (parent[k]
// < k): its linearization, c cᵀ over its terms, then adds only entries (k,
// l) with k an ancestor of l or l of k, and A keeps the branch pattern
// TreeCholesky factors. A fixed tendon across two legs does not.
bool SpringsKeepBranchPattern(const std::vector<JointSpringDamper>& springs,
                              const std::vector<int>& parent) {
  const auto on_one_chain = [&parent](int k, int l) {
    if (k < l) std::swap(k, l);
    while (k > l) k = parent[k];  // up from the later dof (−1 at a root)
    return k == l;
  };
  for (const JointSpringDamper& spring : springs) {
    for (size_t i = 0; i < spring.terms.size(); ++i) {
      for (size_t j = i + 1; j < spring.terms.size(); ++j) {
        if (!on_one_chain(spring.terms[i].velocity, spring.terms[j].velocity))
          return false;
      }
    }
  }
  return true;
}

// The terms of what a controller or a friction acts on: its joint's own
// (`own`), or its tendon's.
std::span<const JointTerm> ActedOn(const MultibodySystem::Tree& tree, int tendon,
                                   const JointTerm& own) {
  return tendon < 0 ? std::span<const JointTerm>(&own, 1)
                    : std::span<const JointTerm>(tree.tendons[tendon].terms);
}

// The law of a controller whose effort is taken as affine in its joint's
// velocity v over the step, u(v) = a − b v (PdControllerConstraint's a and
// b, at q0): one without gains (an effort alone, a motor's: b = 0, u =
// clamp(u_ff, ±u_max)), or a PD controller on a joint whose effort at the
// step's start velocity, a − b v0, lies within its limit and whose folded
// effort did not cross it in a solve of this step (`crossed`). Its
// potential, −δt u v or (δt/2b)(a − b v)², is linear or quadratic in v, so
// ½‖v − v*‖²_A plus it is ½‖v − v*'‖²_A' up to a constant, with A' = A + δt
// b e eᵀ and v*' the free motion with u(v) among its forces: the same step
// with no constraint in the problem (TimeStepper::AddAffineEfforts). With an
// effort limit u_max the clamped potential (δt/b) Φ(a − b v) equals the
// quadratic one, gradient included, wherever |a − b v| ≤ u_max: a solution
// of the folded step at which the limit holds solves the clamped step too
// (both costs convex), which TimeStepper::FoldedLimitsHold checks after the
// solve. Empty for the others: a PD controller on a tendon (its c cᵀ could
// join the tree's branches in A), or one whose limit binds or is predicted
// to. (The prediction reads the step's start only, so that a run resumed
// from a snapshot takes the same steps.)
std::optional<PdControllerConstraint> AffineEffortLaw(const JointPdController& controller,
                                                      const Eigen::VectorXd& q0,
                                                      const Eigen::VectorXd& v0,
                                                      double time_step, bool crossed) {
  const PdControllerConstraint::Parameters& gains = controller.gains;
  const bool gainless = gains.proportional_gain == 0.0 && gains.derivative_gain == 0.0;
  if (!gainless && (controller.tendon >= 0 || crossed)) return std::nullopt;
  const double position0 = controller.tendon < 0 ? q0[controller.position] : 0.0;
  std::optional<PdControllerConstraint> law(std::in_place, gains, position0);
  law->Prepare(ConstraintMatrix(), time_step);
  if (!gainless && std::abs(law->offset() - law->slope() * v0[controller.velocity]) >
                       gains.effort_limit)
    return std::nullopt;
  return law;
}

// A folded law's effort at v: a − b v, its limit checked after the solve
// (FoldedLimitsHold), or an effort alone's constant clamp(u_ff, ±u_max).
double FoldedEffort(const PdControllerConstraint& law, double v) {
  return law.slope() == 0.0 ? law.Actuation(0.0) : law.offset() - law.slope() * v;
}
}  // namespace

TimeStepper::TimeStepper(const TimeStepperParameters& parameters)
    : parameters_(parameters),
      solver_(MakeContactSolver(parameters.solver, SolverUse::kTimeStepping)),
      problem_(parameters.time_step) {  // ContactProblem validates δt
  if (!(parameters.contact_margin >= 0.0)) {
    throw std::invalid_argument("contact_margin: must be ≥ 0");
  }
  if (parameters.contact_lookahead && !(std::isfinite(*parameters.contact_lookahead) &&
                                        *parameters.contact_lookahead >= 0.0)) {
    throw std::invalid_argument("contact_lookahead: must be a time ≥ 0 [s]");
  }
}

TimeStepper::~TimeStepper() = default;
TimeStepper::TimeStepper(TimeStepper&&) noexcept = default;
TimeStepper& TimeStepper::operator=(TimeStepper&&) noexcept = default;

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

void TimeStepper::AddAppliedForces(const MultibodySystem::Tree& tree,
                                   Eigen::Ref<Eigen::VectorXd> force) {
  if (tree.applied_force.size() > 0) {
    if (tree.applied_force.size() != force.size()) {
      throw std::invalid_argument("tree '" + tree.name + "': applied_force has " +
                                  std::to_string(tree.applied_force.size()) +
                                  " entries, expected one per velocity (" +
                                  std::to_string(force.size()) + ")");
    }
    force += tree.applied_force;
  }
  if (tree.applied_force_W.isZero(0.0) && tree.applied_torque_W.isZero(0.0)) return;
  // q = [p_WB, quaternion x y z w]: the torque in B at the step's start.
  const Eigen::Quaterniond q_WB(tree.q[6], tree.q[3], tree.q[4], tree.q[5]);
  force.head<3>() += tree.applied_force_W;
  force.segment<3>(3) += q_WB.normalized().conjugate() * tree.applied_torque_W;
}

void TimeStepper::AddAffineEfforts(int t, const MultibodySystem::Tree& tree,
                                   Eigen::Ref<const Eigen::VectorXd> v,
                                   Eigen::Ref<Eigen::VectorXd> force,
                                   Eigen::MatrixXd* a) const {
  for (size_t k = 0; k < tree.controllers.size(); ++k) {
    const ControllerConstraint& c = controller_constraints_[controllers_begin_[t] + k];
    if (!c.law) continue;
    const JointTerm joint{-1, c.velocity, 1.0};
    const double effort = FoldedEffort(*c.law, c.tendon < 0 ? v[c.velocity] : 0.0);
    for (const JointTerm& term : ActedOn(tree, c.tendon, joint))
      force[term.velocity] += term.coefficient * effort;
    // −∂(δt u)/∂v = δt b on the joint's diagonal (b = 0 on a tendon).
    if (c.tendon < 0) (*a)(c.velocity, c.velocity) += c.law->time_step() * c.law->slope();
  }
}

void TimeStepper::AddGravityCompensation(const MultibodySystem::Tree& tree,
                                         TreeWorkspace* w) {
  if (tree.gravity_compensations.empty()) return;
  const Eigen::Vector3d gravity = tree.model.gravity();
  for (const GravityCompensation& c : tree.gravity_compensations) {
    tree.model.CalcPointJacobian(c.body, tree.model.body_pose(c.body) * c.center,
                                 &w->point_jacobian);
    w->force.noalias() -= w->point_jacobian.transpose() * (c.mass * gravity);
  }
}

void TimeStepper::SolveFreeBodyMotion(const MultibodySystem::Tree& tree,
                                      const MultibodyTree::FreeBodyMass& body,
                                      Eigen::Ref<Eigen::VectorXd> v_star,
                                      Eigen::MatrixXd* a) const {
  // M (v* − v0) = δt (−h(q0, v0) + τ) in closed form, in fixed size, without
  // the tree's workspace: M = diag(m I, I_B) with the COM at the body
  // frame's origin; otherwise M⁻¹ = T⁻¹ diag(m I, I_B)⁻¹ T⁻ᵀ with
  // T⁻¹ = [I, R [c]×; 0, I] (MultibodyTree::FreeBodyState): the torque
  // about the origin taken to the COM, c × (Rᵀ f) off it, and the COM's
  // velocity change carried back to the origin, R (c × Δω) on it.
  Eigen::Matrix<double, kBodyDofs, 1> force = -tree.model.nonlinear_effects();
  AddAppliedForces(tree, force);
  const double dt = parameters_.time_step;
  if (body.com_at_origin) {
    v_star.head<3>() = tree.v.head<3>() + (dt / body.mass) * force.head<3>();
    v_star.tail<3>() = tree.v.tail<3>() + dt * (body.inverse_inertia * force.tail<3>());
  } else {
    const Eigen::Matrix3d& R_WB = tree.model.free_body_rotation();
    const Eigen::Vector3d torque_about_com =
        force.tail<3>() - body.com.cross(R_WB.transpose() * force.head<3>());
    const Eigen::Vector3d omega_change = dt * (body.inverse_inertia * torque_about_com);
    v_star.head<3>() = tree.v.head<3>() + (dt / body.mass) * force.head<3>() +
                       R_WB * body.com.cross(omega_change);
    v_star.tail<3>() = tree.v.tail<3>() + omega_change;
  }
  *a = tree.model.mass_matrix();
}

int TimeStepper::SolveFreeMotion(int t, MultibodySystem::Tree* tree, const Theta& theta,
                                 TreeWorkspace* w, Eigen::Ref<Eigen::VectorXd> v_star,
                                 Eigen::MatrixXd* a, bool* converged) const {
  const MultibodyTree::FreeBodyMass* body = tree->model.free_body_mass();
  if (theta.theta == 0.0 && body != nullptr && tree->springs.empty() &&
      tree->gravity_compensations.empty()) {
    tree->model.SetState(tree->q, tree->v);  // explicit: h at (q0, v0)
    SolveFreeBodyMotion(*tree, *body, v_star, a);
    *converged = true;
    return 1;
  }
  const int size = static_cast<int>(tree->v.size());
  if (static_cast<int>(w->velocity_parents.size()) != size)
    w->velocity_parents = tree->model.VelocityParents();
  if (w->tree_a_factor.size() != size) w->tree_a_factor.SetParents(w->velocity_parents);
  w->factors_by_tree = SpringsKeepBranchPattern(tree->springs, w->velocity_parents);
  const double dt = parameters_.time_step;
  w->q0 = tree->q;
  w->v0 = tree->v;
  v_star = w->v0;
  *converged = true;
  for (int iteration = 1; iteration <= parameters_.free_motion_max_iterations;
       ++iteration) {
    w->v_theta_vq = theta.theta_vq * v_star + (1 - theta.theta_vq) * w->v0;
    if (theta.theta == 0.0) {
      w->q_theta = w->q0;  // explicit: no increment
    } else {
      w->step = theta.theta * dt * w->v_theta_vq;  // the increment q^θ ⊖ q0
      tree->model.Integrate(w->q0, w->step, &w->q_theta);
    }
    w->v_theta = theta.theta * v_star + (1 - theta.theta) * w->v0;
    tree->model.SetState(w->q_theta, w->v_theta);
    // m(v) = M(q^θ)(v − v0) − δt k(q^θ, v^θ), k = −h + k1 (springs, dampers).
    w->force = -tree->model.nonlinear_effects();
    if (parameters_.implicit_joint_damping) {
      AddSpringDamperForces(tree->springs, w->q_theta, v_star, &w->force);
    } else {
      AddSpringDamperForces(tree->springs, w->q_theta, w->v_theta, &w->force);
    }
    AddAppliedForces(*tree, w->force);
    AddGravityCompensation(*tree, w);
    // Newton with the SPD linearization A = M + δt² θ θvq K + δt θ D (the
    // ∂M/∂q and ∂h/∂v terms are left out), and δt b for the controllers
    // folded in: exact in one step for explicit schemes, where q^θ = q0 and
    // v^θ = v0 do not depend on v.
    *a = tree->model.mass_matrix();
    const double damping_theta = parameters_.implicit_joint_damping ? 1.0 : theta.theta;
    AddSpringDamperLinearization(tree->springs, dt * dt * theta.theta * theta.theta_vq,
                                 dt * damping_theta, a);
    AddAffineEfforts(t, *tree, v_star, w->force, a);
    // −m(v*) = δt k − M (v* − v0), δt k alone at the first iteration (v* = v0).
    w->step = dt * w->force;
    if (iteration > 1) {
      w->velocity_change = v_star - w->v0;
      w->step.noalias() -= tree->model.mass_matrix() * w->velocity_change;
    }
    SolveWithA(*a, w);
    v_star += w->step;
    if (theta.theta == 0.0) return iteration;
    if (w->step.norm() <= parameters_.free_motion_tolerance * (1.0 + v_star.norm())) {
      return iteration;
    }
  }
  *converged = false;
  return parameters_.free_motion_max_iterations;
}

void TimeStepper::SolveWithA(const Eigen::MatrixXd& a, TreeWorkspace* w) {
  const bool body = a.rows() == kBodyDofs;
  const bool by_tree = !body && w->factors_by_tree;
  if (w->factored_a.rows() != a.rows() || w->factored_by_tree != by_tree ||
      w->factored_a != a) {
    // A that is not positive definite leaves v* meaningless here and is
    // refused by the contact problem (ContactProblem::Finalize).
    if (body) {
      w->body_a_factor.compute(a);
    } else if (by_tree) {
      w->tree_a_factor.mutable_matrix() = a;
      w->tree_a_factor.Factor();
    } else {
      w->a_factor = a;
      CholeskyInPlace(&w->a_factor);
    }
    w->factored_a = a;
    w->factored_by_tree = by_tree;
  }
  if (body) {
    Eigen::Map<Eigen::Matrix<double, kBodyDofs, 1>> step(w->step.data());
    w->body_a_factor.solveInPlace(step);
  } else if (by_tree) {
    w->tree_a_factor.SolveInPlace(w->step);
  } else {
    SolveLowerInPlace(w->a_factor, w->step.data(), 1);
    SolveLowerTransposeInPlace(w->a_factor, w->step.data());
  }
}

void TimeStepper::AddContactConstraint(const MultibodySystem& system,
                                       const ContactPoint& contact) {
  const CollisionWorld& world = system.collision_world();
  const int tree_b = world.tree(contact.geometry_b);
  const int tree_a = world.tree(contact.geometry_a);
  // Blocks: B's tree, then A's if it is another simulated tree.
  const auto dofs = [&](int tree) {
    return tree >= 0 ? static_cast<int>(system.tree(tree).v.size()) : 0;
  };
  const int first = dofs(tree_b >= 0 ? tree_b : tree_a);
  const int second = tree_b >= 0 && tree_a != tree_b ? dofs(tree_a) : 0;
  ProblemConstraint& constraint =
      problem_.EmplaceConstraint(ContactSlotKind(first, second));
  const int num_blocks = (first > 0) + (second > 0);
  constraint.jacobian.resize(num_blocks);
  constraint.bias.setZero(3);
  ContactPointState point{.phi0 = contact.phi, .v_n0 = 0.0};
  // v_c = R_WCᵀ (v_B(p) − v_A(p)): positive v_n separates B from A.
  const Eigen::Matrix3d R_CW = ContactFrame(contact.normal_W).transpose();
  int filled = 0;
  for (const auto& [geometry, sign] :
       {std::pair{contact.geometry_b, 1.0}, std::pair{contact.geometry_a, -1.0}}) {
    const int tree = world.tree(geometry);
    if (tree < 0) {  // v_B(p) of a kinematic body is prescribed: a bias
      constraint.bias +=
          sign * R_CW *
          system.WorldBodyVelocity(world.body(geometry), parameters_.time_step);
      continue;
    }
    const bool same_tree = filled == 1 && constraint.jacobian[0].clique == tree;
    JacobianBlock* block = &constraint.jacobian[same_tree ? 0 : filled];
    point.v_n0 +=
        AddBodyToContactBlock(system, geometry, sign, contact, R_CW, block, !same_tree);
    if (!same_tree) ++filled;
  }
  point.v_n0 += constraint.bias(2);
  ContactMaterial pair = CombineContactMaterials(
      system.material(contact.geometry_a), system.material(contact.geometry_b),
      parameters_.contact.friction_combination);
  pair.stiffness *= contact.weight;  // a cluster of surface samples (contact_point.h)
  EmplaceContactPotential(parameters_.contact, pair, point, &constraint.potential);
}

void TimeStepper::CacheFreeBodyFrames(const MultibodySystem& system) {
  free_body_frames_.resize(system.num_trees());
  for (int t = 0; t < system.num_trees(); ++t) {
    const MultibodySystem::Tree& tree = system.tree(t);
    FreeBodyFrame& frame = free_body_frames_[t];
    frame.is_free_body = tree.model.free_body_mass() != nullptr;
    if (!frame.is_free_body) continue;
    frame.R_WB = tree.model.free_body_rotation();
    frame.origin = tree.model.free_body_position();
    frame.v = tree.model.free_body_velocity();
  }
}

double TimeStepper::AddBodyToContactBlock(const MultibodySystem& system, int geometry,
                                          double sign, const ContactPoint& contact,
                                          const Eigen::Matrix3d& R_CW,
                                          JacobianBlock* block, bool first_body) {
  const CollisionWorld& world = system.collision_world();
  const int tree = world.tree(geometry), body = world.body(geometry);
  const MultibodyTree& model = system.tree(tree).model;
  const Eigen::VectorXd& v = system.tree(tree).v;
  if (first_body) {
    block->clique = tree;
    block->bodies.clear();
  }
  const Eigen::Matrix3d signed_rotation = sign * R_CW;
  double normal_velocity = 0.0;
  const FreeBodyFrame& frame = free_body_frames_[tree];
  if (first_body && frame.is_free_body) {
    // The block ±R_CW J_B(p) = [±R_CW, ±R_CW (−[r]× R_WB)] (FreeBodyPointJacobian)
    // in fixed size, without the tree's workspace; its first half is ±R_CW
    // itself.
    block->matrix.resize(3, kBodyDofs);
    Eigen::Map<Eigen::Matrix<double, 3, kBodyDofs>> rows(block->matrix.data());
    rows.leftCols<3>() = signed_rotation;
    rows.rightCols<3>().noalias() =
        signed_rotation *
        FreeBodyPointJacobian(frame.origin, frame.R_WB, contact.p_W).rightCols<3>();
    normal_velocity = rows.row(2).dot(frame.v);
  } else {
    TreeWorkspace& w = workspaces_[tree];
    model.CalcPointJacobian(body, contact.p_W, &w.point_jacobian);
    // Coefficient-based products: Eigen's blocked kernels would be set up
    // for 3 rows.
    if (first_body) block->matrix.setZero(3, w.point_jacobian.cols());
    block->matrix.noalias() += signed_rotation.lazyProduct(w.point_jacobian);
    normal_velocity = signed_rotation.row(2).lazyProduct(w.point_jacobian).dot(v);
  }
  if (!SplitsBodies()) return normal_velocity;
  const int dof = model.BodyVelocityIndex(body);
  if (dof < 0) return normal_velocity;  // a body welded to the world adds nothing
  block->bodies.push_back(
      {.dof = dof, .map = signed_rotation * PointVelocityMap(contact.p_W)});
  return normal_velocity;
}

ProblemConstraint& TimeStepper::AddJointRow(int t, int num_velocities,
                                            std::span<const JointTerm> terms, double sign,
                                            int kind) {
  ProblemConstraint& constraint =
      problem_.EmplaceConstraint(JointSlotKind(kind, num_velocities));
  constraint.jacobian.resize(1);
  constraint.jacobian[0].clique = t;
  constraint.jacobian[0].matrix.setZero(1, num_velocities);
  for (const JointTerm& term : terms)
    constraint.jacobian[0].matrix(0, term.velocity) += sign * term.coefficient;
  constraint.jacobian[0].bodies.clear();
  constraint.bias.setZero(1);
  return constraint;
}

void TimeStepper::AddLimitRows(int t, const MultibodySystem::Tree& tree,
                               std::span<const JointTerm> terms, double lower,
                               double upper) {
  SapUnilateralConstraint::Parameters parameters;
  parameters.near_rigid_threshold = parameters_.contact.near_rigid_threshold;
  const double s = CombinedPosition(terms, tree.q);
  const double reach =
      parameters_.contact_margin +
      2.0 * parameters_.time_step * std::abs(CombinedVelocity(terms, tree.v));
  // Lower: gap s − s_l opens with ṡ; upper: gap s_u − s opens with −ṡ.
  for (const auto& [gap, sign] :
       {std::pair{s - lower, 1.0}, std::pair{upper - s, -1.0}}) {
    if (gap >= reach) continue;
    EmplaceConstraintPotential<SapUnilateralConstraint>(
        &AddJointRow(t, static_cast<int>(tree.v.size()), terms, sign, kJointLimitSlot)
             .potential,
        parameters, gap);
  }
}

void TimeStepper::AddJointConstraints(const MultibodySystem& system) {
  controller_constraints_.clear();
  controllers_begin_.resize(system.num_trees());
  for (int t = 0; t < system.num_trees(); ++t) {
    const MultibodySystem::Tree& tree = system.tree(t);
    controllers_begin_[t] = controller_constraints_.size();
    const int nv = static_cast<int>(tree.v.size());
    for (const JointLimit& limit : tree.limits) {
      const JointTerm joint{limit.position, limit.velocity, 1.0};
      AddLimitRows(t, tree, {&joint, 1}, limit.lower, limit.upper);
    }
    for (const FixedTendon& tendon : tree.tendons)
      AddLimitRows(t, tree, tendon.terms, tendon.lower, tendon.upper);
    for (size_t k = 0; k < tree.controllers.size(); ++k) {
      const JointPdController& controller = tree.controllers[k];
      if (std::optional<PdControllerConstraint> law = AffineEffortLaw(
              controller, tree.q, tree.v, parameters_.time_step, crossed_limits_[t][k])) {
        // in the free motion (AddAffineEfforts)
        controller_constraints_.push_back({.tree = t,
                                           .velocity = controller.velocity,
                                           .tendon = controller.tendon,
                                           .controller = static_cast<int>(k),
                                           .law = std::move(law)});
        continue;
      }
      const JointTerm joint{controller.position, controller.velocity, 1.0};
      const std::span<const JointTerm> terms = ActedOn(tree, controller.tendon, joint);
      EmplaceConstraintPotential<PdControllerConstraint>(
          &AddJointRow(t, nv, terms, 1.0, kJointControllerSlot).potential,
          controller.gains, CombinedPosition(terms, tree.q));
      controller_constraints_.push_back({.tree = t,
                                         .velocity = controller.velocity,
                                         .constraint = problem_.num_constraints() - 1,
                                         .tendon = controller.tendon,
                                         .controller = static_cast<int>(k),
                                         .law = std::nullopt});
    }
    for (const JointFriction& friction : tree.frictions) {
      const JointTerm joint{-1, friction.velocity, 1.0};
      EmplaceConstraintPotential<JointFrictionConstraint>(
          &AddJointRow(t, nv, ActedOn(tree, friction.tendon, joint), 1.0,
                       kJointFrictionSlot)
               .potential,
          friction.friction, parameters_.contact.sigma);
    }
    for (const BodyConnection& connection : tree.connections)
      if (connection.active) AddBodyConnectionRows(system, t, connection);
    AddCouplerRows(t, tree);
  }
}

void TimeStepper::AddCouplerRows(int t, const MultibodySystem::Tree& tree) {
  // g = s − p(r), ġ = (c_s − p′(r) c_r)ᵀ v.
  for (const JointCoupler& coupler : tree.couplers) {
    const auto [p, slope] =
        coupler.Polynomial(CombinedPosition(coupler.reference_terms, tree.q));
    ProblemConstraint& row = AddJointRow(t, static_cast<int>(tree.v.size()),
                                         coupler.terms, 1.0, kJointCouplerSlot);
    for (const JointTerm& term : coupler.reference_terms)
      row.jacobian[0].matrix(0, term.velocity) -= slope * term.coefficient;
    EmplaceConstraintPotential<SapHolonomicConstraint>(
        &row.potential, CombinedPosition(coupler.terms, tree.q) - p,
        parameters_.contact.near_rigid_threshold);
  }
}

void TimeStepper::AddBodyConnectionRows(const MultibodySystem& system, int t,
                                        const BodyConnection& connection) {
  const MultibodyTree& model = system.tree(t).model;
  // Body b: of this tree, of another, or the world's frame T (t_b = −1).
  const int t_b = connection.body_b < 0   ? -1
                  : connection.tree_b < 0 ? t
                                          : connection.tree_b;
  const MultibodyTree* model_b = t_b < 0 ? nullptr : &system.tree(t_b).model;
  Eigen::Matrix<double, 3, Eigen::Dynamic>* jacobian_b =
      t_b < 0 ? nullptr : &workspaces_[t_b].point_jacobian;
  TreeWorkspace& w = workspaces_[t];
  const Eigen::Isometry3d X_WA = model.body_pose(connection.body_a);
  const Eigen::Isometry3d X_WB =
      model_b ? model_b->body_pose(connection.body_b) : connection.X_WT;
  const Eigen::Vector3d p_aW = X_WA * connection.p_a, p_bW = X_WB * connection.p_b;
  model.CalcPointJacobian(connection.body_a, p_aW, &w.connection_jacobian);
  if (model_b) model_b->CalcPointJacobian(connection.body_b, p_bW, jacobian_b);
  AddConnectionRows(t, t_b, p_aW - p_bW);
  if (!connection.weld) return;
  // g = log(R_a R_ab R_bᵀ), ġ = ω_a − ω_b for a small g.
  const Eigen::AngleAxisd error(X_WA.linear() * connection.R_ab *
                                X_WB.linear().transpose());
  model.CalcAngularJacobian(connection.body_a, &w.connection_jacobian);
  if (model_b) model_b->CalcAngularJacobian(connection.body_b, jacobian_b);
  AddConnectionRows(t, t_b, error.angle() * error.axis());
}

void TimeStepper::AddConnectionRows(int t, int t_b, const Eigen::Vector3d& g0) {
  Eigen::Matrix<double, 3, Eigen::Dynamic>& jacobian_a =
      workspaces_[t].connection_jacobian;
  if (t_b == t) jacobian_a -= workspaces_[t].point_jacobian;
  const Eigen::Matrix<double, 3, Eigen::Dynamic>* jacobian_b =
      t_b >= 0 && t_b != t ? &workspaces_[t_b].point_jacobian : nullptr;
  const auto squared_norm = [&](int axis) {
    return jacobian_a.row(axis).squaredNorm() +
           (jacobian_b ? jacobian_b->row(axis).squaredNorm() : 0.0);
  };
  // An axis along which no velocity moves the points (a planar linkage's
  // normal) has no row: its gap cannot change.
  const double largest = std::max({squared_norm(0), squared_norm(1), squared_norm(2)});
  const int dofs_a = static_cast<int>(jacobian_a.cols());
  for (int axis = 0; axis < 3; ++axis) {  // one row per world axis
    if (!(squared_norm(axis) > 1e-24 * largest)) continue;
    ProblemConstraint& row = problem_.EmplaceConstraint(
        jacobian_b ? TreeConnectionSlotKind(dofs_a, static_cast<int>(jacobian_b->cols()))
                   : JointSlotKind(kBodyConnectionSlot, dofs_a));
    row.jacobian.resize(jacobian_b ? 2 : 1);
    row.jacobian[0].clique = t;
    row.jacobian[0].matrix = jacobian_a.row(axis);
    row.jacobian[0].bodies.clear();
    if (jacobian_b) {
      row.jacobian[1].clique = t_b;
      row.jacobian[1].matrix = -jacobian_b->row(axis);
      row.jacobian[1].bodies.clear();
    }
    row.bias.setZero(1);
    EmplaceConstraintPotential<SapHolonomicConstraint>(
        &row.potential, g0[axis], parameters_.contact.near_rigid_threshold);
  }
}

double TimeStepper::LargestDissipationTimeScale(const MultibodySystem& system) const {
  // A pair's τ_d is the larger of its two (CombineContactMaterials).
  double largest = 0.0;
  for (const double time_scale : system.dissipation_time_scales()) {
    largest = std::max(largest, SapDissipationTimeScaleOrDefault(
                                    time_scale, parameters_.contact.near_rigid_threshold,
                                    parameters_.time_step));
  }
  return largest;
}

double TimeStepper::DefaultContactLookahead(const MultibodySystem& system) const {
  return parameters_.time_step + LargestDissipationTimeScale(system);
}

double TimeStepper::ContactLookahead(const MultibodySystem& system) const {
  return parameters_.contact_lookahead ? *parameters_.contact_lookahead
                                       : DefaultContactLookahead(system);
}

void TimeStepper::CalcGeometryMotion(const MultibodySystem& system) {
  // Speculative contacts: each geometry swept, at its present velocity, over
  // h = contact_lookahead, by default the longest time within which a
  // contact model engages a closing gap: a SAP contact approaching without
  // slip acts once v_n < −φ0/(δt + τ_d) (SAP §V-A), a Hunt & Crossley one
  // once v_n < −φ0/δt, so h = δt + max τ_d. Body B's origin moves by h v_o,
  // and a point of geometry G at most h |ω| r further, |r| ≤ |p_BG| + R_G.
  // Every gap the step's models would close at these speeds is then in the
  // problem (the margin covers gravity's δt² |g| ≈ 1 mm at δt = 10 ms), and
  // bodies at rest have no reach. (A sliding SAP contact engages further
  // out, while v_n < μ‖v_t‖ − φ0/(δt + τ_d): SAP's gliding, IRR §IX-A. Those
  // gaps are not looked for.)
  const CollisionWorld& world = system.collision_world();
  const double horizon = ContactLookahead(system);
  // The world's own geometries do not move: their motion stays none.
  if (static_cast<int>(geometry_motion_.size()) != world.num_geometries())
    geometry_motion_.assign(world.num_geometries(), GeometryMotion{});
  largest_reach_ = 0.0;
  for (const int g : system.moving_geometries()) {
    const int tree = world.tree(g), body = world.body(g);
    GeometryMotion& motion = geometry_motion_[g];
    motion = GeometryMotion{};
    if (tree >= 0) {
      const MultibodyTree& model = system.tree(tree).model;
      const double radius =
          std::isfinite(world.bounding_radius(g))
              ? world.pose_in_body(g).translation().norm() + world.bounding_radius(g)
              : 0.0;
      motion.translation = horizon * model.BodyLinearVelocity(body);
      motion.turn = horizon * model.BodyAngularSpeed(body) * radius;
    } else if (body > 0) {  // a kinematic world body (translating)
      motion.translation =
          horizon * system.WorldBodyVelocity(body, parameters_.time_step);
    }
    largest_reach_ = std::max(largest_reach_, motion.reach());
  }
}

double TimeStepper::LargestContactMargin() const {
  return parameters_.contact_margin + largest_reach_;
}

void TimeStepper::QueryContacts(const MultibodySystem& system,
                                std::vector<ContactPoint>* contacts) {
  system.UpdateGeometryPoses(&geometry_poses_);
  CalcGeometryMotion(system);
  system.collision_world().ComputeContacts(geometry_poses_, parameters_.contact_margin,
                                           contacts, geometry_motion_);
}

void TimeStepper::ComputeContacts(MultibodySystem* system, StepStatistics* stats) {
  system->UpdateAllTrees();
  QueryContacts(*system, &contacts_);
  int overlapping = 0;
  for (const ContactPoint& contact : contacts_) {
    stats->max_penetration = std::max(stats->max_penetration, -contact.phi);
    if (contact.phi < 0.0) {
      stats->mean_penetration -= contact.phi;
      ++overlapping;
    }
  }
  if (overlapping > 0) stats->mean_penetration /= overlapping;
}

bool TimeStepper::AssembleProblem(MultibodySystem* system, const Theta& theta,
                                  StepStatistics* stats) {
  problem_.Clear();
  workspaces_.resize(system->num_trees());
  CacheFreeBodyFrames(*system);
  // Constraints first, while the trees are at q0 (J(q0), φ0); Finalize
  // checks them against the cliques added next.
  const CollisionWorld& world = system->collision_world();
  constraint_contacts_.clear();
  if (SplitsBodies()) {  // S at q0, for the contacts' body parts and the cliques
    for (int t = 0; t < system->num_trees(); ++t) {
      const MultibodyTree& model = system->tree(t).model;
      if (workspaces_[t].velocity_parents.empty())
        workspaces_[t].velocity_parents = model.VelocityParents();
      model.CalcMotionSubspaces(&workspaces_[t].motion);
    }
  }
  try {
    for (const ContactPoint& contact : contacts_) {
      if (world.tree(contact.geometry_a) < 0 && world.tree(contact.geometry_b) < 0)
        continue;
      AddContactConstraint(*system, contact);
      constraint_contacts_.push_back(contact);
    }
  } catch (const std::invalid_argument& error) {  // e.g. k = ∞ with lagged
    stats->failure = error.what();
    return false;
  }
  stats->num_contacts = problem_.num_constraints();
  AddJointConstraints(*system);

  // Free motion per tree: v* and A_t.
  Eigen::VectorXd& v_star = problem_.mutable_v_star();
  v_star.resize(system->num_velocities());
  v_guess_.resize(system->num_velocities());
  int offset = 0;
  for (int t = 0; t < system->num_trees(); ++t) {
    MultibodySystem::Tree& tree = system->tree(t);
    const int size = static_cast<int>(tree.v.size());
    bool converged = true;
    Eigen::MatrixXd& a = problem_.EmplaceClique(size);
    if (SplitsBodies()) {
      CliqueTree& clique_tree = problem_.EmplaceCliqueTree(t);
      clique_tree.parent = workspaces_[t].velocity_parents;
      clique_tree.motion = workspaces_[t].motion;
    }
    stats->free_motion_iterations =
        std::max(stats->free_motion_iterations,
                 SolveFreeMotion(t, &tree, theta, &workspaces_[t],
                                 v_star.segment(offset, size), &a, &converged));
    if (!converged) {
      stats->failure = "free motion of " + tree.name + " did not converge";
      return false;
    }
    // The free motion's factor of A (SolveWithA) serves the Delassus
    // estimates too.
    if (size != kBodyDofs) {
      const TreeWorkspace& w = workspaces_[t];
      if (w.factors_by_tree) {
        problem_.EmplaceCliqueTreeFactor(t) = w.tree_a_factor;
      } else {
        problem_.EmplaceCliqueFactor(t) = w.a_factor;
      }
    }
    v_guess_.segment(offset, size) = tree.v;
    offset += size;
  }
  try {
    problem_.Finalize();
  } catch (const std::invalid_argument& error) {  // e.g. a state gone non-finite
    stats->failure = std::string("invalid contact problem: ") + error.what();
    return false;
  }
  stepped_ = true;
  if (SolvesNcp()) {
    if (parameters_.ncp_warm_start) {
      GuessImpulses();
    } else {
      lambda_guess_.resize(0);
    }
  }
  return true;
}

void TimeStepper::GuessImpulses() {
  lambda_guess_.setZero(problem_.num_constraint_equations());
  const double radius = LargestContactMargin();  // reaches of this step's query
  const auto same_pair = [](const ContactPoint& a, const ContactPoint& b) {
    return std::pair{a.geometry_a, a.geometry_b} < std::pair{b.geometry_a, b.geometry_b};
  };
  for (size_t i = 0; i < constraint_contacts_.size(); ++i) {
    const ContactPoint& contact = constraint_contacts_[i];
    const auto [first, last] = std::equal_range(
        previous_contacts_.begin(), previous_contacts_.end(), contact, same_pair);
    double nearest = radius;
    auto match = last;
    for (auto previous = first; previous != last; ++previous) {
      const double distance = (previous->p_W - contact.p_W).norm();
      if (distance < nearest) {
        nearest = distance;
        match = previous;
      }
    }
    if (match == last) continue;
    // λ_W = R_WC' λ' from the old contact frame, expressed in the new one.
    const Eigen::Vector3d impulse_W =
        ContactFrame(match->normal_W) *
        previous_impulses_[match - previous_contacts_.begin()];
    lambda_guess_.segment<3>(problem_.constraint_offset(static_cast<int>(i))) =
        ContactFrame(contact.normal_W).transpose() * impulse_W;
  }
}

void TimeStepper::SetImpulseWarmStart(std::vector<ContactPoint> contacts,
                                      std::vector<Eigen::Vector3d> impulses_C) {
  if (contacts.size() != impulses_C.size())
    throw std::invalid_argument("SetImpulseWarmStart: one impulse per contact");
  previous_contacts_ = std::move(contacts);
  previous_impulses_ = std::move(impulses_C);
}

void TimeStepper::RememberImpulses() {
  previous_contacts_ = constraint_contacts_;  // in pair order, as the query returns them
  previous_impulses_.resize(previous_contacts_.size());
  for (size_t i = 0; i < previous_contacts_.size(); ++i) {
    previous_impulses_[i] =
        solution_.impulses.segment<3>(problem_.constraint_offset(static_cast<int>(i)));
  }
}

bool TimeStepper::SolveContact(StepStatistics* stats) {
  ContactSolverStatistics solve;
  try {
    // (SAP is given no impulses: lambda_guess_ is empty unless SolvesNcp.)
    solve = solver_->Solve(problem_, v_guess_, lambda_guess_, &solution_);
  } catch (const std::invalid_argument& error) {  // a constraint without a rigid law
    stats->failure = std::string(ToString(parameters_.solver.kind)) + ": " + error.what();
    return false;
  }
  // (Counts add over the step's solves: a step may solve again.)
  ++stats->contact_solves;
  stats->iterations += solve.iterations;
  stats->line_search_iterations += solve.line_search_iterations;
  stats->tree_iterations += solve.clique_iterations;
  stats->working_set_rounds += solve.working_set_rounds;
  stats->symbolic_analysis |= solve.symbolic_analysis;
  stats->momentum_error = solve.momentum_error;
  stats->complementarity_error = solve.complementarity_error;
  stats->ncp_residual = solve.ncp_residual;
  stats->islands = solve.num_islands;
  if (SolvesNcp()) RememberImpulses();
  // SAP must converge; an NCP solver's fixed budget may end unconverged (the
  // residual says how far from the rigid solution the step is).
  const bool usable = SolvesNcp() ? UsableResult(solve.status) : Accepted(solve.status);
  stats->converged_at_roundoff = solve.status == SolverStatus::kConvergedAtRoundoff;
  stats->ended_at_budget =
      SolvesNcp() && solve.status == SolverStatus::kMaxIterationsReached;
  stats->near_rigid_contacts = 0;  // (of this solve: a step may solve again)
  for (int i = 0; i < problem_.num_constraints(); ++i) {
    stats->near_rigid_contacts += problem_.constraint(i).potential->near_rigid();
  }
  if (usable) return true;
  stats->failure = std::string(ToString(parameters_.solver.kind)) + " " +
                   std::string(ToString(solve.status)) + " after " +
                   std::to_string(solve.iterations) + " iterations";
  if (!SolvesNcp()) {
    stats->failure += " (e_m = " + std::to_string(solve.momentum_error) + ")";
  }
  if (solve.status == SolverStatus::kNotFinite) {
    stats->failure +=
        ": its cost overflowed, from a value too large for double precision (a "
        "stiffness, sigma, mass or speed): bring it within range";
  }
  return false;
}

bool TimeStepper::EffortWithinLimit(const ControllerConstraint& c) const {
  const double v = solution_.v[problem_.clique_offset(c.tree) + c.velocity];
  return std::abs(c.law->offset() - c.law->slope() * v) <= c.law->effort_limit();
}

void TimeStepper::ClearCrossedLimits(const MultibodySystem& system) {
  crossed_limits_.resize(system.num_trees());
  for (int t = 0; t < system.num_trees(); ++t)
    crossed_limits_[t].assign(system.tree(t).controllers.size(), 0);
}

bool TimeStepper::FoldedLimitsHold() {
  bool hold = true;
  for (const ControllerConstraint& c : controller_constraints_) {
    // (An effort alone's law is a clamped constant.)
    if (!c.law || c.law->slope() == 0.0 || EffortWithinLimit(c)) continue;
    crossed_limits_[c.tree][c.controller] = 1;
    hold = false;
  }
  return hold;
}

void TimeStepper::UpdatePositions(MultibodySystem* system, const Theta& theta) {
  for (int t = 0; t < system->num_trees(); ++t) {
    MultibodySystem::Tree& tree = system->tree(t);
    TreeWorkspace& w = workspaces_[t];
    const auto v =
        solution_.v.segment(problem_.clique_offset(t), problem_.clique_size(t));
    // δt (θ v + (1 − θ) v_old), evaluated where it is assigned (before v_old
    // is overwritten).
    const auto step =
        parameters_.time_step * (theta.theta_vq * v + (1 - theta.theta_vq) * tree.v);
    if (tree.model.free_body_mass() != nullptr) {  // in place and fixed size
      tree.model.IntegrateFreeBody(tree.q, step);
      tree.v = v;
      continue;
    }
    w.step = step;
    tree.model.Integrate(tree.q, w.step, &w.q_theta);
    tree.q.swap(w.q_theta);  // (the old q becomes the next step's workspace)
    tree.v = v;
  }
}

StepStatistics TimeStepper::Step(MultibodySystem* system) {
  const Stopwatch step_stopwatch;
  StepStatistics stats;
  ComputeContacts(system, &stats);
  stats.geometry_time_s = step_stopwatch.Seconds();

  const Theta theta = SchemeTheta();
  // Again with the controllers whose folded effort crossed its limit as
  // constraints (FoldedLimitsHold marks them, and a mark stays for the
  // step): at most once more per controller.
  ClearCrossedLimits(*system);
  do {
    Stopwatch phase;
    if (!AssembleProblem(system, theta, &stats)) return stats;
    stats.assembly_time_s += phase.Seconds();
    phase.Restart();
    if (!SolveContact(&stats)) return stats;
    stats.solve_time_s += phase.Seconds();
  } while (!FoldedLimitsHold());

  UpdatePositions(system, theta);
  system->set_time(system->time() + parameters_.time_step);
  stats.converged = true;
  stats.wall_time_s = step_stopwatch.Seconds();
  return stats;
}

}  // namespace coulomb
