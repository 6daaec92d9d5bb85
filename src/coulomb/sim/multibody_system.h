#pragma once

#include <optional>
#include <string>
#include <vector>

#include <Eigen/Dense>
#include <Eigen/Geometry>

#include "coulomb/geometry/collision_world.h"
#include "coulomb/multibody/multibody_tree.h"
#include "coulomb/sim/contact_material.h"
#include "coulomb/sim/joint_actuation.h"
#include "coulomb/sim/joint_spring_damper.h"
#include "coulomb/sim/prescribed_motion.h"
#include "coulomb/sim/sensors.h"

namespace coulomb {

// Everything that is simulated: trees of rigid bodies with their state
// (q, v), collision geometries with contact materials, gravity and the time.
// Geometry on tree −1 belongs to the world: body 0 is static, bodies 1, 2, …
// are kinematic (prescribed motion). Trees are the cliques of the contact
// problem, in the order they were added.
class MultibodySystem {
 public:
  struct Tree {
    std::string name;
    MultibodyTree model;
    Eigen::VectorXd q;
    Eigen::VectorXd v;
    std::vector<JointSpringDamper> springs;
    std::vector<JointLimit> limits;
    std::vector<JointPdController> controllers;
    std::vector<FixedTendon> tendons;
    std::vector<JointFriction> frictions;
    std::vector<JointTargetRange> target_ranges;
    std::vector<JointCoupler> couplers;
    std::vector<BodyConnection> connections;
    std::vector<GravityCompensation> gravity_compensations;
    std::vector<Sensor> sensors;
    std::vector<ActuatorControl> actuators;
    // A constant generalized force on v [N, N·m] (empty: none). For a free
    // body or floating base (v = [ṗ_WB in world, ω_B in body]) its first six
    // entries are a force in world and a torque in the body frame, which
    // turns with the body (a wrench on a nut about its own axis).
    Eigen::VectorXd applied_force;
    // A wrench on the free body or floating base at its frame's origin (the
    // centroid of a free body), both in world [N, N·m], held fixed in world
    // (the torque is turned into the body frame at each step's start).
    Eigen::Vector3d applied_force_W = Eigen::Vector3d::Zero();
    Eigen::Vector3d applied_torque_W = Eigen::Vector3d::Zero();
  };

  explicit MultibodySystem(const Eigen::Vector3d& gravity = Eigen::Vector3d(0, 0, -9.81));

