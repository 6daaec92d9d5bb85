#pragma once

#include <atomic>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <Eigen/Dense>
#include <Eigen/Geometry>

#include "coulomb/math/sample_rows.h"
#include "coulomb/math/segmented_array.h"
#include "coulomb/sim/scene.h"
#include "coulomb/sim/simulation_snapshot.h"
#include "coulomb/sim/time_stepper.h"

namespace coulomb {

// Per-step record kept while recording.
struct StepRecord {
  double time = 0.0;  // at the end of the step [s]
  StepStatistics statistics;
  double energy = 0.0;  // kinetic + gravity + springs at the end of the step [J]
};

// The recorded trajectory: every tree's first body, and the generalized state.
// A contact point of a recorded step, by geometry (CollisionWorld index).
struct RecordedContact {
  int geometry_a = -1;
  int geometry_b = -1;
  Eigen::Vector3d point = Eigen::Vector3d::Zero();    // p_W [m]
  Eigen::Vector3d normal = Eigen::Vector3d::UnitZ();  // n_W, unit, from A into B
  Eigen::Vector3d impulse = Eigen::Vector3d::Zero();  // γ_W on B [N·s]
  double depth = 0.0;  // penetration −φ0 at the start of the step [m]
};

// A collision geometry as a viewer draws it: its shape (in its frame G) and
// the body it belongs to ("world" for static geometry).
struct RecordedGeometry {
  Shape shape;
  std::string body;
};

// A robot's sensor as recorded: its name and the number of numbers it reads
// (Sensor::dimension), its columns in a row of Trajectory::sensor_samples.
struct RecordedSensor {
  std::string name;
  int dimension = 1;
};

struct Trajectory {
  std::vector<double> time;
  double time_step = 0.0;  // δt [s] of the steps between samples
  std::vector<std::string> body_names;
  // Per body, one row per sample: position (3), orientation w, x, y, z (4),
  // world linear velocity (3), world angular velocity (3).
  std::vector<SampleRows> body_samples;
  SampleRows q;  // all trees' q, stacked, a row per sample
  SampleRows v;
  // Per tree, one row per sample: its sensors' readings
  // (Simulation::SensorReadings) stacked in their order; no rows for a tree
  // without sensors.
  std::vector<SampleRows> sensor_samples;
  // Per tree, its sensors in the order of a row of sensor_samples.
  std::vector<std::vector<RecordedSensor>> sensors;
  // What a viewer draws: the geometries (below) and their world poses X_WG
  // as [x y z qw qx qy qz] (7 per geometry, CollisionWorld order). A
  // geometry of the world itself never moves (a floor, a height field's
  // thousands of prisms): its pose is kept once, in first_poses (every
  // geometry's as the simulation was built). Per sample, geometry_poses
  // holds those of moving_geometries (all the others, in order; every
  // geometry if none moves). GeometryPosesAt puts them together.
  Eigen::VectorXd first_poses;
  std::vector<int> moving_geometries;
  SampleRows geometry_poses;
  // Per sample s, the contacts of the step that ended there:
  // contacts[contact_offsets[s], contact_offsets[s + 1]) (none for sample 0).
  std::vector<long long> contact_offsets{0};
  SegmentedArray<RecordedContact> contacts;
  std::vector<RecordedGeometry> geometries;
};

// The samples of `trajectory` from `first` on (contacts included).
Trajectory SamplesFrom(const Trajectory& trajectory, size_t first);

// Every geometry's pose (7 each) into `poses` (which holds first_poses):
// those of `moving` replaced by `moving_poses` (7 per moving geometry).
void PutMovingPoses(const std::vector<int>& moving, const double* moving_poses,
                    double* poses);
// Every geometry's pose at `sample` of `trajectory` (7 each).
Eigen::VectorXd GeometryPosesAt(const Trajectory& trajectory, size_t sample);

// Statistics of a run (Simulation::Run) or of every step so far.
struct SimulationSummary {
  int steps = 0;
  double sim_time = 0.0;
  double wall_time_s = 0.0;
  double realtime_factor = 0.0;
  double iterations_mean = 0.0;
  int iterations_max = 0;
  // SAP's line-search evaluations and working-set rounds per step
  // (StepStatistics), over the converged steps as iterations_mean.
  double line_search_iterations_mean = 0.0;
  double working_set_rounds_mean = 0.0;
  // SAP's Newton iterations per tree and step (StepStatistics::tree_iterations).
  double tree_iterations_mean = 0.0;
  double momentum_error_max = 0.0;  // SAP's e_m
  double ncp_residual_max = 0.0;    // CANAL, SubADMM, PGS
  int failed_steps = 0;
  int roundoff_steps = 0;  // SAP steps accepted at the round-off floor
  // NCP solvers' steps accepted at their budget, unsolved
  // (StepStatistics::ended_at_budget; ncp_residual_max bounds how far).
  int budget_ended_steps = 0;
  // SAP steps that redid the symbolic factorization (the clique coupling
  // changed; contact points coming and going between bodies already in
  // contact do not count).
  int symbolic_analysis_steps = 0;
  // Steps whose contact problem was solved more than once
  // (StepStatistics::contact_solves > 1: a folded PD controller crossed its
  // effort limit); their iterations count every solve.
  int steps_solved_again = 0;
  double penetration_max = 0.0;
  int contacts_max = 0;
  int near_rigid_contacts_max = 0;  // contacts made near-rigid in one step
  double energy_initial = 0.0;
  double energy_final = 0.0;
  // Where the steps' time went [s], summed over the steps: their own wall
  // time (wall_time_s also counts what a run does between steps: recording,
  // callbacks) and its split (StepStatistics): collision queries, problem
  // assembly (free motion, constraints), contact solve.
  double step_time_s = 0.0;
  double geometry_time_s = 0.0;
  double assembly_time_s = 0.0;
  double solve_time_s = 0.0;
  std::string failure;       // the first failure, if any
  bool interrupted = false;  // stopped early by RequestStop
};

// Folds step records into a SimulationSummary, one by one: energies, maxima,
// means, the first failure.
class StepSummary {
 public:
  StepSummary(double initial_energy, double time_step);
  void Add(const StepRecord& record);
  // wall_time_s: the run's own clock (default: the sum of the steps').
  SimulationSummary Finish(std::optional<double> wall_time_s = std::nullopt) const;

