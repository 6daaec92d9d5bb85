#pragma once

#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <Eigen/Dense>
#include <Eigen/Geometry>

#include "coulomb/geometry/collision_filter.h"
#include "coulomb/geometry/shape.h"

namespace coulomb {

// A collision shape attached to a body of a tree, at X_BG in the body frame,
// with the friction coefficient μ its file gives it (an MJCF geom's
// `friction`; absent: the scene's contact material decides) and its
// collision filter (an MJCF geom's contype and conaffinity).
struct BodyGeometry {
  std::string name;
  int body = -1;
  Eigen::Isometry3d X_BG = Eigen::Isometry3d::Identity();
  Shape shape;
  std::optional<double> friction;
  CollisionFilter filter;
};

// A collision shape of an MJCF file's <worldbody> itself (a floor, a wall, a
// table top), at X_WG in the scene's world: the file's world frame is the
// scene's for a floating robot, and the robot's pose for one hung from the
// world. A plane is a HalfSpace (MuJoCo's planes collide as infinite).
struct WorldGeometry {
  std::string name;
  Eigen::Isometry3d X_WG = Eigen::Isometry3d::Identity();
  Shape shape;
  std::optional<double> friction;  // as BodyGeometry's
  CollisionFilter filter;
};

// The point Jacobian of a free body (a tree stepped in closed form) whose
// frame, at o, has the orientation R_WB: the velocity of the body's point at
// p_W is J v for v = [ṗ_W; ω_B] (ṗ_W the velocity of o, ω in the body frame), with
// J = [I, −[p − o]× R_WB] in fixed size; column j of −[r]× R_WB is
// −r × (R_WB)_j.
inline Eigen::Matrix<double, 3, 6> FreeBodyPointJacobian(const Eigen::Vector3d& origin,
                                                         const Eigen::Matrix3d& R_WB,
                                                         const Eigen::Vector3d& p_W) {
  const Eigen::Vector3d r = p_W - origin;
  Eigen::Matrix<double, 3, 6> jacobian;
  jacobian.leftCols<3>().setIdentity();
  for (int j = 0; j < 3; ++j) jacobian.col(3 + j) = R_WB.col(j).cross(r);
  return jacobian;
}

// One kinematic tree of rigid bodies (a free body or a robot): the clique of
// the contact problem. Backed by one Pinocchio model; Pinocchio's headers stay
// in multibody_tree.cc (they cost a minute and gigabytes per translation unit).
//
// Conventions: a free joint (free body, floating base) has q = [p_WB (3),
// quaternion x, y, z, w] and v = [ṗ_WB in world (3), ω_B in the body frame
// (3)] (a translation joint then a spherical joint); revolute/prismatic
// joints have one q and one v each. Bodies are the model's link frames, numbered in
// model order. Units SI; gravity g [m/s²] in world.
//
// Equations of motion: M(q) v̇ = −h(q, v) + τ with h = C(q,v) v − g(q) the
// nonlinear effects (Coriolis, gyroscopic, gravity), both computed by
// SetState. Point Jacobians give world-frame linear velocities.
class MultibodyTree {
 public:
  ~MultibodyTree();
  MultibodyTree(MultibodyTree&&) noexcept;
  MultibodyTree& operator=(MultibodyTree&&) noexcept;

  // A single rigid body on a free joint. inertia_about_com: 3×3 SPD rotational
  // inertia [kg·m²] about the center of mass, in the body frame (the body
  // frame origin is the center of mass). Throws on mass ≤ 0 or a non-SPD
  // inertia.
  static MultibodyTree FreeBody(const std::string& name, double mass,
                                const Eigen::Matrix3d& inertia_about_com);
  // A rigid body moving in the x–z plane of the world: prismatic joints "x"
  // and "z" and a revolute joint "theta" about y (q = v-integrable, 3 dofs),
  // body frame at the center of mass.
  static MultibodyTree PlanarBody(const std::string& name, double mass,
                                  const Eigen::Matrix3d& inertia_about_com);
  // A robot from a URDF file, with a fixed or free base, and the collision
  // geometry of its links: primitives (box, sphere, cylinder, capsule) and
  // meshes, which become their convex hulls (package://… paths resolve
  // against the folders above the URDF). Throws std::runtime_error naming
  // the file if it is missing, does not parse, or a mesh cannot be read.
  // A fixed base is welded to the world at X_WB (ignored for a floating base,
  // whose pose is its configuration).
  static MultibodyTree FromUrdf(
      const std::string& path, bool floating_base,
      const Eigen::Isometry3d& X_WB = Eigen::Isometry3d::Identity());