  // Adds a tree with its initial state; throws if sizes mismatch or values
  // are not finite. Returns the tree index.
  int AddTree(const std::string& name, MultibodyTree model, const Eigen::VectorXd& q,
              const Eigen::VectorXd& v);
  // A free rigid body of the given mass (inertia of a uniform solid of its
  // shape) whose shape frame G is at X_WG, with world-frame linear velocity
  // v_W of its centre of mass and angular velocity ω_W. The body frame B is
  // at the centroid with G's orientation: B = G for all shapes but convex
  // meshes, whose files need not be centred. `inertia_about_com` [kg·m²]
  // (body axes) replaces the uniform solid's when given.
  int AddFreeBody(const std::string& name, const Shape& shape, double mass,
                  const Eigen::Isometry3d& X_WG, const Eigen::Vector3d& v_W,
                  const Eigen::Vector3d& omega_W, const ContactMaterial& material,
                  const std::optional<Eigen::Matrix3d>& inertia_about_com = std::nullopt);
  // A robot (tree) with its URDF collision geometry and the URDF's joint
  // position limits. Its links collide with each other except adjacent links
  // (same joint or parent–child) and pairs that already overlap in the
  // initial configuration (URDF collision shapes often do; filtering them is
  // what an SRDF would do). The model's world geometries (an MJCF floor)
  // become static geometry after the links', and collide with every link.
  // Every geometry takes `material`, with the friction its file gives it, if
  // any (BodyGeometry::friction; MultibodyTree::DropGeometryFrictions), and
  // its collision filter (MJCF contype and conaffinity).
  int AddRobot(const std::string& name, MultibodyTree model, const Eigen::VectorXd& q,
               const Eigen::VectorXd& v, const ContactMaterial& material);
  // A model that cannot move (a fixed base and no moving joint: a table or a
  // shelf from a URDF) as static geometry: each of its collision geometries
  // welded to the world where the model places it, then its world
  // geometries. Returns their geometry ids. Throws std::invalid_argument if
  // the model has velocities.
  // With `world_body` ≥ 1 (a kinematic or mocap body), the model's bodies'
  // geometries ride on that body from where they are now; its world
  // geometries stay static.
  std::vector<int> AddFixedModel(MultibodyTree model, const ContactMaterial& material,
                                 int world_body = 0);
  // Dry friction F [N·m or N] on a one-dof joint or a fixed tendon of a tree
  // (JointFriction), replacing any it had; F = 0 removes it. Throws
  // std::invalid_argument on a bad name, a negative or non-finite F.
  void SetJointFriction(int tree, const std::string& joint, double friction);
  // Holds a point of a tree's body at a point of another of its bodies, of
  // another tree's body, or of the world (BodyConnection). Throws
  // std::invalid_argument on a bad tree or body, the same body twice or a
  // non-finite point.
  void AddBodyConnection(int tree, const BodyConnection& connection);
  // Gravity compensation of a body of a tree (GravityCompensation). Throws
  // std::invalid_argument for a bad body, or a centre or mass not finite.
  void AddGravityCompensation(int tree, const GravityCompensation& compensation);
  // Drives a one-dof joint or fixed tendon of the tree by another, or holds
  // it, through the coupler's polynomial (JointCoupler; its terms are set
  // here). Throws std::invalid_argument on a bad name, one coupled to itself
  // or twice, or a coefficient or origin not finite.
  void AddJointCoupler(int tree, JointCoupler coupler);
  // An actuator of a tree (ActuatorControl), its joint or tendon already
  // under a PD controller: the last one added on it is the actuator's. Throws
  // std::invalid_argument on a name used twice, a joint or tendon without a
  // controller, a per_control not finite or a gear not finite or 0.
  void AddActuatorControl(int tree, const ActuatorControl& actuator);
  // A sensor of a tree (Sensor) on `object`: the joint or tendon of a joint
  // or tendon sensor, the actuator of an actuator sensor (added before it),
  // else the body its frame is on ("" for the world); a
  // frame sensor's reference frame on body `reference` ("": the world).
  // Throws std::invalid_argument on a bad name, a sensor name used twice, a
  // frame, size or cutoff not finite (a cutoff < 0), a reference for another
  // kind, or a subtree, force or torque sensor on a body no joint carries.
  void AddSensor(int tree, Sensor sensor, const std::string& object,
                 const std::string& reference = "");
  // The range a one-dof joint's (or a fixed tendon's) PD targets are clamped
  // into (JointTargetRange), replacing any it had. Throws
  // std::invalid_argument on a bad name, or unless lower < upper.
  void SetJointTargetRange(int tree, const JointTargetRange& range);
  // A spring and damper on a one-dof joint or a fixed tendon of a tree (k,
  // d ≥ 0, finite; the rest position a joint's q or the tendon's L).
  void AddJointSpringDamper(int tree, const std::string& joint, double stiffness,
                            double rest_position, double damping);
  // A kinematic body of the world; returns its body index (≥ 1) for
  // AddGeometry(shape, −1, body, X_BG, material).
  int AddKinematicBody(const PrescribedMotion& motion);
  // A mocap body (an MJCF <body mocap="true">): a kinematic body of the
  // world at X_WB that stays where SetMocapPose puts it, its velocity zero
  // (MuJoCo's mocap body: its pose jumps, it is not swept). The connections
  // whose `mocap` names it hold to its frame from now on. Returns its body
  // index for AddGeometry. Throws std::invalid_argument on a name used
  // twice or X_WB not a rigid motion (IsConnectionFrame).
  int AddMocapBody(const std::string& name, const Eigen::Isometry3d& X_WB);
  // The mocap bodies' names, in the order they were added.
  std::vector<std::string> mocap_names() const;
  // A mocap body's pose, and its pose set: its geometries and the frames T
  // of the connections that name it move there. Throw std::invalid_argument
  // for an unknown name (listing the known ones) or, setting, a pose that is
  // not a rigid motion.
  Eigen::Isometry3d MocapPose(const std::string& name) const;
  void SetMocapPose(const std::string& name, const Eigen::Isometry3d& X_WB);
  // Position limits of a one-dof joint, or length limits of a fixed tendon
  // (lower < upper, ±∞ allowed), replacing any it had. Throws
  // std::invalid_argument on a bad name or range.
  void SetJointLimits(int tree, const std::string& joint, double lower, double upper);
  // A PD controller (or constant effort) on a one-dof joint or a fixed
  // tendon of the tree (by name); throws on bad gains or an unknown name.
  void AddJointPdController(int tree, const std::string& joint,
                            const PdControllerConstraint::Parameters& gains);
  // A fixed tendon L = Σ c_k q_k over one-dof joints of the tree (by name,
  // with their coefficients c_k, finite). Throws std::invalid_argument on an
  // unknown joint, a name that a joint or another tendon of the tree has, or
  // no joints. Returns its index in the tree's tendons.
  int AddFixedTendon(int tree, const std::string& name,
                     const std::vector<std::pair<std::string, double>>& joints);
  // The index of tree's fixed tendon `name` in its tendons, or −1.
  int FindTendon(int tree, const std::string& name) const;
  // Static geometry at X_WG.
  int AddStaticGeometry(const Shape& shape, const Eigen::Isometry3d& X_WG,
                        const ContactMaterial& material);
  int AddGeometry(const Shape& shape, int tree, int body, const Eigen::Isometry3d& X_BG,
                  const ContactMaterial& material);