 private:
  double time_step_;
  double iterations_sum_ = 0.0;
  double line_search_iterations_sum_ = 0.0;
  double working_set_rounds_sum_ = 0.0;
  double tree_iterations_sum_ = 0.0;
  SimulationSummary summary_;
};

// The summary of `records` (SimulationSummary), from a run's initial energy.
SimulationSummary SummarizeRecords(const std::vector<StepRecord>& records,
                                   double initial_energy, double time_step);

// The pose and velocity of one body, in the world frame W: pose X_WB (B at
// the body's centre of mass for free bodies, the link frame for robots),
// velocities of B's origin [m/s] and angular [rad/s].
struct BodyState {
  Eigen::Isometry3d pose = Eigen::Isometry3d::Identity();
  Eigen::Vector3d linear_velocity = Eigen::Vector3d::Zero();
  Eigen::Vector3d angular_velocity = Eigen::Vector3d::Zero();
};

// A body by its place: tree index and body index within the tree's model.
struct BodyIndex {
  int tree = -1;
  int body = -1;
};

// One contact point of the last step, in the world frame. The normal points
// from body A into body B; the impulse is the one B receives over the step
// (A receives its opposite), [normal, tangential] split by the contact law.
struct Contact {
  std::string body_a;  // "world" for static and kinematic geometry
  std::string body_b;
  Eigen::Vector3d point = Eigen::Vector3d::Zero();    // p_W [m]
  Eigen::Vector3d normal = Eigen::Vector3d::UnitZ();  // n_W, unit
  double depth = 0.0;  // penetration −φ0 at the start of the step [m] (< 0: a gap)
  Eigen::Vector3d impulse = Eigen::Vector3d::Zero();  // γ_W on B [N·s]
};

// The public C++ API: a scene and its time stepper, stepped by the caller.
//
//   Simulation sim(LoadSceneFile("scenes/quadruped.yaml"));   // or a built-in
//   while (sim.time() < 1.0) {                                // scene, or code
//     sim.SetJointPdTarget("a1", "FR_calf_joint", target);
//     const StepStatistics& step = sim.Step();
//   }
//
// Step() advances by the scene's δt (two-stage θ-method, TimeStepper); Run()
// steps for the scene's duration. Both record the trajectory and per-step
// statistics while recording() is on (the default). State, body poses,
// contacts and actuation are read and set between steps. Every setter
// validates its input and throws std::invalid_argument naming what is wrong.
class Simulation {
 public:
  // Throws std::invalid_argument for a scene that cannot run: duration not
  // positive, bodies crowded in one spot (CheckNoCrowd).
  explicit Simulation(Scene scene);
  // A YAML scene file (format: scenes/README.md); throws SceneFileError.
  static Simulation FromFile(const std::string& path);

