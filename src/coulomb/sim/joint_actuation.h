#pragma once

#include <Eigen/Dense>
#include <Eigen/Geometry>
#include <array>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "coulomb/contact/pd_controller_constraint.h"
#include "coulomb/sim/joint_spring_damper.h"

namespace coulomb {

// Position limits of a one-dof joint, lower < upper (either may be ±∞),
// enforced by SapUnilateralConstraint (near-rigid) when the joint comes
// within reach of a limit during the step.
struct JointLimit {
  std::string joint;
  int position = -1;  // index in q
  int velocity = -1;  // index in v
  double lower = 0.0;
  double upper = 0.0;
};

// A fixed tendon of a robot (an MJCF <tendon><fixed>): the length
// L = Σ_k c_k q_k over one-dof joints of its tree [m, or rad for
// dimensionless c], L̇ = Σ_k c_k v_k. A force f along it is the joint
// efforts c_k f (its Jacobian row is c over the tree's velocities). Its
// limits lower < upper (±∞: none) are held as a joint's are (JointLimit).
struct FixedTendon {
  std::string name;
  std::vector<JointTerm> terms;
  double lower = -std::numeric_limits<double>::infinity();
  double upper = std::numeric_limits<double>::infinity();

  double Length(const Eigen::VectorXd& q) const { return CombinedPosition(terms, q); }
};

// The index of the tendon named `name` in `tendons`, or −1.
inline int FindFixedTendon(const std::vector<FixedTendon>& tendons,
                           const std::string& name) {
  for (size_t i = 0; i < tendons.size(); ++i)
    if (tendons[i].name == name) return static_cast<int>(i);
  return -1;
}

// A PD controller with effort limit on a one-dof joint or a fixed tendon,
// implicit in the solve through PdControllerConstraint (on the tendon, its q
// and v are the tendon's L and L̇, its effort the force along it). Kp = Kd =
// 0 with a feedforward is a constant effort. A constant effort, and a PD
// controller on a joint while its effort limit holds, fold into the free
// motion instead: the same step without a constraint (TimeStepper's
// AddAffineEfforts and FoldedLimitsHold).
struct JointPdController {
  std::string joint;  // the joint's name, or the tendon's
  int position = -1;  // the joint's, −1 on a tendon
  int velocity = -1;  // the joint's, −1 on a tendon
  PdControllerConstraint::Parameters gains;
  int tendon = -1;  // the tendon's index in its tree's tendons, −1 on a joint
};

// The range a one-dof joint's PD target is kept in: an MJCF servo's
// ctrlrange, to which MuJoCo clamps the servo's control. Targets set on
// the joint (Simulation::SetJointPdTarget) are clamped into [lower, upper]:
// the target position, or for a velocity servo the target velocity.
struct JointTargetRange {
  std::string joint;
  bool bounds_velocity = false;
  double lower = -std::numeric_limits<double>::infinity();  // [rad, m, rad/s or m/s]
  double upper = std::numeric_limits<double>::infinity();
};

// An actuator of a robot's model file (an MJCF actuator) as MuJoCo's control
// u reaches its joint's or tendon's PD controller: a motor's effort
// per_control · u, a position servo's target position or a velocity servo's
// target velocity per_control · u (clamped into the controller's target
// range, as MuJoCo clamps u into ctrlrange: JointTargetRange). Its force,
// MuJoCo's actuator_force, is the controller's effort over gear.
struct ActuatorControl {
  enum class Sets { kEffort, kTargetPosition, kTargetVelocity };
  std::string name;      // the actuator's
  std::string acted_on;  // its joint's or tendon's name
  Sets sets = Sets::kEffort;
  double per_control = 1.0;  // [N·m, N, rad, m, rad/s or m/s per unit u]
  double gear = 1.0;         // the effort on acted_on per unit of its force (≠ 0)
  int controller = -1;       // its controller's index in the tree's (AddActuatorControl)
};

// Dry friction F > 0 [N·m or N] on a one-dof joint or a fixed tendon,
// implicit in the solve through JointFrictionConstraint: the joint (or the
// tendon's length) sticks while the other forces on it stay below F.
struct JointFriction {
  std::string joint;  // the joint's name, or the tendon's
  int velocity = -1;  // the joint's, −1 on a tendon
  double friction = 0.0;
  int tendon = -1;  // the tendon's index in its tree's tendons, −1 on a joint
};

// A one-dof joint or fixed tendon s driven by another r of its tree through
// a polynomial, s = p(r) = Σ_{k=0}^{4} p_k (r − r_0)^k (an MJCF
// <equality><joint> or <tendon>; a URDF mimic joint, s = m r + c, is
// p = (c, m), r_0 = 0), or held at s = p_0 without r. Held near-rigidly in
// the solve through SapHolonomicConstraint on g = s − p(r), whose Jacobian
// row is c_sᵀ − p′(r) c_rᵀ (c_s, c_r: s's and r's joint coefficients).
struct JointCoupler {
  std::string joint;      // s: a joint's name, or a tendon's
  std::string reference;  // r: another, or empty for none
  std::array<double, 5> polynomial{0.0, 1.0, 0.0, 0.0, 0.0};  // p_k
  double reference_origin = 0.0;                              // r_0 [rad or m]
  // s and r as joint terms (MultibodySystem::AddJointCoupler sets them).
  std::vector<JointTerm> terms{}, reference_terms{};

