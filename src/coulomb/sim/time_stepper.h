#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "coulomb/contact/contact_problem.h"
#include "coulomb/sim/contact_model.h"
#include "coulomb/sim/multibody_system.h"
#include "coulomb/solvers/contact_ncp.h"
#include "coulomb/solvers/sap_solver.h"

namespace coulomb {

class CanalSolver;
class PgsSolver;
class SubAdmmSolver;

// The solver of the contact step: SAP (the convex compliant problem of the
// chosen contact model) or an exact-NCP solver (rigid Signorini–Coulomb on
// the same contacts, AL §III; math.md §4), CANAL, SubADMM or PGS.
// kSubAdmmNoBody is SubADMM split into trees but not into bodies, kAdmm
// without any split (one factorization of the whole system): the AL paper's
// baselines "No Body" and "No Sub" (§VII-D2; AdmmSplitting).
enum class ContactSolver { kSap, kCanal, kSubAdmm, kSubAdmmNoBody, kAdmm, kPgs };
// sap, canal, subadmm, subadmm-nobody, admm, pgs
ContactSolver ParseContactSolver(const std::string& name);
std::string ToString(ContactSolver solver);

// Schemes of the two-stage θ-method (math.md §1, SAP §II-C).
enum class Scheme { kExplicitEuler, kSymplecticEuler, kImplicitEuler, kMidpoint };
Scheme ParseScheme(const std::string& name);  // explicit_euler, symplectic_euler, …
std::string ToString(Scheme scheme);

struct TimeStepperParameters {
  double time_step = 0.01;  // δt [s] > 0
  Scheme scheme = Scheme::kSymplecticEuler;
  // Contacts are kept while φ < margin + 2 δt max|v_body| [m], so that
  // approaching bodies are seen one step ahead. Speculative contacts with
  // φ0 > 0 only act if the bodies would close the gap within the step.
  double contact_margin = 1e-3;
  // The contact model (sap, lagged, …) and its run-wide parameters.
  ContactModelParameters contact;
  SapSolverParameters sap;
  // CANAL, SubADMM and PGS treat every contact as rigid: they take μ from the contact
  // and the position feedback e_n = φ0/(δt + τ_d) (SAP's v̂, with τ_d's
  // near-rigid default (β/π) δt), need contact.model sap, and take joint
  // limits as hard unilateral laws and PD controllers as soft laws (AL
  // §III-B; see ContactNcp).
  ContactSolver solver = ContactSolver::kSap;
  // Per step: stop at the natural-map tolerance or after max_iterations (outer
  // iterations for CANAL, iterations for SubADMM, sweeps for PGS; 0: 20,
  // 100 and 100), which is not a failure (AL §VII-C uses fixed budgets); the
  // residual is reported per step.
  NcpSolverParameters ncp = {.tolerance = 1e-8, .max_iterations = 0};
  int threads = 1;  // SubADMM's worker threads (results do not depend on it)
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
  int sap_iterations = 0;
  double momentum_error = 0.0;
  double complementarity_error = 0.0;
  double ncp_residual = 0.0;  // CANAL, PGS: natural-map residual (normalized)
  int num_contacts = 0;
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

// The two-stage θ-method (SAP §II-C, II-D; math.md §1), once per step:
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

  // The distance within which the next step sees contacts [m]: the margin
  // plus twice the distance the fastest body origin covers in δt.
  double ContactMargin(const MultibodySystem& system) const;

  // The contact problem and SAP solution of the last step (diagnostics such
  // as the Hessian's condition number); null before the first step.
  const ContactProblem* last_problem() const { return stepped_ ? &problem_ : nullptr; }
  const SapSolution& last_solution() const { return solution_; }