  // One step. On success the state is advanced and the statistics say how
  // accurately (iterations, e_m or the NCP residual); on a solver failure
  // (converged = false, failure says why) the state stays where it was.
  const StepStatistics& Step();
  // Steps the scene's duration (from the current time), stopping at the
  // first failed step; progress(fraction) after each step when given, and
  // observer(stepper, record) after each successful one (diagnostics).
  using StepObserver = std::function<void(const TimeStepper&, const StepRecord&)>;
  SimulationSummary Run(const std::function<void(double)>& progress = {},
                        const StepObserver& observer = {}) {
    return RunFor(scene_.duration, progress, observer);
  }
  // Asks a Run or RunFor in progress to return after the current step (its
  // summary says interrupted). Safe from another thread or a signal handler.
  void RequestStop() { stop_.requested = true; }
  // The same for `duration` [s] (> 0) instead of the scene's.
  SimulationSummary RunFor(double duration,
                           const std::function<void(double)>& progress = {},
                           const StepObserver& observer = {});

  double time() const { return scene_.system.time(); }
  double time_step() const { return scene_.parameters.time_step; }
  const StepStatistics& last_statistics() const { return last_statistics_; }

  // Generalized state, all trees stacked in tree order, as each tree's
  // model defines it (a free body or free-base robot starts with q =
  // [p_WB, quaternion x y z w], v = [ṗ_WB, ω_B]; one q and v per joint).
  // Stacked once per step (and on SetState), so reading them costs nothing;
  // the references stay valid, their values change with the state.
  const Eigen::VectorXd& q() const;
  const Eigen::VectorXd& v() const;
  // Throws unless the sizes match and every entry is finite; quaternions are
  // normalized. A state set from outside has no impulses: the NCP solvers'
  // next step starts cold, as in a new simulation (Restore keeps them).
  void SetState(const Eigen::VectorXd& q, const Eigen::VectorXd& v);
  // The moment to come back to (SimulationSnapshot), and the way back: throws
  // std::invalid_argument, changing nothing, for a snapshot of another scene
  // (other trees, sizes or joints) or one whose state, actuation or warm
  // start is not valid (bytes decoded from elsewhere). The contacts() of the
  // last step stay.
  SimulationSnapshot Snapshot() const;
  void Restore(const SimulationSnapshot& snapshot);
  // Sets the clock [s]; throws unless time is finite and ≥ 0 (CheckTime).
  void set_time(double time);
  static void CheckTime(double time);

  // Trees (free bodies and robots) and their bodies.
  int num_trees() const { return scene_.system.num_trees(); }
  const std::string& tree_name(int tree) const;
  // A tree by name (its first body), or a robot link by its link name (the
  // first tree that has it). Throws std::invalid_argument listing the trees.
  BodyIndex FindBody(const std::string& name) const;
  BodyState body_state(const BodyIndex& body) const;
  BodyState body_state(const std::string& name) const {
    return body_state(FindBody(name));
  }

