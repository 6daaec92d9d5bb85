#pragma once

#include <algorithm>
#include <array>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "coulomb/base/named_enum.h"
#include "coulomb/contact/contact_problem.h"
#include "coulomb/contact/pd_controller_constraint.h"
#include "coulomb/math/tree_cholesky.h"
#include "coulomb/sim/contact_model.h"
#include "coulomb/sim/multibody_system.h"
#include "coulomb/solvers/contact_solver.h"

namespace coulomb {

// Schemes of the two-stage θ-method (docs/math.md §1, SAP §II-C).
enum class Scheme { kExplicitEuler, kSymplecticEuler, kImplicitEuler, kMidpoint };
template <>
struct EnumNames<Scheme> {
  static constexpr std::string_view kWhat = "scheme";
  static constexpr std::array<std::pair<Scheme, std::string_view>, 4> kNames = {{
      {Scheme::kExplicitEuler, "explicit_euler"},
      {Scheme::kSymplecticEuler, "symplectic_euler"},
      {Scheme::kImplicitEuler, "implicit_euler"},
      {Scheme::kMidpoint, "midpoint"},
  }};
};
inline std::string ToString(Scheme scheme) { return std::string(EnumName(scheme)); }

// The contact solver options of a simulation step: the defaults, with the
// NCP solvers' natural-map tolerance at 1e-8.
inline ContactSolverOptions StepSolverDefaults() {
  ContactSolverOptions options;
  options.ncp.tolerance = 1e-8;
  return options;
}

struct TimeStepperParameters {
  double time_step = 0.01;  // δt [s] > 0
  Scheme scheme = Scheme::kSymplecticEuler;
  // Joint dampers at the step's end velocity (τ = −d v, δt D in A) whatever
  // the scheme, as MuJoCo's Euler integrator takes them (its eulerdamp):
  // stable for any damping. Off, they take the scheme's θ (SAP's θ-method,
  // explicit where θ = 0). Springs always take the scheme's θ.
  bool implicit_joint_damping = false;
  // Speculative contacts: each geometry may move by h v_o (its body's origin
  // velocity) plus h |ω| (|p_BG| + R_G) from spin (the geometry's offset and
  // bounding radius), h = contact_lookahead, by default δt + the scene's
  // largest SAP τ_d (the longest a contact model takes to engage a closing
  // gap, so that the look-ahead leaves the models as they are); a pair
  // whose bounding spheres, swept so, come within the margin keeps its
  // contacts while φ < margin + the two geometries' reaches
  // (CollisionWorld::ComputeContacts). Bodies falling side by side and
  // resting neighbours of a fast body are not paired. Speculative contacts
  // with φ0 > 0 only act if the bodies would close the gap within the step.
  double contact_margin = 1e-3;
  // h [s] ≥ 0 above; 0 finds contacts only within the margin, as engines
  // without speculative contacts do (faster, but fast bodies then meet
  // overlapping, and SAP's engagement ahead of contact is cut off).
  std::optional<double> contact_lookahead;
  // The contact model (sap, lagged, …) and its run-wide parameters.
  ContactModelParameters contact;
  // The contact solver: SAP (the convex problem of the contact model's
  // potentials) or an exact-NCP solver (CANAL, SubADMM, PGS), which takes
  // every constraint's rigid law (ConvexConstraint::rigid_law: μ and the
  // position feedback of a contact, hard joint limits, PD controllers as
  // soft laws; AL §III-B). NCP solvers run a fixed budget per step (their
  // kStepBudget unless solver.ncp.max_iterations is set), which is not a
  // failure (AL §VII-C); the residual is reported per step, and their
  // natural-map tolerance is 1e-8.
  ContactSolverOptions solver = StepSolverDefaults();
  // CANAL, SubADMM, PGS: start from the previous step's impulses, matched per
  // contact (same geometry pair, nearest point within the contact margin;
  // rotated into the new contact frame); new contacts start at 0.
  bool ncp_warm_start = true;
  // Free motion of implicit schemes: Newton iterations on v* until
  // ‖Δv*‖ ≤ tolerance (1 + ‖v*‖).
  double free_motion_tolerance = 1e-12;
  int free_motion_max_iterations = 50;
};

// What one step reports (SAP eqs. 32–33 and the contact geometry).
struct StepStatistics {
  bool converged = false;
  std::string failure;  // why, when not converged
  // The contact solver's (ContactSolverStatistics): iterations, SAP's e_m
  // and e_μ, the NCP solvers' natural-map residual (normalized).
  int iterations = 0;
  double momentum_error = 0.0;
  double complementarity_error = 0.0;
  double ncp_residual = 0.0;
  int num_contacts = 0;
  // Contacts stiffer than the step resolves, made near-rigid (SAP's β,
  // Hunt & Crossley's clamp; ConvexConstraint::near_rigid).
  int near_rigid_contacts = 0;
  // SAP accepted the step at the round-off floor (kConvergedAtRoundoff).
  bool converged_at_roundoff = false;
  // An NCP solver (CANAL, SubADMM, PGS, …) ended the step at its iteration
  // budget above its tolerance (NcpStepBudget): the step is accepted, as the
  // AL paper's time stepping does (AL §VII-C), but its impulses are not the
  // rigid solution; ncp_residual says how far they are from it.
  bool ended_at_budget = false;
  // SAP redid the symbolic factorization: the clique coupling changed.
  bool symbolic_analysis = false;
  // SAP's Newton solve (0 for the other solvers): its line-search
  // evaluations (per Newton iteration those of the island that needed most),
  // its islands (cliques joined by the constraints with an impulse, at the
  // start of its last Newton solve; docs/math.md §2.8) and its working set's
  // rounds (sub-problems solved; 0 when the whole problem was solved at once).
  int line_search_iterations = 0;
  int islands = 0;
  int working_set_rounds = 0;
  // SAP: the Newton iterations each tree (a robot or a free body) went
  // through, averaged over the trees: `iterations` counts the slowest
  // island's, while islands that converge sooner are set aside.
  double tree_iterations = 0.0;
  // Contact problems solved in the step: 1, and one more each time a PD
  // controller folded into the free motion crossed its effort limit
  // (TimeStepper::FoldedLimitsHold). The iteration counts above and the
  // working-set rounds add over the solves; the errors, islands and
  // near-rigid contacts are the last solve's, the one the step takes.
  int contact_solves = 0;
  double max_penetration = 0.0;   // max(−φ0, 0) [m]
  double mean_penetration = 0.0;  // mean of −φ0 over overlapping contacts [m]
  int free_motion_iterations = 0;
  double wall_time_s = 0.0;
  // Split of wall_time_s [s]: collision queries at q0; free motion and the
  // contact problem's assembly; the contact solve.
  double geometry_time_s = 0.0;
  double assembly_time_s = 0.0;
  double solve_time_s = 0.0;
};

// The two-stage θ-method (SAP §II-C, II-D; docs/math.md §1), once per step:
// 1. free motion v*: M(q^θ)(v* − v0) = δt k(q^θ, v^θ), k = −h (gravity,
//    Coriolis, gyroscopic) + joint springs and dampers; q^θ = q0 ⊕ θ δt v^θvq.
//    Newton iterations with A = M + δt² θ θvq K + δt θ D (one for θ = 0).
// 2. contact: geometry queried once at q0 (J(q0), φ0); one potential of the
//    chosen contact model per contact point (SAP: v̂_n = −φ0/(δt + τ_d);
//    Lagged: γ_n0 from the normal velocity at v0); A_t = the linearization of 1;
//    SAP warm-started with v0.
//    Joint limits (near-rigid, SAP-style) and PD controllers (implicit) join
//    the same problem as convex potentials.
// 3. positions: q = q0 ⊕ δt (θvq v + (1 − θvq) v0); quaternions stay unit.
class TimeStepper {
 public:
  explicit TimeStepper(const TimeStepperParameters& parameters);
  ~TimeStepper();
  TimeStepper(TimeStepper&&) noexcept;
  TimeStepper& operator=(TimeStepper&&) noexcept;
  const TimeStepperParameters& parameters() const { return parameters_; }

