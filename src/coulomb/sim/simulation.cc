#include "coulomb/sim/simulation.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "coulomb/base/stopwatch.h"
#include "coulomb/math/contact_frame.h"
#include "coulomb/sim/scene_checks.h"
#include "coulomb/sim/scene_file.h"

namespace coulomb {

StepSummary::StepSummary(double initial_energy, double time_step)
    : time_step_(time_step) {
  summary_.energy_initial = summary_.energy_final = initial_energy;
}

void StepSummary::Add(const StepRecord& record) {
  const StepStatistics& stats = record.statistics;
  summary_.momentum_error_max =
      std::max(summary_.momentum_error_max, stats.momentum_error);
  summary_.penetration_max = std::max(summary_.penetration_max, stats.max_penetration);
  summary_.ncp_residual_max = std::max(summary_.ncp_residual_max, stats.ncp_residual);
  summary_.contacts_max = std::max(summary_.contacts_max, stats.num_contacts);
  summary_.near_rigid_contacts_max =
      std::max(summary_.near_rigid_contacts_max, stats.near_rigid_contacts);
  summary_.roundoff_steps += stats.converged_at_roundoff;
  summary_.budget_ended_steps += stats.ended_at_budget;
  summary_.symbolic_analysis_steps += stats.symbolic_analysis;
  summary_.steps_solved_again += stats.contact_solves > 1;
  summary_.wall_time_s += stats.wall_time_s;
  summary_.step_time_s += stats.wall_time_s;
  summary_.geometry_time_s += stats.geometry_time_s;
  summary_.assembly_time_s += stats.assembly_time_s;
  summary_.solve_time_s += stats.solve_time_s;
  if (!stats.converged) {
    if (summary_.failed_steps++ == 0) {
      summary_.failure =
          "step at t = " + std::to_string(record.time) + " s: " + stats.failure;
    }
    return;
  }
  ++summary_.steps;
  iterations_sum_ += stats.iterations;
  line_search_iterations_sum_ += stats.line_search_iterations;
  working_set_rounds_sum_ += stats.working_set_rounds;
  tree_iterations_sum_ += stats.tree_iterations;
  summary_.iterations_max = std::max(summary_.iterations_max, stats.iterations);
  summary_.energy_final = record.energy;
}

SimulationSummary StepSummary::Finish(std::optional<double> wall_time_s) const {
  SimulationSummary summary = summary_;
  if (wall_time_s) summary.wall_time_s = *wall_time_s;
  summary.sim_time = summary.steps * time_step_;
  const auto mean = [&](double sum) {
    return summary.steps > 0 ? sum / summary.steps : 0.0;
  };
  summary.iterations_mean = mean(iterations_sum_);
  summary.line_search_iterations_mean = mean(line_search_iterations_sum_);
  summary.working_set_rounds_mean = mean(working_set_rounds_sum_);
  summary.tree_iterations_mean = mean(tree_iterations_sum_);
  summary.realtime_factor =
      summary.wall_time_s > 0 ? summary.sim_time / summary.wall_time_s : 0.0;
  return summary;
}

Simulation::Simulation(Scene scene)
    : scene_(std::move(scene)), stepper_(scene_.parameters) {
  if (!(scene_.duration > 0.0) || !std::isfinite(scene_.duration)) {
    throw std::invalid_argument("duration: must be positive and finite");
  }
  trajectory_.time_step = scene_.parameters.time_step;
  for (int t = 0; t < scene_.system.num_trees(); ++t) {
    trajectory_.body_names.push_back(scene_.system.tree(t).name);
  }
  for (int t = 0; t < scene_.system.num_trees(); ++t)
    joint_names_.push_back(scene_.system.tree(t).model.OneDofJointNames());
  trajectory_.body_samples.resize(scene_.system.num_trees());
  trajectory_.sensor_samples.resize(scene_.system.num_trees());
  for (int t = 0; t < scene_.system.num_trees(); ++t) {
    trajectory_.sensors.emplace_back();
    for (const Sensor& sensor : scene_.system.tree(t).sensors)
      trajectory_.sensors.back().push_back({sensor.name, sensor.dimension()});
  }
  const CollisionWorld& world = scene_.system.collision_world();
  for (int g = 0; g < world.num_geometries(); ++g)
    trajectory_.geometries.push_back({world.shape(g), BodyName(g)});
  trajectory_.moving_geometries = scene_.system.moving_geometries();
  if (trajectory_.moving_geometries.empty()) {
    for (int g = 0; g < world.num_geometries(); ++g)
      trajectory_.moving_geometries.push_back(g);
  }
  scene_.system.GatherTreeStates();
  scene_.system.UpdateAllTrees();
  CheckNoCrowd(scene_.system);
  initial_energy_ = scene_.system.MechanicalEnergy();
  Record(false);
}

SimulationSummary SummarizeRecords(const std::vector<StepRecord>& records,
                                   double initial_energy, double time_step) {
  StepSummary summary(initial_energy, time_step);
  for (const StepRecord& record : records) summary.Add(record);
  return summary.Finish();
}

void Simulation::DiscardRecording() {
  Trajectory& t = trajectory_;
  num_discarded_samples_ += t.time.size();
  t.time.clear();
  for (auto& samples : t.body_samples) samples.clear();
  for (auto& samples : t.sensor_samples) samples.clear();
  t.q.clear();
  t.v.clear();
  t.geometry_poses.clear();
  t.contacts.clear();
  t.contact_offsets.assign(1, 0);
  records_.clear();
  state_recorded_ = true;  // by the writer that holds the samples
}

void Simulation::RestoreImpulseWarmStart(const std::vector<RecordedContact>& contacts) {
  std::vector<ContactPoint> points;
  std::vector<Eigen::Vector3d> impulses_C;
  for (const RecordedContact& contact : contacts) {
    points.push_back({contact.geometry_a, contact.geometry_b, contact.point,
                      contact.normal, -contact.depth});
    impulses_C.push_back(ContactFrame(contact.normal).transpose() * contact.impulse);
  }
  stepper_.SetImpulseWarmStart(std::move(points), std::move(impulses_C));
}

void PutMovingPoses(const std::vector<int>& moving, const double* moving_poses,
                    double* poses) {
  for (size_t m = 0; m < moving.size(); ++m)
    std::copy_n(moving_poses + 7 * m, 7, poses + 7 * moving[m]);
}

Eigen::VectorXd GeometryPosesAt(const Trajectory& trajectory, size_t sample) {
  Eigen::VectorXd poses = trajectory.first_poses;
  PutMovingPoses(trajectory.moving_geometries,
                 trajectory.geometry_poses.at(sample).data(), poses.data());
  return poses;
}

Trajectory SamplesFrom(const Trajectory& all, size_t first) {
  if (first > all.time.size()) throw std::invalid_argument("no such trajectory sample");
  Trajectory part;
  part.time_step = all.time_step;
  part.body_names = all.body_names;
  part.sensors = all.sensors;
  part.geometries = all.geometries;
  part.first_poses = all.first_poses;
  part.moving_geometries = all.moving_geometries;
  part.time.assign(all.time.begin() + first, all.time.end());
  part.q = all.q.From(first);
  part.v = all.v.From(first);
  for (const SampleRows& samples : all.body_samples)
    part.body_samples.push_back(samples.From(first));
  for (const SampleRows& samples : all.sensor_samples)
    part.sensor_samples.push_back(samples.From(first));
  part.geometry_poses = all.geometry_poses.From(first);
  const long long first_contact = all.contact_offsets[first];
  for (size_t c = static_cast<size_t>(first_contact); c < all.contacts.size(); ++c)
    part.contacts.push_back(all.contacts[c]);
  part.contact_offsets.clear();
  for (size_t s = first; s < all.contact_offsets.size(); ++s) {
    part.contact_offsets.push_back(all.contact_offsets[s] - first_contact);
  }
  return part;
}

Simulation Simulation::FromFile(const std::string& path) {
  return Simulation(LoadSceneFile(path));
}

void Simulation::Record(bool ends_step) {
  if (!recording_) return;
  state_recorded_ = true;
  const MultibodySystem& system = scene_.system;
  trajectory_.time.push_back(system.time());

  for (int t = 0; t < system.num_trees(); ++t) {
    const BodyState state = body_state(BodyIndex{t, 0});
    const Eigen::Quaterniond rotation(state.pose.linear());
    trajectory_.body_samples[t].Append(13) << state.pose.translation(), rotation.w(),
        rotation.x(), rotation.y(), rotation.z(), state.linear_velocity,
        state.angular_velocity;
  }
  trajectory_.q.Append(q().size()) = q();
  trajectory_.v.Append(v().size()) = v();
  RecordSensors();
  RecordGeometry(ends_step);
}

void Simulation::RecordGeometry(bool ends_step) {
  std::vector<Eigen::Isometry3d>& X_WG = recorded_geometry_poses_;
  scene_.system.UpdateGeometryPoses(&X_WG);  // the fixed ones kept from the first sample
  const auto pose = [&](int g) {
    const Eigen::Quaterniond rotation(X_WG[g].linear());
    Eigen::Matrix<double, 7, 1> row;
    row << X_WG[g].translation(), rotation.w(), rotation.x(), rotation.y(), rotation.z();
    return row;
  };
  if (trajectory_.first_poses.size() == 0) {
    trajectory_.first_poses.resize(7 * X_WG.size());
    for (size_t g = 0; g < X_WG.size(); ++g)
      trajectory_.first_poses.segment<7>(7 * g) = pose(static_cast<int>(g));
  }
  const std::vector<int>& moving = trajectory_.moving_geometries;
  Eigen::Map<Eigen::VectorXd> poses =
      trajectory_.geometry_poses.Append(7 * static_cast<Eigen::Index>(moving.size()));
  for (size_t m = 0; m < moving.size(); ++m) poses.segment<7>(7 * m) = pose(moving[m]);
  if (ends_step) {
    VisitLastContacts([&](const ContactPoint& point, const Eigen::Vector3d& gamma_W) {
      trajectory_.contacts.push_back({point.geometry_a, point.geometry_b, point.p_W,
                                      point.normal_W, gamma_W, -point.phi});
    });
  }
  trajectory_.contact_offsets.push_back(
      static_cast<long long>(trajectory_.contacts.size()));
}

const StepStatistics& Simulation::Step() {
  // A state set since the last sample (SetState, set_time) is the step's
  // start: recorded first, so that the trajectory holds it.
  if (recording_ && !state_recorded_) Record(false);
  step_start_q_ = q();  // the same size every step: no allocation after the first
  step_start_v_ = v();
  last_statistics_ = stepper_.Step(&scene_.system);
  scene_.system.UpdateAllTrees();
  StackState();
  if (last_statistics_.converged) state_recorded_ = false;  // (else the state is kept)
  if (recording_) {
    records_.push_back(
        {scene_.system.time(), last_statistics_, scene_.system.MechanicalEnergy()});
    if (last_statistics_.converged) Record(true);
  }
  return last_statistics_;
}

SimulationSummary Simulation::RunFor(double duration,
                                     const std::function<void(double)>& progress,
                                     const StepObserver& observer) {
  if (!(duration > 0.0) || !std::isfinite(duration)) {
    throw std::invalid_argument("duration: must be positive and finite");
  }
  const Stopwatch stopwatch;
  const double dt = scene_.parameters.time_step;
  const int num_steps = [&] {
    try {
      return StepsInDuration(duration, dt);
    } catch (const std::invalid_argument& error) {
      throw std::invalid_argument(std::string("duration: ") + error.what());
    }
  }();
  StepSummary summary(scene_.system.MechanicalEnergy(), dt);
  for (int n = 1; n <= num_steps; ++n) {
    const double start_time = time();
    const StepStatistics& stats = Step();
    const StepRecord record =
        recording_ ? records_.back()
                   : StepRecord{start_time + dt, stats, scene_.system.MechanicalEnergy()};
    summary.Add(record);
    if (!stats.converged) break;
    if (observer) observer(stepper_, record);
    if (progress) progress(static_cast<double>(n) / num_steps);
    if (stop_.requested.exchange(false) && n < num_steps) {
      SimulationSummary interrupted = summary.Finish(stopwatch.Seconds());
      interrupted.interrupted = true;
      return interrupted;
    }
  }
  return summary.Finish(stopwatch.Seconds());
}

SimulationSummary Simulation::Summary() const {
  return SummarizeRecords(records_, initial_energy_, scene_.parameters.time_step);
}

void Simulation::set_recording(bool on) {
  const bool was = recording_;
  recording_ = on;
  if (on && !was && !state_recorded_) Record(false);  // the state recording resumes from
}

namespace {

// Every tree's q or v (member), stacked in tree order into `all`.
void Stack(const MultibodySystem& system, Eigen::VectorXd MultibodySystem::Tree::*member,
           Eigen::VectorXd* all) {
  Eigen::Index size = 0;
  for (int t = 0; t < system.num_trees(); ++t) size += (system.tree(t).*member).size();
  all->resize(size);
  Eigen::Index offset = 0;
  for (int t = 0; t < system.num_trees(); ++t) {
    const Eigen::VectorXd& part = system.tree(t).*member;
    all->segment(offset, part.size()) = part;
    offset += part.size();
  }
}

}  // namespace

void Simulation::StackState() const {
  Stack(scene_.system, &MultibodySystem::Tree::q, &stacked_q_);
  Stack(scene_.system, &MultibodySystem::Tree::v, &stacked_v_);
  stacked_state_current_ = true;
}

const Eigen::VectorXd& Simulation::q() const {
  if (!stacked_state_current_) StackState();
  return stacked_q_;
}

const Eigen::VectorXd& Simulation::v() const {
  if (!stacked_state_current_) StackState();
  return stacked_v_;
}

void Simulation::SetState(const Eigen::VectorXd& q, const Eigen::VectorXd& v) {
  const long num_q = this->q().size(), num_v = scene_.system.num_velocities();
  if (q.size() != num_q || v.size() != num_v) {
    throw std::invalid_argument("SetState: expected " + std::to_string(num_q) +
                                " positions and " + std::to_string(num_v) +
                                " velocities, got " + std::to_string(q.size()) + " and " +
                                std::to_string(v.size()));
  }
  if (!q.allFinite() || !v.allFinite()) {
    throw std::invalid_argument("SetState: the state must be finite");
  }
  // Every quaternion checked before any tree changes: a refused state
  // leaves the whole state as it was.
  for (int t = 0, q_offset = 0; t < num_trees(); ++t) {
    const MultibodySystem::Tree& tree = scene_.system.tree(t);
    if (tree.model.has_free_base() && !(q.segment<4>(q_offset + 3).norm() > 0.0))
      throw std::invalid_argument("SetState: " + tree.name + ": zero quaternion");
    q_offset += static_cast<int>(tree.q.size());
  }
  int q_offset = 0, v_offset = 0;
  for (int t = 0; t < num_trees(); ++t) {
    MultibodySystem::Tree& tree = scene_.system.tree(t);
    tree.q = q.segment(q_offset, tree.q.size());
    tree.v = v.segment(v_offset, tree.v.size());
    if (tree.model.has_free_base()) {
      // A unit quaternion (to round-off) is kept bit for bit: a state read
      // back from a recording continues exactly (coulomb run --resume).
      const double norm = tree.q.segment<4>(3).norm();
      if (std::abs(norm - 1.0) > 8 * std::numeric_limits<double>::epsilon())
        tree.q.segment<4>(3) /= norm;
    }
    q_offset += static_cast<int>(tree.q.size());
    v_offset += static_cast<int>(tree.v.size());
  }
  scene_.system.UpdateAllTrees();
  StackState();
  stepper_.SetImpulseWarmStart({}, {});
  state_recorded_ = false;
  step_start_v_.resize(0);  // no step leads to this state: no accelerations
}

SimulationSnapshot Simulation::Snapshot() const {
  SimulationSnapshot snapshot{
      time(), {}, stepper_.warm_start_contacts(), stepper_.warm_start_impulses(), {}};
  for (int t = 0; t < num_trees(); ++t) {
    const MultibodySystem::Tree& tree = scene_.system.tree(t);
    snapshot.trees.push_back({.name = tree.name,
                              .q = tree.q,
                              .v = tree.v,
                              .controllers = tree.controllers,
                              .applied_force = tree.applied_force,
                              .applied_force_W = tree.applied_force_W,
                              .applied_torque_W = tree.applied_torque_W,
                              .frictions = tree.frictions,
                              .connections = {}});
    for (const BodyConnection& connection : tree.connections)
      snapshot.trees.back().connections.push_back({connection.active, connection.X_WT});
  }
  for (const std::string& mocap : scene_.system.mocap_names())
    snapshot.mocap_poses.push_back(scene_.system.MocapPose(mocap));
  return snapshot;
}

namespace {

// Whether a snapshot's tree is this tree, with valid actuation: the same
// name and sizes, each controller on the joint (with its indices) or the
// tendon it names with valid gains, finite forces, each friction on its
// joint (with its index) or the tendon it names, finite and positive.
bool SnapshotTreeFits(const SimulationSnapshot::TreeState& saved,
                      const MultibodySystem::Tree& tree) {
  if (saved.name != tree.name || saved.q.size() != tree.q.size() ||
      saved.v.size() != tree.v.size() ||
      saved.applied_force.size() != tree.applied_force.size() ||
      !saved.applied_force.allFinite() || !saved.applied_force_W.allFinite() ||
      !saved.applied_torque_W.allFinite() ||
      saved.connections.size() != tree.connections.size())
    return false;
  for (const SimulationSnapshot::TreeState::Connection& connection : saved.connections)
    if (!IsConnectionFrame(connection.X_WT)) return false;
  for (const JointPdController& controller : saved.controllers) {
    try {
      ValidatePdControllerParameters(controller.gains);
      // A tendon's controller has no joint indices; its tendon is found by name.
      if (controller.position < 0 && controller.velocity < 0) {
        if (FindFixedTendon(tree.tendons, controller.joint) < 0) return false;
        continue;
      }
      const MultibodyTree::JointIndex joint =
          tree.model.FindOneDofJoint(controller.joint);
      if (joint.position != controller.position || joint.velocity != controller.velocity)
        return false;
    } catch (const std::invalid_argument&) {
      return false;
    }
  }
  for (const JointFriction& friction : saved.frictions) {
    try {
      if (!(friction.friction > 0.0) || !std::isfinite(friction.friction)) return false;
      if (friction.velocity < 0) {  // a tendon's, found by name
        if (FindFixedTendon(tree.tendons, friction.joint) < 0) return false;
        continue;
      }
      if (tree.model.FindOneDofJoint(friction.joint).velocity != friction.velocity)
        return false;
    } catch (const std::invalid_argument&) {
      return false;
    }
  }
  return true;
}

// Whether a warm start is one a step left: an impulse per contact, all
// finite, the contacts sorted by geometry pair.
bool WarmStartFits(const std::vector<ContactPoint>& contacts,
                   const std::vector<Eigen::Vector3d>& impulses_C) {
  if (contacts.size() != impulses_C.size()) return false;
  for (size_t i = 0; i < contacts.size(); ++i) {
    const ContactPoint& c = contacts[i];
    if (!c.p_W.allFinite() || !c.normal_W.allFinite() || !std::isfinite(c.phi) ||
        !std::isfinite(c.weight) || !impulses_C[i].allFinite())
      return false;
  }
  return std::is_sorted(contacts.begin(), contacts.end(),
                        [](const ContactPoint& a, const ContactPoint& b) {
                          return std::pair{a.geometry_a, a.geometry_b} <
                                 std::pair{b.geometry_a, b.geometry_b};
                        });
}

}  // namespace

void Simulation::Restore(const SimulationSnapshot& snapshot) {
  bool fits = static_cast<int>(snapshot.trees.size()) == num_trees();
  for (int t = 0; fits && t < num_trees(); ++t)
    fits = SnapshotTreeFits(snapshot.trees[t], scene_.system.tree(t));
  if (!fits) {
    throw std::invalid_argument(
        "Restore: the snapshot is of another scene (its trees, their sizes or their "
        "joints differ), or its actuation is not valid");
  }
  if (!WarmStartFits(snapshot.warm_start_contacts, snapshot.warm_start_impulses_C))
    throw std::invalid_argument("Restore: the snapshot's warm start is not valid");
  const std::vector<std::string> mocaps = scene_.system.mocap_names();
  if (snapshot.mocap_poses.size() != mocaps.size() ||
      !std::all_of(snapshot.mocap_poses.begin(), snapshot.mocap_poses.end(),
                   IsConnectionFrame)) {
    throw std::invalid_argument(
        "Restore: the snapshot's mocap bodies are not this scene's, or a pose of one is "
        "not a rigid motion");
  }
  CheckTime(snapshot.time);
  // Validates the state before anything changes.
  SetState(snapshot.StackedPositions(), snapshot.StackedVelocities());
  for (size_t m = 0; m < mocaps.size(); ++m)
    scene_.system.SetMocapPose(mocaps[m], snapshot.mocap_poses[m]);
  for (int t = 0; t < num_trees(); ++t) {
    const SimulationSnapshot::TreeState& saved = snapshot.trees[t];
    MultibodySystem::Tree& tree = scene_.system.tree(t);
    tree.controllers = saved.controllers;
    for (JointPdController& controller : tree.controllers)
      controller.tendon = FindFixedTendon(tree.tendons, controller.joint);
    tree.applied_force = saved.applied_force;
    tree.applied_force_W = saved.applied_force_W;
    tree.applied_torque_W = saved.applied_torque_W;
    tree.frictions = saved.frictions;
    for (JointFriction& friction : tree.frictions)
      friction.tendon = FindFixedTendon(tree.tendons, friction.joint);
    for (size_t c = 0; c < tree.connections.size(); ++c) {
      tree.connections[c].active = saved.connections[c].active;
      tree.connections[c].X_WT = saved.connections[c].X_WT;
    }
  }
  scene_.system.set_time(snapshot.time);
  stepper_.SetImpulseWarmStart(snapshot.warm_start_contacts,
                               snapshot.warm_start_impulses_C);
}

void Simulation::CheckTime(double time) {
  if (!(std::isfinite(time) && time >= 0.0)) {
    throw std::invalid_argument("time: must be finite and ≥ 0");
  }
}

void Simulation::set_time(double time) {
  CheckTime(time);
  scene_.system.set_time(time);
  state_recorded_ = false;
}

const std::string& Simulation::tree_name(int tree) const {
  if (tree < 0 || tree >= num_trees()) {
    throw std::invalid_argument("no tree " + std::to_string(tree) + " (the scene has " +
                                std::to_string(num_trees()) + ")");
  }
  return scene_.system.tree(tree).name;
}

int Simulation::FindTree(const std::string& name) const {
  for (int t = 0; t < num_trees(); ++t) {
    if (scene_.system.tree(t).name == name) return t;
  }
  // Not found: the names, for the message (built only now, so that a lookup
  // allocates nothing).
  std::string names;
  for (int t = 0; t < num_trees(); ++t)
    names += (t > 0 ? ", " : "") + scene_.system.tree(t).name;
  throw std::invalid_argument("no body or robot named '" + name + "' (the scene has " +
                              (names.empty() ? std::string("none") : names) + ")");
}

BodyIndex Simulation::FindBody(const std::string& name) const {
  for (int t = 0; t < num_trees(); ++t) {
    if (scene_.system.tree(t).name == name) return {t, 0};
  }
  for (int t = 0; t < num_trees(); ++t) {
    const int body = scene_.system.tree(t).model.FindBody(name);
    if (body >= 0) return {t, body};
  }
  return {FindTree(name), 0};  // throws, listing the trees
}

BodyState Simulation::body_state(const BodyIndex& index) const {
  tree_name(index.tree);  // validates
  const MultibodyTree& model = scene_.system.tree(index.tree).model;
  if (index.body < 0 || index.body >= model.num_bodies()) {
    throw std::invalid_argument(tree_name(index.tree) + ": no body " +
                                std::to_string(index.body));
  }
  return {model.body_pose(index.body), model.BodyLinearVelocity(index.body),
          model.BodyAngularVelocity(index.body)};
}

std::string Simulation::BodyName(int geometry) const {
  const CollisionWorld& world = scene_.system.collision_world();
  const int tree = world.tree(geometry);
  if (tree < 0) return "world";
  const MultibodySystem::Tree& owner = scene_.system.tree(tree);
  const int body = world.body(geometry);
  return body == 0 ? owner.name : owner.model.body_name(body);
}

Eigen::Vector3d Simulation::LastContactImpulse(size_t i) const {
  const Eigen::Vector3d gamma_C = stepper_.last_solution().impulses.segment<3>(
      stepper_.last_problem()->constraint_offset(static_cast<int>(i)));
  return ContactFrame(stepper_.last_contacts()[i].normal_W) * gamma_C;
}

std::vector<Contact> Simulation::Overlaps(double depth) {
  std::vector<ContactPoint> points;
  stepper_.QueryContacts(scene_.system, &points);
  std::vector<Contact> overlaps;
  for (const ContactPoint& point : points) {
    if (-point.phi > depth) {
      overlaps.push_back({BodyName(point.geometry_a), BodyName(point.geometry_b),
                          point.p_W, point.normal_W, -point.phi,
                          Eigen::Vector3d::Zero()});
    }
  }
  return overlaps;
}

std::vector<std::string> Simulation::StartWarnings() {
  std::vector<std::string> warnings = scene_.warnings;
  for (std::string& warning : TimeStepWarnings(scene_.system, time_step()))
    warnings.push_back(std::move(warning));
  const std::vector<Contact> overlaps = Overlaps(kWarnedOverlap);
  if (overlaps.empty()) return warnings;
  const Contact& deepest = *std::max_element(
      overlaps.begin(), overlaps.end(),
      [](const Contact& a, const Contact& b) { return a.depth < b.depth; });
  std::ostringstream text;
  text << overlaps.size() << " contact points overlap by more than "
       << 1e3 * kWarnedOverlap << " mm at the start (deepest: " << deepest.body_a
       << " and " << deepest.body_b << ", " << std::setprecision(3) << 1e3 * deepest.depth
       << " mm); allowed: contact pushes them apart";
  warnings.push_back(text.str());
  return warnings;
}

namespace {

// The steps an NCP solver accepted at its budget unsolved, in one sentence
// that says how to solve them (none when there are none).
std::vector<std::string> BudgetWarnings(const ContactSolverOptions& solver,
                                        const SimulationSummary& summary) {
  if (summary.budget_ended_steps == 0) return {};
  std::ostringstream text;
  text << std::setprecision(2) << summary.budget_ended_steps << " of " << summary.steps
       << " steps ended " << ToString(solver.kind) << "'s budget of "
       << NcpStepBudget(solver) << " iterations above its tolerance "
       << solver.ncp.tolerance << " (natural-map residual up to "
       << summary.ncp_residual_max
       << "): their impulses are not the rigid solution; raise the budget "
          "(coulomb run --max-iterations N, the scene's solver.max_iterations, "
          "Python's max_iterations=N) or use --solver sap";
  return {text.str()};
}

}  // namespace

std::vector<std::string> Simulation::RunWarnings(const SimulationSummary& summary) const {
  std::vector<std::string> warnings = PenetrationWarnings(
      scene_.system, scene_.parameters.contact.model, summary.penetration_max,
      stepper_.ContactLookahead(scene_.system),
      stepper_.DefaultContactLookahead(scene_.system));
  for (std::string& warning : BudgetWarnings(scene_.parameters.solver, summary))
    warnings.push_back(std::move(warning));
  return warnings;
}

std::vector<Contact> Simulation::contacts() const {
  std::vector<Contact> contacts;
  VisitLastContacts([&](const ContactPoint& point, const Eigen::Vector3d& gamma_W) {
    contacts.push_back({BodyName(point.geometry_a), BodyName(point.geometry_b), point.p_W,
                        point.normal_W, -point.phi, gamma_W});
  });
  return contacts;
}

JointPdController* Simulation::FindController(const std::string& tree_name,
                                              const std::string& joint, bool create) {
  const int tree = FindTree(tree_name);
  const MultibodySystem::Tree& owner = scene_.system.tree(tree);
  if (FindFixedTendon(owner.tendons, joint) < 0)
    owner.model.FindOneDofJoint(joint);  // throws for an unknown joint
  return ControllerOf(tree, joint, create);
}

JointPdController* Simulation::ControllerOf(int t, const std::string& joint,
                                            bool create) {
  MultibodySystem::Tree& owner = scene_.system.tree(t);
  for (JointPdController& controller : owner.controllers) {
    if (controller.joint == joint) return &controller;
  }
  if (!create) return nullptr;
  scene_.system.AddJointPdController(t, joint, {});
  return &owner.controllers.back();
}

void Simulation::SetJointEffort(const std::string& tree, const std::string& joint,
                                double effort) {
  if (!std::isfinite(effort))
    throw std::invalid_argument(joint + ": effort must be finite");
  FindController(tree, joint, /*create=*/true)->gains.feedforward = effort;
}

namespace {

// Where a joint's PD gains come from, for the errors of a target set without them.
constexpr const char* kPdGainsHint =
    "an MJCF actuator on it, the scene's controllers, or SetJointPdGains";

// Whether `controller` (null: none) has a PD law: a gain that is not zero.
bool HasPdGains(const JointPdController* controller) {
  return controller != nullptr && (controller->gains.proportional_gain != 0 ||
                                   controller->gains.derivative_gain != 0);
}

std::string JoinedNames(const std::vector<std::string>& names) {
  std::string joined;
  for (const std::string& name : names) joined += (joined.empty() ? "" : ", ") + name;
  return joined;
}

}  // namespace

void Simulation::CheckOnePerName(const std::string& tree, const char* what,
                                 const Eigen::VectorXd& values,
                                 const std::vector<std::string>& names,
                                 const char* kind) {
  if (values.size() != static_cast<Eigen::Index>(names.size())) {
    throw std::invalid_argument(tree + ": " + what + " has " +
                                std::to_string(values.size()) + " values, the robot " +
                                std::to_string(names.size()) + " " + kind + " (" +
                                JoinedNames(names) + ")");
  }
  for (Eigen::Index k = 0; k < values.size(); ++k) {
    if (!std::isfinite(values[k]))
      throw std::invalid_argument(tree + ": " + what + " for " + names[k] +
                                  " must be finite");
  }
}

void Simulation::SetJointEfforts(const std::string& tree,
                                 const Eigen::VectorXd& efforts) {
  const int t = FindTree(tree);
  const std::vector<std::string>& joints = joint_names_[static_cast<size_t>(t)];
  CheckOnePerName(tree, "efforts", efforts, joints, "joints");
  for (size_t k = 0; k < joints.size(); ++k) {
    ControllerOf(t, joints[k], /*create=*/true)->gains.feedforward =
        efforts[static_cast<Eigen::Index>(k)];
  }
}

void Simulation::SetJointPdTargets(const std::string& tree,
                                   const Eigen::VectorXd& positions,
                                   const Eigen::VectorXd& velocities) {
  const int t = FindTree(tree);
  const std::vector<std::string>& joints = joint_names_[static_cast<size_t>(t)];
  CheckOnePerName(tree, "positions", positions, joints, "joints");
  CheckOnePerName(tree, "velocities", velocities, joints, "joints");
  std::vector<std::string> without_gains;
  for (const std::string& joint : joints) {
    if (!HasPdGains(ControllerOf(t, joint, /*create=*/false)))
      without_gains.push_back(joint);
  }
  if (!without_gains.empty()) {
    throw std::invalid_argument(tree + ": joints without PD gains: " +
                                JoinedNames(without_gains) + " (" + kPdGainsHint + ")");
  }
  for (size_t k = 0; k < joints.size(); ++k) {
    const auto index = static_cast<Eigen::Index>(k);
    ApplyPdTarget(t, joints[k], positions[index], velocities[index],
                  ControllerOf(t, joints[k], /*create=*/false));
  }
}

void Simulation::SetBodyWrench(const std::string& body, const Eigen::Vector3d& force_W,
                               const Eigen::Vector3d& torque_W) {
  const BodyIndex index = FindBody(body);
  MultibodySystem::Tree& tree = scene_.system.tree(index.tree);
  if (index.body != 0 || !tree.model.has_free_base()) {
    throw std::invalid_argument(
        body + ": a wrench needs a free body or a robot's floating base");
  }
  if (!force_W.allFinite() || !torque_W.allFinite())
    throw std::invalid_argument(body + ": the wrench must be finite");
  tree.applied_force_W = force_W;
  tree.applied_torque_W = torque_W;
}

void Simulation::SetJointPdTarget(const std::string& tree, const std::string& joint,
                                  double position, double velocity) {
  if (!std::isfinite(position) || !std::isfinite(velocity)) {
    throw std::invalid_argument(joint + ": PD target must be finite");
  }
  JointPdController* controller = FindController(tree, joint, /*create=*/false);
  if (!HasPdGains(controller)) {
    throw std::invalid_argument(tree + ": '" + joint + "' has no PD gains (" +
                                kPdGainsHint + ")");
  }
  ApplyPdTarget(FindTree(tree), joint, position, velocity, controller);
}

void Simulation::ApplyPdTarget(int t, const std::string& joint, double position,
                               double velocity, JointPdController* controller) {
  for (const JointTargetRange& range : scene_.system.tree(t).target_ranges) {
    if (range.joint != joint) continue;
    double& bounded = range.bounds_velocity ? velocity : position;
    bounded = std::clamp(bounded, range.lower, range.upper);
  }
  controller->gains.target_position = position;
  controller->gains.target_velocity = velocity;
}

void Simulation::SetJointFriction(const std::string& tree, const std::string& joint,
                                  double friction) {
  scene_.system.SetJointFriction(FindTree(tree), joint, friction);
}

Eigen::VectorXd Simulation::JointFrictions(const std::string& tree) const {
  const MultibodySystem::Tree& owner = scene_.system.tree(FindTree(tree));
  const std::vector<std::string> joints = owner.model.OneDofJointNames();
  Eigen::VectorXd frictions =
      Eigen::VectorXd::Zero(static_cast<Eigen::Index>(joints.size()));
  for (const JointFriction& friction : owner.frictions) {
    if (friction.tendon >= 0) continue;  // a tendon's: no joint's own
    const auto at = std::find(joints.begin(), joints.end(), friction.joint);
    frictions[at - joints.begin()] = friction.friction;
  }
  return frictions;
}

void Simulation::SetJointPdGains(const std::string& tree, const std::string& joint,
                                 double proportional, double derivative,
                                 double effort_limit) {
  JointPdController* controller = FindController(tree, joint, /*create=*/true);
  PdControllerConstraint::Parameters gains = controller->gains;
  gains.proportional_gain = proportional;
  gains.derivative_gain = derivative;
  gains.effort_limit = effort_limit;
  try {
    ValidatePdControllerParameters(gains);
  } catch (const std::invalid_argument& error) {
    throw std::invalid_argument(tree + ": joint '" + joint + "': " + error.what());
  }
  controller->gains = gains;
}

std::vector<std::string> Simulation::joint_names(const std::string& tree) const {
  return joint_names_[static_cast<size_t>(FindTree(tree))];
}

Eigen::VectorXd Simulation::JointPositions(const std::string& tree) const {
  const MultibodySystem::Tree& owner = scene_.system.tree(FindTree(tree));
  return owner.model.OneDofJointEntries(owner.q, /*velocities=*/false);
}

Eigen::VectorXd Simulation::JointVelocities(const std::string& tree) const {
  const MultibodySystem::Tree& owner = scene_.system.tree(FindTree(tree));
  return owner.model.OneDofJointEntries(owner.v, /*velocities=*/true);
}

std::vector<std::string> Simulation::tendon_names(const std::string& tree) const {
  std::vector<std::string> names;
  for (const FixedTendon& tendon : scene_.system.tree(FindTree(tree)).tendons)
    names.push_back(tendon.name);
  return names;
}

Eigen::VectorXd Simulation::TendonLengths(const std::string& tree) const {
  const MultibodySystem::Tree& owner = scene_.system.tree(FindTree(tree));
  Eigen::VectorXd lengths(static_cast<Eigen::Index>(owner.tendons.size()));
  for (size_t k = 0; k < owner.tendons.size(); ++k)
    lengths[static_cast<Eigen::Index>(k)] = owner.tendons[k].Length(owner.q);
  return lengths;
}

Simulation::Wrench Simulation::ContactWrench(const std::string& body) const {
  const BodyIndex index = FindBody(body);
  Wrench wrench;
  if (step_start_q_.size() != q().size()) return wrench;  // no step yet
  int first = 0;                                          // the tree's entries of q
  for (int t = 0; t < index.tree; ++t)
    first += scene_.system.tree(t).model.num_positions();
  const MultibodyTree& model = scene_.system.tree(index.tree).model;
  const Eigen::Vector3d origin =
      model.BodyPoseAt(step_start_q_.segment(first, model.num_positions()), index.body)
          .translation();
  const CollisionWorld& world = scene_.system.collision_world();
  VisitLastContacts([&](const ContactPoint& point, const Eigen::Vector3d& gamma_W) {
    // γ acts on B, −γ on A (a body's own geometries never touch).
    const double sign = world.OnBody(point.geometry_b, index.tree, index.body)   ? 1.0
                        : world.OnBody(point.geometry_a, index.tree, index.body) ? -1.0
                                                                                 : 0.0;
    const Eigen::Vector3d force = sign * gamma_W / time_step();
    wrench.force += force;
    wrench.torque += (point.p_W - origin).cross(force);
  });
  return wrench;
}

std::pair<int, int> Simulation::VelocityRange(const std::string& tree) const {
  return VelocityRangeOfTree(FindTree(tree));
}

std::pair<int, int> Simulation::VelocityRangeOfTree(int t) const {
  return RangeOfTree(t, &MultibodyTree::num_velocities);
}

std::pair<int, int> Simulation::PositionRange(const std::string& tree) const {
  return RangeOfTree(FindTree(tree), &MultibodyTree::num_positions);
}

std::pair<int, int> Simulation::RangeOfTree(int t,
                                            int (MultibodyTree::*size)() const) const {
  int first = 0;
  for (int k = 0; k < t; ++k) first += (scene_.system.tree(k).model.*size)();
  return {first, (scene_.system.tree(t).model.*size)()};
}

namespace {

// The indices of `model`'s one-dof joints' entries in its q (or v), in
// joint_names' order: the entries of 0, 1, 2, … read as a state.
Eigen::VectorXd OneDofJointIndices(const MultibodyTree& model, bool velocities) {
  const int size = velocities ? model.num_velocities() : model.num_positions();
  return model.OneDofJointEntries(Eigen::VectorXd::LinSpaced(size, 0, size - 1),
                                  velocities);
}

bool AreConsecutive(const Eigen::VectorXd& indices) {
  for (Eigen::Index k = 1; k < indices.size(); ++k)
    if (indices[k] != indices[0] + static_cast<double>(k)) return false;
  return true;
}

}  // namespace

Simulation::JointEntries Simulation::ConsecutiveJointEntries(
    const std::string& tree) const {
  const MultibodyTree& model = scene_.system.tree(FindTree(tree)).model;
  const Eigen::VectorXd positions = OneDofJointIndices(model, false);
  const Eigen::VectorXd velocities = OneDofJointIndices(model, true);
  if (positions.size() == 0)
    throw std::invalid_argument(tree +
                                ": has no one-dof joints (a free body, or a ball)");
  if (!AreConsecutive(positions) || !AreConsecutive(velocities)) {
    throw std::invalid_argument(
        tree +
        ": its one-dof joints are not consecutive in q and v (a joint "
        "of more dofs sits between them): read joint_positions");
  }
  return {PositionRange(tree).first + static_cast<int>(positions[0]),
          VelocityRange(tree).first + static_cast<int>(velocities[0]),
          static_cast<int>(positions.size())};
}

Eigen::MatrixXd Simulation::MassMatrix(const std::string& tree) const {
  return scene_.system.tree(FindTree(tree))
      .model.mass_matrix();  // a free body's: constant
}

Eigen::VectorXd Simulation::BiasForces(const std::string& tree) const {
  return scene_.system.tree(FindTree(tree)).model.nonlinear_effects();
}

Eigen::Matrix<double, 3, Eigen::Dynamic> Simulation::PointJacobian(
    const std::string& body, const Eigen::Vector3d& p_W) const {
  if (!p_W.allFinite()) throw std::invalid_argument("point: must be finite");
  const BodyIndex index = FindBody(body);
  return scene_.system.tree(index.tree).model.PointJacobian(index.body, p_W);
}

double Simulation::LastControllerEffort(
    const TimeStepper::ControllerConstraint& c) const {
  if (c.constraint < 0) {  // folded into the free motion: u at the step's end velocity
    if (c.tendon >= 0) return c.law->Actuation(0.0);  // (a constant effort alone)
    return c.law->Actuation(
        stepper_.last_solution()
            .v[stepper_.last_problem()->clique_offset(c.tree) + c.velocity]);
  }
  return stepper_.last_solution()
             .impulses[stepper_.last_problem()->constraint_offset(c.constraint)] /
         time_step();
}

void Simulation::CalcJointEffortsByVelocity(int t, Eigen::VectorXd* efforts) const {
  efforts->setZero(scene_.system.tree(t).v.size());
  VisitControllerEfforts(
      t, [&](const TimeStepper::ControllerConstraint& c, double effort) {
        if (c.tendon < 0) {
          (*efforts)[c.velocity] += effort;
          return;
        }
        for (const JointTerm& term : scene_.system.tree(t).tendons[c.tendon].terms)
          (*efforts)[term.velocity] += term.coefficient * effort;
      });
}

Eigen::VectorXd Simulation::JointEfforts(const std::string& tree) const {
  const int t = FindTree(tree);
  const MultibodyTree& model = scene_.system.tree(t).model;
  Eigen::VectorXd by_velocity;
  CalcJointEffortsByVelocity(t, &by_velocity);
  const std::vector<std::string> names = model.OneDofJointNames();
  Eigen::VectorXd efforts(static_cast<Eigen::Index>(names.size()));
  for (size_t k = 0; k < names.size(); ++k)
    efforts[static_cast<Eigen::Index>(k)] =
        by_velocity[model.FindOneDofJoint(names[k]).velocity];
  return efforts;
}

}  // namespace coulomb