  // The contact points of the last step and their impulses (empty before
  // the first step).
  std::vector<Contact> contacts() const;
  // The contact problem the last step solved (SAP §IV-D: its cliques, v*,
  // constraints and their potentials), valid until the next step; null
  // before the first step. Its rigid NCP is what an FCLIB export writes
  // (fclib/fclib_writer.h).
  const ContactProblem* last_contact_problem() const { return stepper_.last_problem(); }
  // What the last step's contacts exerted on one body (a tree's first body
  // or a robot link, by name), averaged over the step (impulse / δt): the
  // net force [N] and its torque [N·m], both in world, the torque about
  // where the body frame's origin was when the contacts were found (the
  // step's start: their points are those of that moment). Zero before the
  // first step and after a failed one.
  struct Wrench {
    Eigen::Vector3d force = Eigen::Vector3d::Zero();
    Eigen::Vector3d torque = Eigen::Vector3d::Zero();
  };
  Wrench ContactWrench(const std::string& body) const;
  // The contact points of the current state that overlap by more than
  // `depth` [m] (no impulses): bodies placed inside each other. Allowed
  // (contact pushes them apart) but worth a warning.
  std::vector<Contact> Overlaps(double depth);
  // What is legal but likely wrong in the scene at the current state, one
  // sentence each: the scene files' unread parts (Scene::warnings), a time
  // step in which bodies can pass through each other (TimeStepWarnings) and
  // bodies overlapping by more than kWarnedOverlap. `coulomb run` prints
  // them and Python issues them as UserWarnings before the first step.
  static constexpr double kWarnedOverlap = 1e-3;  // [m]
  std::vector<std::string> StartWarnings();
  // What a run's summary says went wrong without failing a step: bodies
  // that sank deeper than the largest of them (PenetrationWarnings), and an
  // NCP solver's steps accepted at its budget unsolved
  // (SimulationSummary::budget_ended_steps). One
  // sentence each; `coulomb run` prints them and Python issues them as
  // UserWarnings after a run.
  std::vector<std::string> RunWarnings(const SimulationSummary& summary) const;