  // Advances `system` by δt. On a solver failure the state is left at q0, v0
  // and the statistics say why.
  StepStatistics Step(MultibodySystem* system);

  // The contact query of a step at the system's current state (kinematics
  // up to date: UpdateAllTrees): poses, reaches, Coal.
  void QueryContacts(const MultibodySystem& system, std::vector<ContactPoint>* contacts);

  // The contact problem and its solution of the last step (diagnostics such
  // as the Hessian's condition number); null before the first step.
  const ContactProblem* last_problem() const { return stepped_ ? &problem_ : nullptr; }
  const ContactSolution& last_solution() const { return solution_; }
  // The contact points of the last step's constraints, in constraint order
  // (constraint i ↔ last_contacts()[i]; joint constraints follow them).
  const std::vector<ContactPoint>& last_contacts() const { return constraint_contacts_; }
  // The look-ahead h [s] the speculative contacts take by default, δt + the
  // scene's largest τ_d (Parameters::contact_lookahead), and the one in use.
  double DefaultContactLookahead(const MultibodySystem& system) const;
  double ContactLookahead(const MultibodySystem& system) const;
  // The PD controllers of the last step: the joint velocity each acted on
  // (or its tendon) and its constraint, whose impulse is the impulse u δt
  // the controller applied (on a tendon, along it: joint k takes c_k u δt);
  // a controller folded into the free motion (AffineEffortLaw: an effort
  // alone, or a PD controller on a joint whose limit held) has no
  // constraint (−1), and its effort is u(v) at the step's end velocity.
  struct ControllerConstraint {
    int tree = -1, velocity = -1, constraint = -1;
    int tendon = -1;      // the controller's tendon in its tree, −1 on a joint
    int controller = -1;  // its index in the tree's controllers
    // When constraint is −1: its law, prepared at q0 (u(v) = Actuation(v)).
    std::optional<PdControllerConstraint> law;
  };
  const std::vector<ControllerConstraint>& last_controller_constraints() const {
    return controller_constraints_;
  }
  // The NCP solvers' warm start for the next step (a resumed run): the
  // contacts of the previous step, sorted by geometry pair as last_contacts(),
  // and their impulses in their contact frames.
  void SetImpulseWarmStart(std::vector<ContactPoint> contacts,
                           std::vector<Eigen::Vector3d> impulses_C);
  // That warm start as it stands (empty before the first step of an NCP
  // solver, and after SetImpulseWarmStart({}, {})).
  const std::vector<ContactPoint>& warm_start_contacts() const {
    return previous_contacts_;
  }
  const std::vector<Eigen::Vector3d>& warm_start_impulses() const {
    return previous_impulses_;
  }