  // A robot from a MuJoCo MJCF file (Pinocchio's parser): its bodies, their
  // inertias (given, or from their geoms) and joints (hinge and slide are
  // one-dof joints, a ball a spherical joint), and the geoms MuJoCo collides
  // as collision geometry (primitives; meshes become their convex hulls).
  // A <freejoint/> of the root body is dropped, and that body placed at the
  // origin: floating_base and X_WB say where the robot is, as for a URDF
  // (mjcf_root_pose: where the file puts it).
  // The geoms of <worldbody> itself (a floor; a height field as its
  // triangular prisms, HeightFieldPrisms) are world_geometries(), unless
  // `with_world_geometries` is false (a second robot of the same file).
  // Other free joints, and planes on links, are refused with std::runtime_error
  // naming the file. Joint armature is kept (Pinocchio's
  // CRBA adds it to M) and damping readable (joint_damping); actuators are
  // read by ReadMjcfActuators (mjcf_actuators.h), springs by
  // ReadMjcfJoints (mjcf_joints.h), friction loss as the
  // joint's dry friction (joint_friction), each geom's sliding friction,
  // contype and conaffinity as its geometry's `friction` and `filter`
  // (ReadMjcfGeomContacts); equality constraints
  // are not. A class that is not defined in <default> is refused. The file is
  // read through a copy (MjcfBodyFile: its includes expanded, its bodies
  // and geoms without a name given one).
  static MultibodyTree FromMjcf(
      const std::string& path, bool floating_base,
      const Eigen::Isometry3d& X_WB = Eigen::Isometry3d::Identity(),
      bool with_world_geometries = true);
  // Whether the MJCF file's robot floats in MuJoCo: its root body has a
  // free joint (<freejoint/>, or a <joint> of type free, the type perhaps
  // from a default class). Otherwise its joints hang it from the world.
  // Throws std::runtime_error as FromMjcf does for a file it cannot read.
  static bool MjcfRootFloats(const std::string& path);

  // Collision geometry read from the URDF or MJCF file (empty for free bodies).
  const std::vector<BodyGeometry>& collision_geometries() const;
  // The MJCF file's geometry of the world, which MultibodySystem::AddRobot
  // adds as static geometry (empty for URDF files and free bodies), and a
  // way to leave it out (the scene has its own ground).
  const std::vector<WorldGeometry>& world_geometries() const;
  void DropWorldGeometries();
  // Forgets the frictions the file gives its geometries (the scene gives
  // the robot a friction of its own).
  void DropGeometryFrictions();
  // Where an MJCF file starts its free root body (its pos and orientation,
  // MuJoCo's qpos0), the pose the scene's default for a floating robot;
  // the identity for other models.
  const Eigen::Isometry3d& mjcf_root_pose() const;