  // Actuation of one-dof joints of robot `tree` (by name), or of its fixed
  // tendons (by name: the effort a force along the tendon, the target its
  // length L = Σ c_k q_k; FixedTendon). An effort [N·m or N] is a constant
  // feedforward until changed; a PD target needs a PD controller on the
  // joint (a scene's `controllers`, an MJCF actuator, or SetJointPdGains),
  // and is clamped into the joint's target range if it has one (an MJCF
  // servo's ctrlrange, as MuJoCo clamps controls: JointTargetRange).
  void SetJointEffort(const std::string& tree, const std::string& joint, double effort);
  void SetJointPdTarget(const std::string& tree, const std::string& joint,
                        double position, double velocity = 0.0);
  void SetJointPdGains(const std::string& tree, const std::string& joint,
                       double proportional, double derivative,
                       double effort_limit = std::numeric_limits<double>::infinity());
  // SetJointEffort and SetJointPdTarget for every one-dof joint of robot
  // `tree` at once, in joint_names' order (a control loop's one call per
  // step). Checked whole before anything is set: a count other than the
  // joints', a value not finite, or (targets) joints without PD gains throw
  // std::invalid_argument naming them, and nothing changes.
  void SetJointEfforts(const std::string& tree, const Eigen::VectorXd& efforts);
  void SetJointPdTargets(const std::string& tree, const Eigen::VectorXd& positions,
                         const Eigen::VectorXd& velocities);
  // Dry friction F [N·m or N] of a one-dof joint (JointFriction: the joint
  // sticks while the other torques on it stay below F), replacing what the
  // scene or the file gave it; 0 removes it. Throws std::invalid_argument on
  // an unknown tree or joint, a negative or non-finite F. JointFrictions:
  // every one-dof joint's F, in joint_names' order.
  void SetJointFriction(const std::string& tree, const std::string& joint,
                        double friction);
  Eigen::VectorXd JointFrictions(const std::string& tree) const;
  std::vector<std::string> joint_names(const std::string& tree) const;
  // The positions [rad or m] and velocities [rad/s or m/s] of robot `tree`'s
  // one-dof joints, in joint_names' order (a floating base's pose and twist
  // are its body_state). Throws std::invalid_argument for an unknown tree.
  Eigen::VectorXd JointPositions(const std::string& tree) const;
  Eigen::VectorXd JointVelocities(const std::string& tree) const;
  // Robot `tree`'s fixed tendons (an MJCF file's <tendon><fixed>) and their
  // lengths L = Σ c_k q_k [m or rad] at the current state, in that order.
  // Throws std::invalid_argument for an unknown tree.
  std::vector<std::string> tendon_names(const std::string& tree) const;
  Eigen::VectorXd TendonLengths(const std::string& tree) const;
  // The efforts [N·m or N] robot `tree`'s PD controllers and constant
  // efforts applied over the last step, in joint_names' order: u = γ/δt, γ a
  // controller's impulse (its implicit law at the step's end, within its
  // effort limit). 0 for a joint without either; all 0 before the first
  // step and after a failed one.
  Eigen::VectorXd JointEfforts(const std::string& tree) const;
  // Robot `tree`'s actuators (an MJCF file's: ActuatorControl), in the
  // file's order, and MuJoCo's control u of one of them, by name: a motor's
  // effort or a servo's target, scaled and clamped as MuJoCo's ctrl is (a
  // servo's other target, velocity or position, 0). Throws
  // std::invalid_argument for an unknown tree or actuator, or u not finite.
  std::vector<std::string> actuator_names(const std::string& tree) const;
  void SetActuatorControl(const std::string& tree, const std::string& actuator,
                          double control);
  // SetActuatorControl for every actuator of robot `tree`, in
  // actuator_names' order, checked whole first as SetJointEfforts is.
  void SetActuatorControls(const std::string& tree, const Eigen::VectorXd& controls);
  // The controls of some of robot `tree`'s actuators, by name (controls[k]
  // for actuators[k]; the others keep theirs), checked whole first: an
  // unknown name or a control not finite throws std::invalid_argument and
  // sets none.
  void SetActuatorControls(const std::string& tree,
                           const std::vector<std::string>& actuators,
                           const Eigen::VectorXd& controls);
  // Each actuator's force over the last step, in actuator_names' order, as
  // MuJoCo's actuator_force: its controller's effort (JointEfforts) over its
  // gear [N or N·m]. All 0 before the first step and after a failed one.
  Eigen::VectorXd ActuatorForces(const std::string& tree) const;
  // Robot `tree`'s connects and welds (an MJCF file's <equality><connect>
  // and <weld>: BodyConnection) by name, in the file's order, and whether
  // each holds (MuJoCo's eq_active; the file's `active` at load): switched
  // off it holds nothing, switched on again what it held before.
  std::vector<std::string> connection_names(const std::string& tree) const;
  bool ConnectionActive(const std::string& tree, const std::string& name) const;
  void SetConnectionActive(const std::string& tree, const std::string& name, bool active);
  // The frame T of the world that a connection to the world holds body1 to
  // (the identity at load, or the mocap body's pose for a connect or weld
  // to one): moved, body1 follows it, held as it was held to the world, now
  // to T (MuJoCo's weld to a mocap body whose pose is set; with
  // relpose="0 0 0 1 0 0 0" T is body1's target pose). Throws
  // std::invalid_argument for an unknown tree or name, a connection of two
  // bodies, or a pose that is not finite or not a rotation.
  Eigen::Isometry3d ConnectionFrame(const std::string& tree,
                                    const std::string& name) const;
  void SetConnectionFrame(const std::string& tree, const std::string& name,
                          const Eigen::Isometry3d& X_WT);
  // The scene's mocap bodies (an MJCF file's <body mocap="true">) by name,
  // and their poses: set, a mocap body's geometries are there from the next
  // step on, not swept (their velocity is zero, as MuJoCo's), and the
  // connects and welds that name it hold to its new frame. Throws
  // std::invalid_argument for an unknown name or a pose that is not finite
  // or not a rotation.
  std::vector<std::string> mocap_names() const { return scene_.system.mocap_names(); }
  Eigen::Isometry3d MocapPose(const std::string& name) const;
  void SetMocapPose(const std::string& name, const Eigen::Isometry3d& X_WB);
  // The distance [m] along the ray from origin_W in `direction_W` (any
  // nonzero length) to the nearest geometry of the scene at the current
  // state (RayDistance: a convex shape from inside is met where the ray
  // leaves it, a half-space from above only), leaving out those of body
  // `exclude_body` of tree `exclude_tree` (−1: none; body −1: the world's
  // geometries, MuJoCo's world body, as a rangefinder on a world site
  // leaves them out: MultibodySystem::GeometryOnBody); nullopt when the ray
  // meets none. Throws std::invalid_argument for a point or direction not
  // finite, or a zero direction.
  std::optional<double> CastRay(const Eigen::Vector3d& origin_W,
                                const Eigen::Vector3d& direction_W, int exclude_tree = -1,
                                int exclude_body = -1) const;
  // CastRay from origin_W along each row of directions_W (N × 3), the
  // geometries' poses computed once (a lidar's scan, MuJoCo's mj_multiRay):
  // the N distances [m], −1 where a ray meets nothing. Throws
  // std::invalid_argument naming the first direction not finite or zero.
  Eigen::VectorXd CastRays(const Eigen::Vector3d& origin_W,
                           const Eigen::Matrix<double, Eigen::Dynamic, 3>& directions_W,
                           int exclude_tree = -1, int exclude_body = -1) const;
  // Robot `tree`'s sensors (an MJCF file's <sensor>s: Sensor) by name, in
  // the file's order, and their readings at the current state (joint
  // actuator forces and touch over the last step: 0 before the first step and
  // after a failed one). Throws std::invalid_argument for an unknown tree.
  std::vector<std::string> sensor_names(const std::string& tree) const;
  std::vector<Eigen::VectorXd> SensorReadings(const std::string& tree) const;
  // For model-based control, at the current state, in the velocities of one
  // tree (a free body or a robot, by name): v().segment(first, count) with
  // {first, count} = VelocityRange(tree). M(q) [kg, kg·m, kg·m²] with the
  // joints' armature (a free body's diag(m I, I_B) for v = [ṗ_W; ω_B]), and
  // the point Jacobian of `body` (a tree's first body or a robot link): the
  // world velocity of the point at p_W moving with the body is J v_tree.
  // Throw std::invalid_argument for an unknown name or a non-finite point.
  // And the bias forces h(q, v) of M v̇ = τ − h (Coriolis, gyroscopic and
  // gravity: τ = h holds the tree's velocities still).
  std::pair<int, int> VelocityRange(const std::string& tree) const;
  // Where tree `tree`'s positions sit in q(): {first, count}.
  std::pair<int, int> PositionRange(const std::string& tree) const;
  // Where robot `tree`'s one-dof joints sit in q() and v(), in joint_names'
  // order, when they are consecutive in both (every joint but a floating
  // base has one dof); std::invalid_argument naming the robot otherwise.
  struct JointEntries {
    int first_position = 0;  // in q()
    int first_velocity = 0;  // in v()
    int count = 0;
  };
  JointEntries ConsecutiveJointEntries(const std::string& tree) const;
  Eigen::MatrixXd MassMatrix(const std::string& tree) const;
  Eigen::VectorXd BiasForces(const std::string& tree) const;
  Eigen::Matrix<double, 3, Eigen::Dynamic> PointJacobian(
      const std::string& body, const Eigen::Vector3d& p_W) const;
  // A wrench on a free body or a robot's floating base (by name) at its
  // frame's origin (a free body's centroid), force [N] and torque [N·m] in
  // world, held fixed in world until changed (zero to remove). Throws
  // std::invalid_argument for another body or a non-finite wrench.
  void SetBodyWrench(const std::string& body, const Eigen::Vector3d& force_W,
                     const Eigen::Vector3d& torque_W);