 private:
  struct Theta {
    double theta;
    double theta_vq;
  };
  // Buffers of one tree's free motion and position update, sized by its
  // velocities at the first step (a tree's sizes do not change): later steps
  // allocate nothing here.
  struct TreeWorkspace {
    Eigen::VectorXd q0, v0, v_theta_vq, v_theta, q_theta, force, velocity_change, step;
    // The factor of A and the A it is of (empty: none yet); a free body's A
    // = M is constant in its frame, and is factored once. A tree of six
    // velocities (a free body) uses the fixed-size factor; a larger tree
    // A = Lᵀ L along its dof tree (TreeCholesky, no fill-in), unless a
    // spring couples dofs of two branches (factors_by_tree false), then
    // the dense A = L Lᵀ.
    Eigen::MatrixXd a_factor;  // L of A = L Lᵀ (dense_cholesky.h)
    TreeCholesky tree_a_factor;
    bool factors_by_tree = false;
    Eigen::LLT<Eigen::Matrix<double, 6, 6>> body_a_factor;
    Eigen::MatrixXd factored_a;
    bool factored_by_tree = false;  // which factor holds factored_a's
    Eigen::Matrix<double, 3, Eigen::Dynamic> point_jacobian;
    Eigen::Matrix<double, 3, Eigen::Dynamic> connection_jacobian;  // J_a
    // The dof tree (MultibodyTree::VelocityParents), and SubADMM's per-body
    // split: S at q0 (CliqueTree).
    std::vector<int> velocity_parents;
    Eigen::Matrix<double, 6, Eigen::Dynamic> motion;
  };
  Theta SchemeTheta() const;
  // Adds a tree's applied generalized force (Tree::applied_force, checked
  // against the tree's velocities) and world-frame wrench
  // (Tree::applied_force_W, _torque_W) to its generalized force.
  static void AddAppliedForces(const MultibodySystem::Tree& tree,
                               Eigen::Ref<Eigen::VectorXd> force);
  // Adds the efforts at velocity v of tree t's controllers folded into the
  // free motion (their laws recorded by AddJointConstraints: an effort
  // alone, a PD controller on a joint while its limit holds) to its
  // generalized force, and their δt b to A.
  void AddAffineEfforts(int t, const MultibodySystem::Tree& tree,
                        Eigen::Ref<const Eigen::VectorXd> v,
                        Eigen::Ref<Eigen::VectorXd> force, Eigen::MatrixXd* a) const;
  // Adds the tree's gravity compensations (GravityCompensation) at its
  // kinematics' state to w->force.
  static void AddGravityCompensation(const MultibodySystem::Tree& tree, TreeWorkspace* w);
  // SolveFreeMotion of a free body under an explicit scheme, in closed form.
  void SolveFreeBodyMotion(const MultibodySystem::Tree& tree,
                           const MultibodyTree::FreeBodyMass& body,
                           Eigen::Ref<Eigen::VectorXd> v_star, Eigen::MatrixXd* a) const;
  // w->step ← A⁻¹ w->step for a tree's A, factored only when it differs
  // from the last A factored.
  static void SolveWithA(const Eigen::MatrixXd& a, TreeWorkspace* w);
  // v* (into v_star) and the contact problem's A for one tree; returns the
  // iterations.
  int SolveFreeMotion(int t, MultibodySystem::Tree* tree, const Theta& theta,
                      TreeWorkspace* workspace, Eigen::Ref<Eigen::VectorXd> v_star,
                      Eigen::MatrixXd* a, bool* converged) const;
  // Step phases; those returning bool return false with stats->failure set
  // when they fail.
  // Contacts at q0 (into contacts_) and their penetration statistics.
  void ComputeContacts(MultibodySystem* system, StepStatistics* stats);
  // The cliques (free motion of every tree), then the contact and joint
  // constraints of problem_, finalized; v_guess_ = v0.
  bool AssembleProblem(MultibodySystem* system, const Theta& theta,
                       StepStatistics* stats);
  // The kinds of problem_'s constraint slots (ContactProblem::EmplaceConstraint):
  // a step with fewer contacts than the last puts its joint constraints in
  // the slots of the last step's joint constraints, not of its contacts. A
  // contact's kind is the shape of its Jacobian blocks (the dofs of its one
  // or two trees), so that the slot it gets has storage of its size.
  static constexpr int kJointLimitSlot = -1, kJointControllerSlot = -2,
                       kJointFrictionSlot = -3, kJointCouplerSlot = -4,
                       kBodyConnectionSlot = -5, kTreeConnectionSlot = -6;
  static int ContactSlotKind(int first_block_dofs, int second_block_dofs) {
    return first_block_dofs | second_block_dofs << 16;
  }
  // A joint constraint's kind: its role (the k…Slot above) and the dofs of
  // its tree, the width of its Jacobian row, so that robots of different
  // sizes do not trade one slot's storage back and forth.
  static int JointSlotKind(int role, int tree_dofs) { return role - 8 * tree_dofs; }
  // A connection of two trees' bodies: the dofs of both.
  static int TreeConnectionSlotKind(int dofs_a, int dofs_b) {
    return JointSlotKind(kTreeConnectionSlot, dofs_a | dofs_b << 12);
  }
  // A BodyConnection's rows on tree t, at q0: three for the points (one per
  // world axis), three more for a weld's orientation.
  void AddBodyConnectionRows(const MultibodySystem& system, int t,
                             const BodyConnection& connection);
  // The rows of J_a − J_b with gaps g0, but those no velocity moves: J_a
  // workspaces_[t].connection_jacobian, J_b workspaces_[t_b].point_jacobian
  // (t_b: body b's tree, t or another; −1: the world's frame T, J_b = 0).
  void AddConnectionRows(int t, int t_b, const Eigen::Vector3d& g0);
  // One contact point's constraint, in a new slot of problem_ (at least one
  // side must be simulated).
  void AddContactConstraint(const MultibodySystem& system, const ContactPoint& contact);
  // The contact's Jacobian through one body: ±R_CW J_B(p) into *block, and
  // with the body split its part map = ±R_CW [I, −[p]×] (BodyJacobian). A
  // free body's from free_body_frames_.
  // Returns this side's share of v_n, ±(R_CW J_B(p) v)_z.
  double AddBodyToContactBlock(const MultibodySystem& system, int geometry, double sign,
                               const ContactPoint& contact, const Eigen::Matrix3d& R_CW,
                               JacobianBlock* block, bool first_body);
  // SubADMM splits constraints per body: the problem carries the trees.
  bool SplitsBodies() const {
    return parameters_.solver.kind == ContactSolverKind::kSubAdmm;
  }
  bool SolvesNcp() const { return parameters_.solver.kind != ContactSolverKind::kSap; }
  // problem_ solved by the chosen solver into solution_.
  bool SolveContact(StepStatistics* stats);
  // lambda_guess_ from the previous step's impulses (ncp_warm_start), and
  // what the next step matches against.
  void GuessImpulses();
  void RememberImpulses();
  // Joint limits within reach during the step and PD controllers, at q0.
  void AddJointConstraints(const MultibodySystem& system);
  // A joint constraint's row on tree t's velocities: J = sign Σ_k c_k e_kᵀ.
  ProblemConstraint& AddJointRow(int t, int num_velocities,
                                 std::span<const JointTerm> terms, double sign, int kind);
  // SapUnilateralConstraint rows for a coordinate s = Σ c_k q_k (a joint's
  // q, a tendon's L) within reach of its limits lower < upper.
  void AddLimitRows(int t, const MultibodySystem::Tree& tree,
                    std::span<const JointTerm> terms, double lower, double upper);
  // Near-rigid rows holding each coupled joint at m q_reference + c.
  void AddCouplerRows(int t, const MultibodySystem::Tree& tree);
  // Whether every folded PD controller's effort a − b v at the solution lies
  // within its limit (AffineEffortLaw); marks those beyond it in
  // crossed_limits_, which ClearCrossedLimits clears at the step's start.
  bool FoldedLimitsHold();
  void ClearCrossedLimits(const MultibodySystem& system);
  // |a − b v| ≤ u_max for a folded controller's law at the solution's v.
  bool EffortWithinLimit(const ControllerConstraint& c) const;
  // q = q0 ⊕ δt (θvq v + (1 − θvq) v0), v = the solution, per tree.
  void UpdatePositions(MultibodySystem* system, const Theta& theta);