  int num_positions() const;
  int num_velocities() const;
  int num_bodies() const;
  const std::string& body_name(int body) const;
  int FindBody(const std::string& name) const;  // −1 if absent
  // True if the two bodies move with the same joint or are joined by one
  // joint (parent and child): the pairs whose collision is filtered.
  bool AreAdjacent(int body_a, int body_b) const;
  // True if the body moves with no joint: welded to the world (a link of a
  // fixed base's root, or welded to it).
  bool IsWeldedToWorld(int body) const;
  // Position and velocity index of a one-dof joint (revolute, prismatic) and
  // its limits from the URDF (±∞ where none are given: [rad] or [m], effort
  // [N·m] or [N]); throws std::invalid_argument if there is no such joint.
  struct JointIndex {
    int position = -1;
    int velocity = -1;
    double lower_limit = -std::numeric_limits<double>::infinity();
    double upper_limit = std::numeric_limits<double>::infinity();
    double effort_limit = std::numeric_limits<double>::infinity();
  };
  JointIndex FindOneDofJoint(const std::string& name) const;
  // Where any joint's positions sit in q and its velocities in v: the first
  // indices and the counts (1 and 1 for a one-dof joint, 4 and 3 for a
  // spherical joint: its unit quaternion x y z w and its angular velocity in
  // the child frame). Throws std::invalid_argument if there is no such joint.
  struct JointRange {
    int first_position = -1;
    int num_positions = 0;
    int first_velocity = -1;
    int num_velocities = 0;
  };
  JointRange FindJoint(const std::string& name) const;
  // Names of all one-dof joints, in model order.
  std::vector<std::string> OneDofJointNames() const;
  // The name of the joint whose velocities include v[velocity] (a free
  // base's joint included), and the first body that joint moves (−1: none).
  // Throw std::out_of_range past the last velocity.
  const std::string& JointOfVelocity(int velocity) const;
  int BodyMovedBy(int velocity) const;
  // The entries of a state vector x (q, or v when `velocities`) at the
  // one-dof joints, in OneDofJointNames' order, without naming them.
  Eigen::VectorXd OneDofJointEntries(const Eigen::VectorXd& x, bool velocities) const;
  // Armature (reflected rotor inertia) I_a ≥ 0 of a one-dof joint
  // [kg·m² or kg]: M gains I_a on the joint's diagonal entry, so a motor
  // spinning with the joint adds ½ I_a v² to the kinetic energy. Throws
  // std::invalid_argument on an unknown joint, a negative or NaN value.
  void SetJointArmature(const std::string& joint, double armature);
  double joint_armature(const std::string& joint) const;
  // The viscous damping [N·m·s/rad or N·s/m] the model file gives a one-dof
  // joint (an MJCF joint's damping, a URDF's <dynamics damping>), which the
  // dynamics do not apply by themselves: the scene turns it into a damper.
  double joint_damping(const std::string& joint) const;
  // The dry friction [N·m or N] the model file gives a one-dof joint (a
  // URDF's <dynamics friction>, an MJCF joint's frictionloss, its default
  // classes resolved by Pinocchio's parser; 0 where none), which the scene
  // turns into joint friction.
  double joint_friction(const std::string& joint) const;
  bool has_free_base() const;
  Eigen::VectorXd NeutralConfiguration() const;
  void SetGravity(const Eigen::Vector3d& gravity);
  Eigen::Vector3d gravity() const;  // g [m/s²] in world

  // The mass properties of a tree stepped in closed form (FreeBodyState):
  // m [kg], I_B [kg·m²] about the COM in the body frame, and the COM's
  // position c_B [m] from the body frame's origin, in the body frame (zero
  // for a tree made by FreeBody). With v = [ṗ_W; ω_B] (ṗ_W the origin's
  // velocity), the COM moves at v_com = ṗ_W + R_WB (ω_B × c_B), so
  //   M(q) = Tᵀ diag(m I, I_B) T,  T = [I, −R_WB [c_B]×; 0, I],
  // diag(m I, I_B) for every q when c_B = 0. nullptr for any other tree.
  // Lets a time step solve M x = f in closed form.
  struct FreeBodyMass {
    double mass = 0.0;
    Eigen::Matrix3d inertia = Eigen::Matrix3d::Zero();
    Eigen::Matrix3d inverse_inertia = Eigen::Matrix3d::Zero();
    Eigen::Vector3d com = Eigen::Vector3d::Zero();  // c_B
    bool com_at_origin = true;                      // c_B = 0
  };
  const FreeBodyMass* free_body_mass() const {
    return single_free_body_ ? &body_.mass : nullptr;
  }
  // For a tree stepped in closed form: its body's pose at the state, R_WB and
  // the body frame's origin p_W (body_pose(0) without building a transform;
  // the bodies welded to it sit at fixed poses in that frame), and
  // v = [ṗ_W; ω_B]. Inline: a step reads them for every body.
  const Eigen::Matrix3d& free_body_rotation() const { return body_.R_WB; }
  Eigen::Vector3d free_body_position() const { return body_.q.head<3>(); }
  const Eigen::Matrix<double, 6, 1>& free_body_velocity() const { return body_.v; }
  // Steps this tree through Pinocchio's CRBA and RNEA (and its kinematics)
  // even if it is a free body stepped in closed form: the same physics, more
  // slowly. For checking the closed form against the general path; the state
  // is kept.
  void UseGeneralForm();

