#include <cmath>
#include <numbers>

#include <gtest/gtest.h>

#include "coulomb/contact/joint_friction_constraint.h"
#include "coulomb/contact/pd_controller_constraint.h"
#include "coulomb/contact/sap_holonomic_constraint.h"
#include "coulomb/contact/sap_unilateral_constraint.h"

namespace coulomb {
namespace {

constexpr double kTimeStep = 0.01;

struct Values {
  double cost;
  double gamma;
  double hessian;
};

Values EvaluateAt(const ConvexConstraint& constraint, double v) {
  ConstraintVector gamma;
  ConstraintMatrix hessian;
  const double cost =
      constraint.Evaluate(ConstraintVector::Constant(1, v), &gamma, &hessian);
  return {cost, gamma(0), hessian(0, 0)};
}

// γ = −ℓ', G = −γ' by central differences (h = 1e-6: truncation of the
// piecewise-quadratic ℓ is zero away from kinks, round-off ~1e-16 ℓ/h), G ≥ 0,
// and ℓ(b) ≥ ℓ(a) − γ(a)(b − a) against every other sample.
void ExpectConvexPotential(const ConvexConstraint& constraint,
                           const std::vector<double>& velocities) {
  const double h = 1e-6;
  for (double v : velocities) {
    const Values at = EvaluateAt(constraint, v);
    const Values plus = EvaluateAt(constraint, v + h),
                 minus = EvaluateAt(constraint, v - h);
    EXPECT_NEAR(at.gamma, -(plus.cost - minus.cost) / (2 * h),
                1e-7 * (1 + std::abs(at.gamma)))
        << "v = " << v;
    EXPECT_NEAR(at.hessian, -(plus.gamma - minus.gamma) / (2 * h),
                1e-6 * (1 + std::abs(at.hessian)))
        << "v = " << v;
    EXPECT_GE(at.hessian, 0.0);
    for (double other : velocities) {
      EXPECT_GE(EvaluateAt(constraint, other).cost,
                at.cost - at.gamma * (other - v) - 1e-12 * (1 + std::abs(at.cost)));
    }
  }
}

TEST(SapUnilateralConstraint, NearRigidImpulseFollowsSapRegularization) {
  SapUnilateralConstraint limit({}, /*gap0=*/-0.002);  // violated by 2 mrad
  limit.Prepare(ConstraintMatrix::Constant(1, 1, 4.0), kTimeStep);
  const double tau_d = kTimeStep / std::numbers::pi;  // (β/π) δt, β = 1
  EXPECT_DOUBLE_EQ(limit.v_hat(), 0.002 / (kTimeStep + tau_d));
  EXPECT_DOUBLE_EQ(limit.regularization(),
                   4.0 / (4.0 * std::numbers::pi * std::numbers::pi));
  const Values closing = EvaluateAt(limit, -0.3);
  EXPECT_DOUBLE_EQ(closing.gamma, (limit.v_hat() + 0.3) / limit.regularization());
  EXPECT_EQ(EvaluateAt(limit, 1.0).gamma, 0.0);  // opening fast: no impulse
  ExpectConvexPotential(limit, {-1.0, -0.31, 0.0, 0.1, 0.5, 2.0});
  // g·γ = 0 in both regimes.
  for (double v : {-0.5, 0.9}) {
    ConstraintVector gamma;
    limit.Evaluate(ConstraintVector::Constant(1, v), &gamma, nullptr);
    EXPECT_NEAR(limit.ComplementarityProduct(ConstraintVector::Constant(1, v), gamma),
                0.0, 1e-14);
  }
}

TEST(SapUnilateralConstraint, CompliantLimitUsesItsStiffness) {
  SapUnilateralConstraint limit({.stiffness = 1e3, .dissipation_time_scale = 0.05}, 0.0);
  limit.Prepare(ConstraintMatrix::Constant(1, 1, 1.0), kTimeStep);
  EXPECT_DOUBLE_EQ(limit.regularization(), 1.0 / (kTimeStep * 1e3 * (kTimeStep + 0.05)));
}

PdControllerConstraint::Parameters Gains(double effort_limit) {
  return {.proportional_gain = 100.0,
          .derivative_gain = 5.0,
          .target_position = 0.3,
          .target_velocity = 0.1,
          .feedforward = 2.0,
          .effort_limit = effort_limit};
}

TEST(PdControllerConstraint, ActuationIsTheClampedImplicitPdLaw) {
  PdControllerConstraint controller(Gains(10.0), /*position0=*/0.25);
  controller.Prepare(ConstraintMatrix::Zero(1, 1), kTimeStep);
  for (double v : {-3.0, -0.5, 0.0, 0.4, 3.0}) {
    const double q = 0.25 + kTimeStep * v;  // the position at the end of the step
    const double pd = -100.0 * (q - 0.3) - 5.0 * (v - 0.1) + 2.0;
    EXPECT_NEAR(controller.Actuation(v), std::clamp(pd, -10.0, 10.0), 1e-12) << v;
    EXPECT_NEAR(EvaluateAt(controller, v).gamma, kTimeStep * controller.Actuation(v),
                1e-14);
  }
  // Inside the limits G = δt (Kp δt + Kd); saturated, 0.
  EXPECT_DOUBLE_EQ(EvaluateAt(controller, 0.0).hessian,
                   kTimeStep * (100.0 * kTimeStep + 5.0));
  EXPECT_EQ(EvaluateAt(controller, 3.0).hessian, 0.0);
}

TEST(PdControllerConstraint, IsAConvexPotentialInsideAndOutsideTheLimits) {
  for (double limit : {10.0, std::numeric_limits<double>::infinity()}) {
    PdControllerConstraint controller(Gains(limit), 0.25);
    controller.Prepare(ConstraintMatrix::Zero(1, 1), kTimeStep);
    ExpectConvexPotential(controller, {-3.0, -1.7, -0.2, 0.0, 0.9, 1.6, 3.0});
  }
  // Kp = Kd = 0: a constant effort (feedforward only), clamped.
  PdControllerConstraint torque({.feedforward = 7.0, .effort_limit = 5.0}, 0.0);
  torque.Prepare(ConstraintMatrix::Zero(1, 1), kTimeStep);
  EXPECT_DOUBLE_EQ(EvaluateAt(torque, 0.3).gamma, kTimeStep * 5.0);
  ExpectConvexPotential(torque, {-1.0, 0.0, 2.0});
}

TEST(PdControllerConstraint, RejectsInvalidGains) {
  EXPECT_THROW(PdControllerConstraint({.proportional_gain = -1.0}, 0.0),
               std::invalid_argument);
  EXPECT_THROW(PdControllerConstraint({.effort_limit = 0.0}, 0.0), std::invalid_argument);
  EXPECT_THROW(PdControllerConstraint({.target_position = NAN}, 0.0),
               std::invalid_argument);
}

// Dry friction F opposes the joint velocity with at most F; within the
// sticking band |v| < σ w δt F its curvature is SAP's Rt⁻¹ = 1/(σ w).
TEST(JointFrictionConstraint, IsRegularizedCoulombFrictionOnTheJoint) {
  const double friction = 3.0, sigma = 1e-3, w = 2.0;
  JointFrictionConstraint joint(friction, sigma);
  joint.Prepare(ConstraintMatrix::Constant(1, 1, w), kTimeStep);
  const double band = sigma * w * kTimeStep * friction;  // where it sticks
  for (double v : {-1.0, -2 * band, 2 * band, 0.5}) {
    EXPECT_DOUBLE_EQ(EvaluateAt(joint, v).gamma, -std::copysign(kTimeStep * friction, v));
    EXPECT_EQ(EvaluateAt(joint, v).hessian, 0.0);
  }
  for (double v : {-0.5 * band, 0.0, 0.9 * band}) {
    EXPECT_NEAR(EvaluateAt(joint, v).gamma, -v / (sigma * w), 1e-15);
    EXPECT_NEAR(EvaluateAt(joint, v).hessian, 1.0 / (sigma * w), 1e-9);
  }
  ExpectConvexPotential(joint, {-1.0, -2 * band, -0.3 * band, 0.0, 0.7 * band, 3 * band});
  const RigidLaw law = joint.rigid_law();  // the NCP solvers' soft law
  EXPECT_EQ(law.kind, RigidLaw::Kind::kSoft);
  EXPECT_DOUBLE_EQ(law.hi, kTimeStep * friction);
  EXPECT_DOUBLE_EQ(law.lo, -kTimeStep * friction);
  EXPECT_NEAR(law.d, 1.0 / (sigma * w), 1e-9);
  EXPECT_THROW(JointFrictionConstraint(0.0, sigma), std::invalid_argument);
  EXPECT_THROW(JointFrictionConstraint(friction, 0.0), std::invalid_argument);
  EXPECT_THROW(JointFrictionConstraint(NAN, sigma), std::invalid_argument);
}

// A coupler g = 0 pushes back both ways: γ = (v̂ − v_c)/R with SAP's
// near-rigid R = β²/(4π²) w and v̂ = −g0/(δt (1 + β/π)) (closed forms).
TEST(SapHolonomicConstraint, IsSapsNearRigidLawWithoutAProjection) {
  const double g0 = 0.02, w = 2.0, beta = 1.0;
  SapHolonomicConstraint coupler(g0, beta);
  coupler.Prepare(ConstraintMatrix::Constant(1, 1, w), kTimeStep);
  const double r = beta * beta / (4 * std::numbers::pi * std::numbers::pi) * w;
  const double v_hat = -g0 / (kTimeStep * (1 + beta / std::numbers::pi));
  EXPECT_NEAR(coupler.regularization(), r, 1e-15);
  EXPECT_NEAR(coupler.v_hat(), v_hat, 1e-15);
  for (double v : {-3.0, -0.5, 0.0, v_hat, 0.7}) {
    EXPECT_NEAR(EvaluateAt(coupler, v).gamma, (v_hat - v) / r, 1e-12);
    EXPECT_NEAR(EvaluateAt(coupler, v).hessian, 1.0 / r, 1e-12);
  }
  EXPECT_EQ(EvaluateAt(coupler, v_hat).cost, 0.0);
  ExpectConvexPotential(coupler, {-3.0, -0.5, 0.0, 0.7});
  const RigidLaw law = coupler.rigid_law();  // the NCP solvers' law: the same, unbounded
  EXPECT_EQ(law.kind, RigidLaw::Kind::kSoft);
  EXPECT_NEAR(law.c - law.d * 0.3, EvaluateAt(coupler, 0.3).gamma, 1e-9);
  EXPECT_TRUE(std::isinf(law.hi) && std::isinf(law.lo) && law.lo < 0);
  EXPECT_THROW(SapHolonomicConstraint(NAN), std::invalid_argument);
  EXPECT_THROW(SapHolonomicConstraint(g0, 0.0), std::invalid_argument);
}

}  // namespace
}  // namespace coulomb