  TimeStepperParameters parameters_;
  std::unique_ptr<ContactSolver> solver_;  // kept across steps (storage, threads)
  ContactProblem problem_;
  bool stepped_ = false;
  ContactSolution solution_;
  Eigen::VectorXd v_guess_;
  std::vector<TreeWorkspace> workspaces_;
  // A free body's frame (origin at its COM, orientation R_WB) and velocity
  // [ṗ_W; ω_B] at the step's start, per tree, side by side: what its
  // contacts' Jacobian blocks read (is_free_body false for other trees).
  struct FreeBodyFrame {
    Eigen::Matrix3d R_WB;
    Eigen::Vector3d origin;
    Eigen::Matrix<double, 6, 1> v;
    bool is_free_body = false;
  };
  std::vector<FreeBodyFrame> free_body_frames_;
  void CacheFreeBodyFrames(const MultibodySystem& system);
  std::vector<ContactPoint> contacts_;
  std::vector<ContactPoint> constraint_contacts_;  // contacts_ that became constraints
  std::vector<ControllerConstraint> controller_constraints_;
  // Where each tree's controllers start in controller_constraints_ (one
  // entry per controller, in the tree's order).
  std::vector<size_t> controllers_begin_;
  // Per tree and controller: 1 once its folded effort crossed its limit in
  // a solve of this step (it is then a constraint of the step's next solve).
  std::vector<std::vector<char>> crossed_limits_;
  std::vector<ContactPoint> previous_contacts_;     // with their impulses, by pair
  std::vector<Eigen::Vector3d> previous_impulses_;  // in their contact frames
  ReusableVector lambda_guess_;
  std::vector<Eigen::Isometry3d> geometry_poses_;
  std::vector<GeometryMotion> geometry_motion_;  // of CalcGeometryMotion
  double largest_reach_ = 0.0;                   // its largest reach()
  // geometry_motion_ at the system's state: the look-ahead h (by default
  // δt + max τ_d) times each geometry's velocity.
  void CalcGeometryMotion(const MultibodySystem& system);
  // The largest SAP dissipation time scale τ_d [s] of the scene's geometries
  // (given, or SAP's near-rigid default (β/π) δt).
  double LargestDissipationTimeScale(const MultibodySystem& system) const;
  // The margin plus the largest GeometryMotion::reach [m]: warm starts match
  // a contact to the last step's within it.
  double LargestContactMargin() const;
};

}  // namespace coulomb