  // Kinematics and dynamics at (q, v): poses, M, h. q must have
  // num_positions() entries (quaternions normalized by the caller).
  void SetState(const Eigen::VectorXd& q, const Eigen::VectorXd& v);
  const Eigen::MatrixXd& mass_matrix() const;
  Eigen::Ref<const Eigen::VectorXd> nonlinear_effects() const;
  Eigen::Isometry3d body_pose(int body) const;
  // The pose of `body` at configuration q (num_positions() entries,
  // quaternions unit), the state left as it is. For queries, not steps: a
  // robot's costs a forward kinematics pass in data of its own.
  Eigen::Isometry3d BodyPoseAt(const Eigen::VectorXd& q, int body) const;
  // J such that the world velocity of the point p_W moving with `body` is J v.
  Eigen::Matrix<double, 3, Eigen::Dynamic> PointJacobian(
      int body, const Eigen::Vector3d& p_W) const;
  // The same into *jacobian (resized to 3 × num_velocities(); no allocation
  // when it has that size).
  void CalcPointJacobian(int body, const Eigen::Vector3d& p_W,
                         Eigen::Matrix<double, 3, Eigen::Dynamic>* jacobian) const;
  // For sensors, at the state with joint accelerations `a` (num_velocities()
  // entries): `body`'s angular acceleration α_W [rad/s²] and the
  // acceleration [m/s²] of the point at p_W moving with it (its classical
  // acceleration, gravity not counted), both in world.
  std::pair<Eigen::Vector3d, Eigen::Vector3d> PointAcceleration(
      int body, const Eigen::Vector3d& p_W, const Eigen::VectorXd& a) const;
  // The bodies a joint carries with `body` (its subtree) at the state: their
  // mass m [kg], centre of mass c_W [m], its velocity ċ_W = p/m [m/s] (p their
  // linear momentum) and their angular momentum about c, L_c = Σ (I_i ω_i +
  // m_i (c_i − c) × ċ_i) [kg·m²/s], in world. A massless subtree has c at
  // the joint's origin and ċ = 0. Body −1: every body a joint moves (those
  // welded to the world left out). Throws
  // std::invalid_argument for a body welded to its parent link
  // (CarriedByJoint).
  struct SubtreeMomentum {
    double mass = 0.0;
    Eigen::Vector3d com_W = Eigen::Vector3d::Zero();
    Eigen::Vector3d com_velocity_W = Eigen::Vector3d::Zero();
    Eigen::Vector3d angular_momentum_W = Eigen::Vector3d::Zero();
  };
  SubtreeMomentum Subtree(int body) const;
  // Whether a joint moves `body` against its parent link, the body not
  // welded to it (false for the world's links too).
  bool CarriedByJoint(int body) const;
  // A force f_W [N] on `body` at the world point p_W.
  struct PointForce {
    int body = 0;
    Eigen::Vector3d p_W = Eigen::Vector3d::Zero();
    Eigen::Vector3d f_W = Eigen::Vector3d::Zero();
  };
  // The wrench that `body`'s parent link exerts, through the joint that
  // moves `body`, on it and all it carries (its subtree), for joint
  // accelerations `a` at the state, gravity, and `forces` on the tree's
  // bodies (those outside the subtree do not count): the force [N] and the
  // torque [N·m] about p_W, both in world (Newton–Euler over the subtree:
  // Σ (ṗ − m g) − Σ f). Throws std::invalid_argument for a body welded to
  // its parent link (CarriedByJoint), whose share of their link's mass is
  // not kept apart.
  std::pair<Eigen::Vector3d, Eigen::Vector3d> ParentWrench(
      int body, const Eigen::VectorXd& a, const std::vector<PointForce>& forces,
      const Eigen::Vector3d& p_W) const;
  // J_ω such that the world angular velocity of `body` is J_ω v (resized to
  // 3 × num_velocities(); no allocation when it has that size).
  void CalcAngularJacobian(int body,
                           Eigen::Matrix<double, 3, Eigen::Dynamic>* jacobian) const;
  // The dof tree (see CliqueTree): per velocity index, the velocity it hangs
  // from (the previous one of its joint, else the parent joint's last), −1
  // at the root.
  std::vector<int> VelocityParents() const;
  // The last velocity index of the joint that moves `body`: the body's
  // spatial velocity depends on that velocity and its ancestors only. −1 for
  // a body welded to the world.
  int BodyVelocityIndex(int body) const;
  // S (6 × num_velocities()) at the state: column k is the world-frame spatial
  // velocity [v_O; ω] (v_O of the body-fixed point at the world origin) per
  // unit v_k of every body it moves. No allocation when *motion has its size.
  void CalcMotionSubspaces(Eigen::Matrix<double, 6, Eigen::Dynamic>* motion) const;
  // World velocity of the body frame origin and angular velocity, at the state:
  // a free body's inline from its state (a step asks for every body's; a
  // body welded to it moves with its ω), a robot's from Pinocchio's
  // kinematics.
  Eigen::Vector3d BodyLinearVelocity(int body) const {
    if (!single_free_body_) return KinematicsLinearVelocity(body);
    return body == 0 ? Eigen::Vector3d(body_.v.head<3>())  // the origin's ṗ_W
                     : WeldedBodyLinearVelocity(body);
  }
  Eigen::Vector3d BodyAngularVelocity(int body) const {
    return single_free_body_ ? Eigen::Vector3d(body_.R_WB * body_.v.tail<3>())
                             : KinematicsAngularVelocity(body);
  }
  // |ω|, the same in every frame: a free body's from ω_B, not turned into
  // the world frame first.
  double BodyAngularSpeed(int body) const {
    return single_free_body_ ? body_.v.tail<3>().norm()
                             : KinematicsAngularVelocity(body).norm();
  }
  // ½ vᵀ M v and −Σ m_b g·p_b at the state.
  double KineticEnergy() const;
  double GravityPotentialEnergy() const;