  // Recording (on by default): the trajectory and per-step records grow with
  // every step (a state set by SetState or set_time is recorded as the next
  // step's start). Off, stepping keeps no history.
  bool recording() const { return recording_; }
  void set_recording(bool on);
  const std::vector<StepRecord>& records() const { return records_; }
  const Trajectory& trajectory() const { return trajectory_; }
  // Forgets the recorded samples and step records (kept: body names and
  // geometries); recording goes on with the next step. For a writer that
  // has stored them (RunRecorder), so that memory stays flat: the current
  // state counts as recorded (the writer's last sample, or the state a run
  // is resumed from).
  void DiscardRecording();
  // How many samples DiscardRecording has dropped in all: trajectory()'s
  // sample s is the run's sample num_discarded_samples() + s.
  size_t num_discarded_samples() const { return num_discarded_samples_; }
  // The NCP solvers' warm start from the contacts a recording holds for the
  // last step (a resumed run; SAP needs none: it starts from v).
  void RestoreImpulseWarmStart(const std::vector<RecordedContact>& contacts);
  // Mechanical energy of the scene's initial state [J].
  double initial_energy() const { return initial_energy_; }
  // Statistics of every step recorded so far.
  SimulationSummary Summary() const;

  const Scene& scene() const { return scene_; }
  // The system itself, for what the API above does not cover (q() and v()
  // are stacked again on their next read).
  Scene& mutable_scene() {
    stacked_state_current_ = false;
    return scene_;
  }
  const TimeStepper& stepper() const { return stepper_; }