  // Contacts kept per pair with an SDF shape after clustering (≥ 1;
  // CollisionWorld::kDefaultMaxSdfContacts).
  void SetMaxSdfContacts(int max_contacts) {
    collision_world_.set_max_sdf_contacts(max_contacts);
  }

  // No contact is ever computed between these two geometries.
  void ExcludeCollisionPair(int geometry_a, int geometry_b) {
    collision_world_.ExcludePair(geometry_a, geometry_b);
  }
  // No contact is ever computed between the geometries of two bodies of a
  // tree (an MJCF file's <contact><exclude>); body −1 stands for the tree's
  // world geometries (MuJoCo's body "world").
  void ExcludeBodyPair(int tree, int body_a, int body_b);
  // The same for bodies of two trees (an MJCF file's exclude of two of its
  // top-level bodies).
  void ExcludeBodyPair(int tree_a, int body_a, int tree_b, int body_b);
  // The same for a tree's body and the given geometries (a fixed model's
  // body: AddFixedModel's ids). Throws std::invalid_argument for an id that
  // is no geometry.
  void ExcludeBodyAndGeometries(int tree, int body, const std::vector<int>& geometries);
  // Whether `geometry` is on body `body` of tree `tree` (a link welded to
  // the world included), or, for body −1, on the world itself: the world's
  // geometries, of every file, but not the links welded to it nor the
  // fixed models' bodies (in MuJoCo those are bodies of their own).
  bool GeometryOnBody(int geometry, int tree, int body) const;

  int num_trees() const { return static_cast<int>(trees_.size()); }
  int num_velocities() const;  // Σ over the trees
  Tree& tree(int index) { return trees_[index]; }
  // Steps every tree through Pinocchio's CRBA and RNEA, free bodies too
  // (MultibodyTree::UseGeneralForm): the same physics, more slowly.
  void UseGeneralForm() {
    for (Tree& t : trees_) t.model.UseGeneralForm();
  }
  const Tree& tree(int index) const { return trees_[index]; }
  const CollisionWorld& collision_world() const { return collision_world_; }
  const ContactMaterial& material(int geometry) const { return materials_[geometry]; }
  const Eigen::Vector3d& gravity() const { return gravity_; }
  double time() const { return time_; }  // [s]
  void set_time(double time) { time_ = time; }
  // Pose of a world body (0: identity; ≥ 1: kinematic) at time().
  Eigen::Isometry3d WorldBodyPose(int body) const;
  // Velocity of a world body over the step [time(), time() + δt] (zero for 0).
  Eigen::Vector3d WorldBodyVelocity(int body, double time_step) const;