  // q ⊕ dq: integrates the velocity-space increment dq (e.g. δt v) with
  // q̇ = N(q) v: positions additively, rotations by the exponential map;
  // quaternions stay unit.
  Eigen::VectorXd Integrate(const Eigen::VectorXd& q, const Eigen::VectorXd& dq) const;
  // The same into *result (which may not alias q).
  void Integrate(const Eigen::VectorXd& q, const Eigen::VectorXd& dq,
                 Eigen::VectorXd* result) const;
  // For a tree made by FreeBody only (free_body_mass() not null): q ← q ⊕ dq
  // in place, dq = [δp_W; δθ_B] in fixed size.
  void IntegrateFreeBody(Eigen::Ref<Eigen::VectorXd> q,
                         const Eigen::Matrix<double, 6, 1>& dq) const;

 private:
  struct Impl;
  // *impl_, a free body's Pinocchio data brought up to its state first.
  Impl& SyncedImpl() const;
  // Throws std::invalid_argument naming `body` unless CarriedByJoint.
  void CheckCarriedByJoint(int body) const;
  // A tree made by FreeBody (or UseFreeBodyFormIfOneBody) keeps all that a
  // time step reads of it here, in closed form, in the tree object itself
  // rather than behind impl_: a system's trees lie side by side in one
  // vector, so a step over many free bodies reads their states in order, not
  // one scattered block of several kilobytes each (Pinocchio's model and
  // data):
  //   q = [p_W; x y z w] (the translation joint, then the spherical one),
  //   v = [ṗ_W; ω_B]: the translation joint moves the body frame's origin in
  //   world axes, the spherical joint turns the body with ω in its frame;
  //   R_WB from the quaternion; the body frame is the spherical joint's;
  //   with the COM at c_B from the origin (FreeBodyMass), Newton–Euler about
  //   the COM, m a_com = f and I_B ω̇ + ω × I_B ω = τ_com, mapped through T:
  //   M = Tᵀ diag(m I, I_B) T and
  //   h = Tᵀ [m R_WB (ω × (ω × c_B)) − m g; ω × I_B ω]
  //     = [f_h; ω × I_B ω + c_B × (R_WBᵀ f_h)],  f_h = m R_WB (ω × (ω × c_B)) − m g,
  //   that is M = diag(m I, I_B) and h = [−m g; ω × I_B ω] when c_B = 0:
  //   no CRBA nor RNEA.
  // Pinocchio's data follow it only when asked for (Impl::SyncFreeBodyData):
  // a step of a scene of free bodies never touches them.
  struct FreeBodyState {
    Eigen::Matrix<double, 7, 1> q = Eigen::Matrix<double, 7, 1>::Zero();
    Eigen::Matrix<double, 6, 1> v = Eigen::Matrix<double, 6, 1>::Zero();
    Eigen::Matrix3d R_WB = Eigen::Matrix3d::Identity();
    Eigen::Matrix<double, 6, 1> nonlinear_effects = Eigen::Matrix<double, 6, 1>::Zero();
    Eigen::Vector3d weight = Eigen::Vector3d::Zero();  // m g [N]
    FreeBodyMass mass;
    // X_0b: the pose of each body frame b in the free body's frame (the
    // joint's, body 0's): [0] the identity, the others welded to it.
    std::vector<Eigen::Isometry3d> body_placements;
    // True while q, v and what follows from them are those of the last
    // SetState for the current gravity: SetState with the same state then
    // does nothing.
    bool state_current = false;
    // Pinocchio's data and Impl's q, v hold this state (brought up to date
    // by const queries that need them).
    mutable bool data_synced = false;
  };
  explicit MultibodyTree(std::unique_ptr<Impl> impl);
  // Makes a floating tree that is one rigid body on the free joint, its first
  // body frame the joint's, with no armature (an MJCF file's loose body, with
  // child bodies welded to it or not; a floating URDF whose links are welded
  // to its root; its centre of mass anywhere), a tree of FreeBody's kind: the
  // same q, v and model, stepped in closed form. Pinocchio's parsers add a
  // welded body's mass properties to its joint's: they are the composite's.
  void UseFreeBodyFormIfOneBody();
  // The closed form of a FreeBody tree (FreeBodyState), with these mass
  // properties (those of its model; com: c_B).
  void SetFreeBodyForm(double mass, const Eigen::Matrix3d& inertia_about_com,
                       const Eigen::Vector3d& com);
  void SetFreeBodyState(const Eigen::VectorXd& q, const Eigen::VectorXd& v);
  // M of the closed form at body_.R_WB, into Impl's mass matrix (6 × 6).
  void UpdateFreeBodyMassMatrix();
  // BodyLinearVelocity and BodyAngularVelocity of a tree not made by FreeBody.
  Eigen::Vector3d KinematicsLinearVelocity(int body) const;
  Eigen::Vector3d KinematicsAngularVelocity(int body) const;
  // BodyLinearVelocity of a body welded to a free body (body > 0):
  // ṗ_W + R_WB (ω_B × p_B), p_B its origin in the free body's frame.
  Eigen::Vector3d WeldedBodyLinearVelocity(int body) const;

  std::unique_ptr<Impl> impl_;
  bool single_free_body_ = false;
  int num_positions_ = 0, num_velocities_ = 0;
  FreeBodyState body_;  // used by a tree made by FreeBody only
};

}  // namespace coulomb