 private:
  struct Theta {
    double theta;
    double theta_vq;
  };
  // Buffers of one tree's free motion and position update, sized at the first
  // step: the step loop allocates nothing once the contact pattern was seen.
  struct TreeWorkspace {
    Eigen::VectorXd q0, v0, v_theta_vq, v_theta, q_theta, force, residual, step;
    Eigen::LLT<Eigen::MatrixXd> a_factor;
    Eigen::Matrix<double, 3, Eigen::Dynamic> point_jacobian;
    // SubADMM's per-body split: the dof tree and S at q0 (CliqueTree).
    std::vector<int> velocity_parents;
    Eigen::Matrix<double, 6, Eigen::Dynamic> motion;
  };
  Theta SchemeTheta() const;
  // v* (into v_star) and the contact problem's A for one tree; returns the
  // iterations.
  int SolveFreeMotion(MultibodySystem::Tree* tree, const Theta& theta,
                      TreeWorkspace* workspace, Eigen::Ref<Eigen::VectorXd> v_star,
                      Eigen::MatrixXd* a, bool* converged) const;
  // Step phases; each returns false with stats->failure set when it fails.
  // Contacts at q0 (into contacts_) and their penetration statistics.
  void ComputeContacts(MultibodySystem* system, StepStatistics* stats);
  // The cliques (free motion of every tree), then the contact and joint
  // constraints of problem_, finalized; v_guess_ = v0.
  bool AssembleProblem(MultibodySystem* system, const Theta& theta,
                       StepStatistics* stats);
  // One contact point's constraint, in a new slot of problem_ (at least one
  // side must be simulated).
  void AddContactConstraint(const MultibodySystem& system, const ContactPoint& contact);
  // The contact's Jacobian through one body: J_B(p) into *block, and with
  // the body split its part map = ±R_CW [I, −[p]×] (BodyJacobian).
  void AddBodyToContactBlock(const MultibodySystem& system, int geometry, double sign,
                             const ContactPoint& contact, const Eigen::Matrix3d& R_CW,
                             JacobianBlock* block, bool first_body);
  // SubADMM splits constraints per body: the problem carries the trees.
  bool SplitsBodies() const { return parameters_.solver == ContactSolver::kSubAdmm; }
  // problem_ solved by the chosen solver into solution_.v.
  bool SolveContact(StepStatistics* stats);
  // Solves the finalized problem_ with CANAL, SubADMM or PGS into solution_.v.
  bool SolveRigidContact(StepStatistics* stats);
  // lambda_guess_ from the previous step's impulses (ncp_warm_start), and
  // what the next step matches against.
  void GuessImpulses(const MultibodySystem& system);
  void RememberImpulses();
  // Joint limits within reach during the step and PD controllers, at q0.
  void AddJointConstraints(const MultibodySystem& system);
  // q = q0 ⊕ δt (θvq v + (1 − θvq) v0), v = the solution, per tree.
  void UpdatePositions(MultibodySystem* system, const Theta& theta);

  TimeStepperParameters parameters_;
  SapSolver solver_;
  // The exact-NCP solver chosen, kept across steps (its storage and threads
  // are reused); null for SAP.
  std::unique_ptr<CanalSolver> canal_;
  std::unique_ptr<SubAdmmSolver> subadmm_;
  std::unique_ptr<PgsSolver> pgs_;
  std::unique_ptr<ContactNcp> ncp_;  // rebuilt in place each step
  NcpSolution rigid_solution_;
  Eigen::VectorXd ncp_lambda_guess_;  // lambda_guess_ in the NCP's layout
  ContactProblem problem_;
  bool stepped_ = false;
  SapSolution solution_;
  Eigen::VectorXd v_guess_;
  std::vector<TreeWorkspace> workspaces_;
  std::vector<ContactPoint> contacts_;
  std::vector<ContactPoint> constraint_contacts_;   // contacts_ that became constraints
  std::vector<ContactPoint> previous_contacts_;     // with their impulses, by pair
  std::vector<Eigen::Vector3d> previous_impulses_;  // in their contact frames
  Eigen::VectorXd lambda_guess_;
  std::vector<Eigen::Isometry3d> geometry_poses_;
};

}  // namespace coulomb