 private:
  int FindTree(const std::string& name) const;
  // VelocityRange of tree `t`.
  std::pair<int, int> VelocityRangeOfTree(int t) const;
  // {first, count} of tree t's entries in the stacked vector whose trees'
  // sizes `size` gives (num_positions: q(), num_velocities: v()).
  std::pair<int, int> RangeOfTree(int t, int (MultibodyTree::*size)() const) const;
  // Connection `name` of tree `tree` (std::invalid_argument listing its
  // connections when there is none).
  BodyConnection& FindConnection(const std::string& tree, const std::string& name);
  const BodyConnection& FindConnection(const std::string& tree,
                                       const std::string& name) const;
  // Throws std::invalid_argument unless `values` (named `what`) holds one
  // finite number per name of `names` (robot `tree`'s `kind`: "joints").
  static void CheckOnePerName(const std::string& tree, const char* what,
                              const Eigen::VectorXd& values,
                              const std::vector<std::string>& names, const char* kind);
  // The PD controller on `joint` of `tree`, created with zero gains when
  // absent and create is set (a pure effort); null otherwise.
  JointPdController* FindController(const std::string& tree, const std::string& joint,
                                    bool create);
  // FindController for a joint known to be tree t's (one of joint_names_[t]):
  // no check of the name.
  JointPdController* ControllerOf(int t, const std::string& joint, bool create);
  // A checked target of tree t's `controller` on `joint`, clamped into its
  // servo's range (JointTargetRange) and set.
  void ApplyPdTarget(int t, const std::string& joint, double position, double velocity,
                     JointPdController* controller);
  std::string BodyName(int geometry) const;
  // The names of a tree's named elements (its sensors, its actuators).
  template <typename Named>
  static std::vector<std::string> NamesOf(const std::vector<Named>& elements) {
    std::vector<std::string> names;
    for (const Named& element : elements) names.push_back(element.name);
    return names;
  }
  // JointEfforts of tree `t` by velocity index (0 off the one-dof joints),
  // and ActuatorForces of tree `t`, written into `efforts` and `forces`
  // (resized; no allocation once they have the size).
  void CalcJointEffortsByVelocity(int t, Eigen::VectorXd* efforts) const;
  void CalcActuatorForces(int t, Eigen::VectorXd* forces) const;
  // Whether CastRay(…, tree, body) leaves geometry `geometry` out.
  bool LeftOutOfRay(int geometry, int tree, int body) const;
  // CastRay with the geometries at X_WG (CalcGeometryPoses), d_W a unit
  // vector: a robot's rangefinders share one pass over the poses.
  std::optional<double> CastRayAmong(const std::vector<Eigen::Isometry3d>& X_WG,
                                     const Eigen::Vector3d& origin_W,
                                     const Eigen::Vector3d& d_W, int exclude_tree,
                                     int exclude_body) const;
  // Σ γ_n/δt of the last step's contacts on `sensor`'s body of tree `tree`
  // at points inside its volume (Sensor::kTouch).
  double TouchForce(int tree, const Sensor& sensor) const;
  // Tree `tree`'s joint accelerations over the last step, (v − v_start)/δt,
  // and the last step's contact forces on its bodies (γ/δt at each point),
  // written into `a` and `forces`: zero and none before a step, after a
  // failed one and after SetState.
  void CalcLastStepAccelerations(int tree, Eigen::VectorXd* a) const;
  void CalcLastStepContactForces(int tree,
                                 std::vector<MultibodyTree::PointForce>* forces) const;
  // What a tree's sensors share, each computed once per reading when the
  // first sensor needs it, in buffers kept from one reading to the next (a
  // recorded run's: reading its sensors then allocates nothing).
  struct SensorScratch {
    Eigen::VectorXd efforts, actuator_forces, accelerations;
    std::vector<Eigen::Isometry3d> X_WG;  // for the rangefinders
    std::vector<MultibodyTree::PointForce> contact_forces;
  };
  // A sensor's reading that needs the last step's accelerations `a` and, for
  // a force or a torque, its contact forces on the tree (an accelerometer,
  // a frame's acceleration, a force, a torque).
  SensorValue ReadDynamicSensor(
      int tree, const Sensor& sensor, const Eigen::VectorXd& a,
      const std::vector<MultibodyTree::PointForce>& forces) const;
  // Tree t's sensor readings (SensorReadings) stacked in their order into
  // `readings`, as many numbers as their dimensions sum to.
  void StackSensorReadings(int t, SensorScratch* scratch,
                           Eigen::Ref<Eigen::VectorXd> readings) const;
  // Calls visit(point, γ_W) for each contact of the last step (none unless
  // it converged), γ_W the impulse on B in world. (A template, so that a
  // visitor's captures are not copied to the heap.)
  template <typename Visit>
  void VisitLastContacts(Visit&& visit) const {
    if (stepper_.last_problem() == nullptr || !last_statistics_.converged) return;
    const std::vector<ContactPoint>& points = stepper_.last_contacts();
    for (size_t i = 0; i < points.size(); ++i) visit(points[i], LastContactImpulse(i));
  }
  // The impulse γ_W [N·s] on B of the last step's contact i, in world.
  Eigen::Vector3d LastContactImpulse(size_t i) const;
  // Calls visit(c, u) for each PD controller c of tree `tree` over the last
  // step, u = γ/δt its effort (its joint's or its tendon's); none unless the
  // last step converged.
  template <typename Visit>
  void VisitControllerEfforts(int tree, Visit&& visit) const {
    if (stepper_.last_problem() == nullptr || !last_statistics_.converged) return;
    for (const TimeStepper::ControllerConstraint& c :
         stepper_.last_controller_constraints()) {
      if (c.tree == tree) visit(c, LastControllerEffort(c));
    }
  }
  // Controller constraint c's effort u = γ/δt over the last step.
  double LastControllerEffort(const TimeStepper::ControllerConstraint& c) const;
  // ends_step: the sample ends a step, whose contacts are recorded with it.
  void Record(bool ends_step);
  // The geometry poses and last step's contacts, for the viewer.
  void RecordGeometry(bool ends_step);
  // Every tree's sensor readings (Trajectory::sensor_samples).
  void RecordSensors();
  // Copies every tree's q and v into stacked_q_, stacked_v_.
  void StackState() const;