  // Sets every tree's kinematics and dynamics to its current (q, v).
  void UpdateAllTrees();
  // Allocates every tree's q and v anew, tree by tree, once the trees are
  // added: each was allocated with its tree, between that tree's model and
  // shapes, thousands of bytes from the next tree's; allocated in one run,
  // the small blocks come one after another in memory, and the step's loops
  // over the trees (state update, Jacobians, integration) walk them in
  // order instead of missing the cache on each (at 1 000 free bodies,
  // 0.2–0.3 ms of a step of about 8 ms). Values are unchanged; references
  // to a tree's q or v data taken before are invalidated.
  void GatherTreeStates();
  // World poses of all geometries (after UpdateAllTrees).
  void CalcGeometryPoses(std::vector<Eigen::Isometry3d>* X_WG) const;
  // The same into a vector this system's CalcGeometryPoses or
  // UpdateGeometryPoses filled before, rewriting only the poses of the
  // geometries that may move (moving_geometries()): the world's own ones
  // stay where they are, which a terrain of thousands of prisms spares at
  // every step. A vector of another size is filled whole.
  void UpdateGeometryPoses(std::vector<Eigen::Isometry3d>* X_WG) const;
  // The geometries not on the world's own body (on a tree or a kinematic
  // body), by increasing index.
  const std::vector<int>& moving_geometries() const { return moving_geometries_; }
  // The geometries' distinct dissipation time scales τ_d
  // (ContactMaterial::dissipation_time_scale, −1 where unset).
  const std::vector<double>& dissipation_time_scales() const {
    return dissipation_time_scales_;
  }
  // The trees' energies (after UpdateAllTrees) [J]: kinetic ½ vᵀ M v,
  // gravity's −Σ m g·c, the springs' (joints' and tendons'), and gravity
  // compensation's Σ c_b m_b g·c_b (its force −c m g is conservative).
  struct Energies {
    double kinetic = 0.0;
    double gravity = 0.0;
    double springs = 0.0;
    double gravity_compensation = 0.0;
  };
  Energies CalcEnergies() const;
  // Their sum, conserved without dissipation [J].
  double MechanicalEnergy() const;
  // Every tree's bodies together (after UpdateAllTrees; MultibodyTree::
  // Subtree of each whole tree): their mass, centre of mass c, its velocity
  // and their angular momentum about c, Σ_t (L_t + (c_t − c) × m_t ċ_t).
  MultibodyTree::SubtreeMomentum CalcMomentum() const;

 private:
  // Pairs of the robot's geometries (on `tree`, or its welded geometries of
  // the world) that overlap in its initial configuration.
  void ExcludeInitiallyOverlappingPairs(int tree);
  // A BodyGeometry or WorldGeometry of a model's file at X_BG on `body` of
  // `tree` (−1: the world), with `material` but the friction and the
  // collision filter its file gives it.
  template <typename FileGeometry>
  int AddFileGeometry(const FileGeometry& geometry, int tree, int body,
                      const Eigen::Isometry3d& X_BG, const ContactMaterial& material);
  void CheckTreeIndex(int tree) const;  // throws if out of range
  // The geometries of a tree's body, its links welded to the world's
  // included; for body −1 the geometries of the tree's file's <worldbody>
  // (what an MJCF exclude of body "world" names), not the world at large.
  std::vector<int> BodyGeometries(int tree, int body) const;
  // Which body a geometry of the world (the collision world's tree −1, body
  // 0) stands for: the world itself (its role's default), a link of `tree`
  // welded to the world (`body`: the link), a geometry of `tree`'s file's
  // <worldbody> (AddRobot), or a fixed model's body (AddFixedModel: a
  // table), a body of its own in MuJoCo. One entry per geometry id, so that
  // GeometryOnBody, asked per contact by touch sensors, looks it up in O(1).
  struct StaticRole {
    enum Kind { kWorld, kWeldedLink, kFileWorld, kFixedModel } kind = kWorld;
    int tree = -1;
    int body = -1;
  };
  StaticRole static_role(int geometry) const {
    return geometry < static_cast<int>(static_roles_.size()) ? static_roles_[geometry]
                                                             : StaticRole{};
  }
  void SetStaticRole(int geometry, const StaticRole& role);
  // The terms of a tendon named `name`, or of that one-dof joint's q alone;
  // throws std::invalid_argument for neither.
  std::vector<JointTerm> TermsOf(int tree, const std::string& name) const;
  // The index of tree `tree`'s body `name`; throws std::invalid_argument
  // after `at` (the sensor) for none.
  int FindSensorBody(int tree, const std::string& name, const std::string& at) const;
  // World pose of geometry g (after UpdateAllTrees).
  Eigen::Isometry3d GeometryPose(int g) const;

  Eigen::Vector3d gravity_;
  std::vector<Tree> trees_;
  CollisionWorld collision_world_;
  std::vector<ContactMaterial> materials_;
  std::vector<int> moving_geometries_;
  std::vector<double> dissipation_time_scales_;
  std::vector<PrescribedMotion> kinematic_bodies_;  // world body b ≥ 1 is [b − 1]
  std::vector<StaticRole> static_roles_;            // by geometry id; absent: kWorld
  // The mocap bodies: {name, world body}; a mocap body's pose is its
  // motion's X_WB0 (no drift, no oscillation).
  std::vector<std::pair<std::string, int>> mocap_bodies_;
  // The index in mocap_bodies_ of `name`, or −1 for none.
  int MocapIndex(const std::string& name) const;
  // The index in mocap_bodies_ of `name`, or throws as MocapPose says.
  int FindMocap(const std::string& name) const;
  double time_ = 0.0;
};

}  // namespace coulomb