  // p(r) and p′(r) at the reference's position r (r − r_0 taken as 0
  // without a reference).
  std::pair<double, double> Polynomial(double r) const {
    const double x = reference.empty() ? 0.0 : r - reference_origin;
    double value = 0.0, slope = 0.0;
    for (int k = static_cast<int>(polynomial.size()) - 1; k >= 0; --k) {
      slope = slope * x + value;  // Horner's rule for p and p′ together
      value = value * x + polynomial[k];
    }
    return {value, slope};
  }
};

// Gravity compensation of a robot's link (MuJoCo's body `gravcomp`): a force
// −m_c g at its centre of mass p_c (in the link's frame), m_c = c m the
// compensated part of its mass; in the free motion as τ = J_c(q)ᵀ(−m_c g),
// J_c the point Jacobian of p_c; its potential energy m_c g·p_c.
struct GravityCompensation {
  int body = -1;
  Eigen::Vector3d center = Eigen::Vector3d::Zero();  // p_c [m]
  double mass = 0.0;                                 // m_c [kg]
};

// A point of a robot's link held at a point of another of its links, of
// another tree's body (tree_b ≥ 0: an MJCF file's connect between two
// top-level bodies, a grasped object), or of the world (an MJCF
// <equality><connect>): p_a (in body a's frame) and p_b (in body b's
// frame; in world when body_b < 0) coincide, held
// near-rigidly in the solve by one SapHolonomicConstraint per world axis on
// g = p_a_W − p_b_W, with J = J_a(p_a_W) − J_b(p_b_W).
// A weld (an MJCF <equality><weld>) holds the orientations too: R_a R_ab =
// R_b (R_ab: b's frame in a's, or the world's orientation in a's when
// body_b < 0), by three more rows on g = log(R_a R_ab R_bᵀ) with
// J = J_ω,a − J_ω,b.
// A connection to the world holds body a to a frame T of the world that
// the user may move (X_WT, the identity at first): p_b and R_ab are then in
// T, as MuJoCo's weld or connect to a mocap body whose pose is set; with
// `mocap` named, T is that mocap body's frame and follows it
// (MultibodySystem::SetMocapPose). An inactive connection holds nothing
// (MuJoCo's eq_active).
struct BodyConnection {
  int body_a = 0;
  Eigen::Vector3d p_a = Eigen::Vector3d::Zero();  // [m]
  int body_b = -1;
  Eigen::Vector3d p_b = Eigen::Vector3d::Zero();  // [m]
  int tree_b = -1;  // body_b's tree when another tree's (−1: this tree's)
  bool weld = false;
  Eigen::Matrix3d R_ab = Eigen::Matrix3d::Identity();
  std::string name;  // the MJCF equality's name, or equality<k> (k: its index)
  bool active = true;
  Eigen::Isometry3d X_WT = Eigen::Isometry3d::Identity();  // body_b < 0 only
  std::string mocap;  // body_b < 0: the mocap body T is the frame of ("": none)
};

// Whether X is a rigid motion a connection's frame T may take: finite, its
// linear part a rotation (orthonormal to 1e-9, not a reflection).
inline bool IsConnectionFrame(const Eigen::Isometry3d& X) {
  const Eigen::Matrix3d R = X.linear();
  return X.matrix().allFinite() &&
         (R.transpose() * R).isApprox(Eigen::Matrix3d::Identity(), 1e-9) &&
         R.determinant() > 0.0;
}

}  // namespace coulomb