  Scene scene_;
  TimeStepper stepper_;
  StepStatistics last_statistics_;
  bool recording_ = true;
  // Whether the last sample recorded is the current state (no step,
  // SetState or set_time since): resuming recording then adds none.
  bool state_recorded_ = false;
  size_t num_discarded_samples_ = 0;
  double initial_energy_ = 0.0;
  std::vector<StepRecord> records_;
  Trajectory trajectory_;
  std::vector<Eigen::Isometry3d> recorded_geometry_poses_;  // RecordGeometry's X_WG
  SensorScratch recorded_sensor_scratch_;                   // RecordSensors'
  mutable Eigen::VectorXd stacked_q_, stacked_v_;
  // Each tree's one-dof joints (joint_names), named once: a built scene's
  // joints never change, and a control loop sets them every step.
  std::vector<std::vector<std::string>> joint_names_;
  // q() at the start of the last step: where its contacts were found
  // (ContactWrench's lever arms).
  Eigen::VectorXd step_start_q_;
  // v() at the start of the last step, empty once a state is set (SetState):
  // the sensors' accelerations over the last step.
  Eigen::VectorXd step_start_v_;
  mutable bool stacked_state_current_ = false;
  // A request of RequestStop; a moved simulation starts without one.
  struct StopRequest {
    std::atomic<bool> requested = false;
    StopRequest() = default;
    StopRequest(StopRequest&&) noexcept {}
    StopRequest& operator=(StopRequest&&) noexcept { return *this; }
  };
  StopRequest stop_;
};

}  // namespace coulomb
