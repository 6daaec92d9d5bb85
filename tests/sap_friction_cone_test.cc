#include "coulomb/contact/sap_friction_cone.h"

#include <numbers>
#include <random>

#include <gtest/gtest.h>

#include "test_support.h"

namespace coulomb {
namespace {

using Region = SapFrictionCone::Region;
using testing::NumericalGradient;
using testing::NumericalJacobian;

constexpr double kRt = 0.3;
constexpr double kRn = 2.0;

SapFrictionCone MakeCone(double mu,
                         const Eigen::Vector3d& v_hat = Eigen::Vector3d(0.1, -0.2, 0.3)) {
  SapContactParameters parameters;
  parameters.friction = mu;
  SapFrictionCone cone(parameters, v_hat);
  cone.SetRegularization(kRt, kRn);
  return cone;
}

// v_c that maps to y = −R⁻¹(v_c − v̂).
Eigen::Vector3d VelocityFromY(const SapFrictionCone& cone, const Eigen::Vector3d& y) {
  return cone.v_hat() - Eigen::Vector3d(kRt, kRt, kRn).cwiseProduct(y);
}

// Random y: a third in each region plus points within 1e-4 of the two
// boundaries (on either side), for μ > 0.
std::vector<Eigen::Vector3d> SampleY(double mu, unsigned seed) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const double mu_hat = mu * kRt / kRn;
  std::vector<Eigen::Vector3d> samples;
  for (int k = 0; k < 300; ++k) {
    const double angle = 2.0 * std::numbers::pi * unit(random);
    const Eigen::Vector2d t_hat(std::cos(angle), std::sin(angle));
    const double y_r = 0.05 + 2.0 * unit(random);
    double y_n = 0.0;
    switch (k % 5) {
      case 0:
        y_n = y_r / mu * (1.0 + 2.0 * unit(random));
        break;  // stiction
      case 1:
        y_n = -mu_hat * y_r + (y_r / mu + mu_hat * y_r) * unit(random);
        break;  // sliding
      case 2:
        y_n = -mu_hat * y_r - 2.0 * unit(random) - 1e-3;
        break;  // no contact
      case 3:
        y_n = y_r / mu * (1.0 + (unit(random) < 0.5 ? -1e-4 : 1e-4));
        break;  // ∂F
      case 4:
        y_n = -mu_hat * y_r * (1.0 + (unit(random) < 0.5 ? -1e-4 : 1e-4));
        break;  // ∂F°
    }
    Eigen::Vector3d y;
    y << y_r * t_hat, y_n;
    samples.push_back(y);
  }
  return samples;
}

TEST(SapFrictionCone, ImpulseIsTheProjectionInTheRNormInAllRegions) {
  // KKT conditions of γ = argmin_{x∈F} ½‖x − y‖²_R, checked independently of
  // the region formulas: γ ∈ F, z = R(γ − y) ∈ F* and γ·z = 0.
  const double mu = 0.7;
  const SapFrictionCone cone = MakeCone(mu);
  int count[3] = {0, 0, 0};
  for (const Eigen::Vector3d& y : SampleY(mu, 1)) {
    const auto evaluation = cone.EvaluateAt(VelocityFromY(cone, y));
    ++count[static_cast<int>(evaluation.region)];
    const Eigen::Vector3d& gamma = evaluation.gamma;
    const Eigen::Vector3d z = Eigen::Vector3d(kRt, kRt, kRn).cwiseProduct(gamma - y);
    const double scale = 1e-12 * (1.0 + y.norm());
    EXPECT_LE(gamma.head<2>().norm(), mu * gamma.z() + scale);  // γ ∈ F
    EXPECT_LE(mu * z.head<2>().norm(), z.z() + scale);          // z ∈ F*
    EXPECT_NEAR(gamma.dot(z), 0.0, scale * (1.0 + z.norm()));   // γ ⊥ z
    // ℓ = ½‖γ‖²_R (SAP eq. 24) in every region.
    EXPECT_NEAR(evaluation.cost,
                0.5 * gamma.dot(Eigen::Vector3d(kRt, kRt, kRn).cwiseProduct(gamma)),
                1e-12 * (1.0 + evaluation.cost));
  }
  EXPECT_GT(count[0], 50);
  EXPECT_GT(count[1], 50);
  EXPECT_GT(count[2], 50);
}

TEST(SapFrictionCone, ImpulseIsMinusGradientOfCostInAllRegions) {
  for (double mu : {0.0, 0.3, 1.0, 2.5}) {
    const SapFrictionCone cone = MakeCone(mu);
    for (const Eigen::Vector3d& y : SampleY(mu > 0.0 ? mu : 1.0, 2)) {
      const Eigen::Vector3d v_c = VelocityFromY(cone, y);
      const auto cost = [&cone](const Eigen::VectorXd& v) {
        return cone.EvaluateAt(Eigen::Vector3d(v)).cost;
      };
      const Eigen::Vector3d gradient = NumericalGradient(cost, v_c, 1e-7);
      const Eigen::Vector3d gamma = cone.EvaluateAt(v_c).gamma;
      // Central differences with h = 1e-7: truncation ~h²/R², round-off
      // ~ε ℓ / h ≈ 1e-9 for these magnitudes.
      EXPECT_LT((gamma + gradient).norm(), 1e-6 * (1.0 + gamma.norm())) << "mu " << mu;
    }
  }
}

TEST(SapFrictionCone, HessianIsTheDerivativeOfMinusImpulseAndPositiveSemidefinite) {
  for (double mu : {0.0, 0.3, 1.0, 2.5}) {
    const SapFrictionCone cone = MakeCone(mu);
    for (const Eigen::Vector3d& y : SampleY(mu > 0.0 ? mu : 1.0, 3)) {
      const Eigen::Vector3d v_c = VelocityFromY(cone, y);
      const auto evaluation = cone.EvaluateAt(v_c);
      const auto minus_gamma = [&cone](const Eigen::VectorXd& v) -> Eigen::VectorXd {
        return -cone.EvaluateAt(Eigen::Vector3d(v)).gamma;
      };
      const Eigen::Matrix3d numerical = NumericalJacobian(minus_gamma, v_c, 1e-8);
      const Eigen::Matrix3d& g = evaluation.hessian;
      // The sample stays ≥ 1e-4 relative from region boundaries, far more
      // than h = 1e-8, so γ is smooth on the stencil.
      EXPECT_LT((g - numerical).norm(), 1e-5 * (1.0 + g.norm())) << "mu " << mu;
      EXPECT_LT((g - g.transpose()).norm(), 1e-12 * (1.0 + g.norm()));
      const double min_eigenvalue =
          Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d>(g).eigenvalues().minCoeff();
      EXPECT_GE(min_eigenvalue, -1e-12 * (1.0 + g.norm()));
    }
  }
}

// The line search's fixed-size kernel against finite differences of the
// cost along the line (slope) and of the slope (curvature), and against the
// generic path through Evaluate, in every region.
TEST(SapFrictionCone, LineEvaluationIsTheCostAlongTheLineAndItsDerivatives) {
  std::mt19937 random(7);
  std::normal_distribution<double> normal;
  for (double mu : {0.0, 0.3, 1.0}) {
    const SapFrictionCone cone = MakeCone(mu);
    for (const Eigen::Vector3d& y : SampleY(mu > 0.0 ? mu : 1.0, 4)) {
      const Eigen::Vector3d v_c = VelocityFromY(cone, y);
      // Braces: drawn x, y, z in order (a call's arguments are not).
      const Eigen::Vector3d direction{normal(random), normal(random), normal(random)};
      const double alpha = 1e-3;  // small: the sample's region holds on the stencil
      const auto along = [&](double a, bool curvature) {
        return cone.EvaluateAlongLine(v_c.data(), direction.data(), a, curvature);
      };
      const ConvexConstraint::LineValue value = along(alpha, true);
      const ConvexConstraint::LineValue generic =
          cone.ConvexConstraint::EvaluateAlongLine(v_c.data(), direction.data(), alpha,
                                                   true);
      EXPECT_NEAR(value.cost, generic.cost, 1e-14 * (1.0 + generic.cost));
      EXPECT_NEAR(value.slope, generic.slope, 1e-13 * (1.0 + std::abs(generic.slope)));
      EXPECT_NEAR(value.curvature, generic.curvature, 1e-13 * (1.0 + generic.curvature));
      EXPECT_EQ(along(alpha, false).curvature, 0.0);
      EXPECT_EQ(along(alpha, false).slope, value.slope);
      // Central differences with h = 1e-7 (truncation ~h², round-off ~ε/h).
      const double h = 1e-7;
      const double slope_fd =
          (along(alpha + h, false).cost - along(alpha - h, false).cost) / (2 * h);
      const double curvature_fd =
          (along(alpha + h, false).slope - along(alpha - h, false).slope) / (2 * h);
      EXPECT_NEAR(value.slope, slope_fd, 1e-6 * (1.0 + std::abs(value.slope)));
      EXPECT_NEAR(value.curvature, curvature_fd, 1e-5 * (1.0 + value.curvature));
    }
  }
}

// Where QuadraticAlongSegment answers, its quadratic is ℓ along the segment
// (checked at eleven points against EvaluateAlongLine); it answers for every
// segment inside the stiction cone or the no-contact region (both convex) and
// never when an end slides; segments from stiction to separation are refused.
TEST(SapFrictionCone, QuadraticAlongASegmentInsideOneConvexRegion) {
  for (double mu : {0.3, 1.0}) {
    const SapFrictionCone cone = MakeCone(mu);
    const std::vector<Eigen::Vector3d> ys = SampleY(mu, 5);
    int answered = 0;
    for (size_t k = 0; k + 5 < ys.size(); ++k) {
      // From y_k to y_{k+5} (sampled for the same region, or either side of
      // the same boundary), on the line v_c + αΔ for α in [0.5, 1.5].
      const Eigen::Vector3d v0 = VelocityFromY(cone, ys[k]);
      const Eigen::Vector3d v1 = VelocityFromY(cone, ys[k + 5]);
      const Eigen::Vector3d direction = v1 - v0;
      const Eigen::Vector3d v_c = v0 - 0.5 * direction;
      ConvexConstraint::LineValue q;
      const bool quadratic =
          cone.QuadraticAlongSegment(v_c.data(), direction.data(), 0.5, 1.5, &q);
      const Region r0 = cone.EvaluateAt(v0).region, r1 = cone.EvaluateAt(v1).region;
      EXPECT_EQ(quadratic, r0 == r1 && r0 != Region::kSliding) << "segment " << k;
      if (!quadratic) continue;
      ++answered;
      for (int i = 0; i <= 10; ++i) {
        const double alpha = 0.5 + 0.1 * i;
        const ConvexConstraint::LineValue exact =
            cone.EvaluateAlongLine(v_c.data(), direction.data(), alpha, true);
        const double scale = 1.0 + std::abs(exact.cost) + std::abs(exact.slope);
        EXPECT_NEAR(q.cost + q.slope * alpha + 0.5 * q.curvature * alpha * alpha,
                    exact.cost, 1e-12 * scale);
        EXPECT_NEAR(q.slope + q.curvature * alpha, exact.slope, 1e-12 * scale);
        EXPECT_NEAR(q.curvature, exact.curvature, 1e-12 * (1.0 + exact.curvature));
      }
    }
    EXPECT_GT(answered, 50);
  }
}

TEST(SapFrictionCone, FrictionlessContactPushesOnlyAlongTheNormal) {
  const SapFrictionCone cone = MakeCone(0.0, Eigen::Vector3d::Zero());
  // Approaching with tangential motion: γ = [0, 0, −v_n/Rn].
  auto evaluation = cone.EvaluateAt(Eigen::Vector3d(1.0, -2.0, -0.5));
  EXPECT_EQ(evaluation.gamma.head<2>(), Eigen::Vector2d::Zero());
  EXPECT_DOUBLE_EQ(evaluation.gamma.z(), 0.5 / kRn);
  EXPECT_TRUE(evaluation.hessian.allFinite());
  // Separating along the normal only (y_t = 0, y_n < 0): no impulse.
  evaluation = cone.EvaluateAt(Eigen::Vector3d(0.0, 0.0, 0.5));
  EXPECT_EQ(evaluation.region, Region::kNoContact);
  EXPECT_EQ(evaluation.gamma, Eigen::Vector3d::Zero());
  // Pure normal approach with μ = 0 and y_t = 0.
  evaluation = cone.EvaluateAt(Eigen::Vector3d(0.0, 0.0, -0.5));
  EXPECT_DOUBLE_EQ(evaluation.gamma.z(), 0.5 / kRn);
  EXPECT_TRUE(evaluation.hessian.allFinite());
}

// HasImpulse says whether Evaluate's γ is non-zero, in every region, near
// both boundaries, at the apex y = 0 and on the polar cone's boundary
// (y_n = −μ̂ y_r with y_r = 1, μ̂ = μ Rt/Rn, up to round-off).
TEST(SapFrictionCone, HasAnImpulseExactlyWhereTheImpulseIsNonZero) {
  for (const double mu : {0.5, 1.2}) {
    const SapFrictionCone cone = MakeCone(mu);
    std::vector<Eigen::Vector3d> samples = SampleY(mu, 11);
    samples.push_back(Eigen::Vector3d::Zero());
    samples.push_back(Eigen::Vector3d(0.6, 0.8, -mu * kRt / kRn));
    int with_impulse = 0;
    for (const Eigen::Vector3d& y : samples) {
      const Eigen::Vector3d v_c = VelocityFromY(cone, y);
      const bool expected = !cone.EvaluateAt(v_c, false).gamma.isZero(0.0);
      EXPECT_EQ(cone.HasImpulse(v_c), expected) << "y = " << y.transpose();
      // The base class's definition, through the generic Evaluate.
      EXPECT_EQ(cone.ConvexConstraint::HasImpulse(v_c), expected);
      with_impulse += expected;
    }
    EXPECT_GT(with_impulse, 0);
    EXPECT_LT(with_impulse, static_cast<int>(samples.size()));
  }
}

TEST(SapFrictionCone, AtTheApexTheStictionFormulasApply) {
  const SapFrictionCone cone = MakeCone(0.5, Eigen::Vector3d::Zero());
  const auto evaluation = cone.EvaluateAt(Eigen::Vector3d::Zero());  // y = 0
  EXPECT_EQ(evaluation.region, Region::kStiction);
  EXPECT_EQ(evaluation.gamma, Eigen::Vector3d::Zero());
  EXPECT_TRUE(evaluation.hessian.isApprox(
      Eigen::Vector3d(1 / kRt, 1 / kRt, 1 / kRn).asDiagonal().toDenseMatrix()));
}

TEST(SapFrictionCone, RegularizationFollowsSapEquation29) {
  const double time_step = 0.01;
  ConstraintMatrix w(3, 3);
  w << 2.0, 0.1, 0.0, 0.1, 1.0, 0.2, 0.0, 0.2, 3.0;
  const double w_rms = w.norm() / 3.0;
  SapContactParameters rigid;
  SapFrictionCone near_rigid(rigid, Eigen::Vector3d::Zero());
  near_rigid.Prepare(w, time_step);
  EXPECT_DOUBLE_EQ(near_rigid.rt(), 1e-3 * w_rms);
  EXPECT_DOUBLE_EQ(near_rigid.rn(), w_rms / (4.0 * std::numbers::pi * std::numbers::pi));

  SapContactParameters soft;
  soft.stiffness = 100.0;  // 1/(δt k (δt+τ_d)) = 1/(0.01·100·0.02) = 50 ≫ w/(4π²)
  soft.dissipation_time_scale = 0.01;
  SapFrictionCone compliant(soft, Eigen::Vector3d::Zero());
  compliant.Prepare(w, time_step);
  EXPECT_DOUBLE_EQ(compliant.rn(), 50.0);

  // At a signed distance, with SAP's default τ_d = (β/π) δt: v̂_n = −φ0/(δt +
  // τ_d), and the compliant term 1/(δt k (δt + τ_d)) with that τ_d.
  SapContactParameters default_damping;
  default_damping.stiffness = 300.0;
  default_damping.dissipation_time_scale = -1.0;
  default_damping.near_rigid_threshold = 0.5;
  SapFrictionCone at_distance =
      SapFrictionCone::AtSignedDistance(default_damping, -0.002);
  at_distance.Prepare(w, time_step);
  const double tau_d = 0.5 / std::numbers::pi * time_step;
  EXPECT_DOUBLE_EQ(at_distance.v_hat().z(), 0.002 / (time_step + tau_d));
  EXPECT_EQ(at_distance.v_hat().head<2>(), Eigen::Vector2d::Zero());
  EXPECT_DOUBLE_EQ(at_distance.rn(), 1.0 / (time_step * 300.0 * (time_step + tau_d)));
  EXPECT_FALSE(at_distance.near_rigid());

  ConstraintMatrix six_by_six = ConstraintMatrix::Identity(6, 6);
  EXPECT_THROW(at_distance.Prepare(six_by_six, time_step), std::invalid_argument);
}

TEST(SapFrictionCone, StabilizationVelocityPushesPenetrationOutOverTheTimeScale) {
  EXPECT_DOUBLE_EQ(SapStabilizationVelocity(-0.002, 0.01, 0.01), 0.1);
  // The cone's v̂ is that velocity to the last bit, for the default τ_d too.
  ConstraintMatrix w = ConstraintMatrix::Identity(3, 3);
  SapContactParameters parameters;
  parameters.dissipation_time_scale = -1.0;  // SAP's default (β/π) δt
  for (int i = -100; i <= 100; ++i) {        // rounding differs for some φ0 only
    const double phi0 = 1.37e-4 * i;
    SapFrictionCone cone = SapFrictionCone::AtSignedDistance(parameters, phi0);
    cone.Prepare(w, 0.003);
    const double tau_d =
        SapDissipationTimeScaleOrDefault(-1.0, parameters.near_rigid_threshold, 0.003);
    EXPECT_EQ(cone.v_hat().z(), SapStabilizationVelocity(phi0, 0.003, tau_d));
  }
}

// A cone set anew in place (how a problem rebuilt every step reuses its
// cones) is the cone AtSignedDistance makes: the same regularization, v̂,
// near-rigid flag and impulses after Prepare, whatever it held before; and
// it rejects what AtSignedDistance rejects.
TEST(SapFrictionCone, ResetInPlaceIsTheConeAtSignedDistance) {
  const double time_step = 0.01;
  ConstraintMatrix w(3, 3);
  w << 2.0, 0.1, 0.0, 0.1, 1.0, 0.2, 0.0, 0.2, 3.0;
  SapContactParameters soft;
  soft.stiffness = 100.0;
  soft.dissipation_time_scale = 0.01;
  soft.friction = 0.3;
  SapFrictionCone reused = SapFrictionCone::AtSignedDistance(soft, 0.004);
  reused.Prepare(2.0 * w, time_step);
  SapContactParameters rigid;
  rigid.friction = 0.7;
  rigid.sigma = 2e-3;
  reused.ResetAtSignedDistance(rigid, -0.002);
  SapFrictionCone fresh = SapFrictionCone::AtSignedDistance(rigid, -0.002);
  EXPECT_EQ(reused.rt(), 0.0);  // nothing of the old cone's Prepare is left
  reused.Prepare(w, time_step);
  fresh.Prepare(w, time_step);
  EXPECT_EQ(reused.rt(), fresh.rt());
  EXPECT_EQ(reused.rn(), fresh.rn());
  EXPECT_EQ(reused.v_hat(), fresh.v_hat());
  EXPECT_EQ(reused.near_rigid(), fresh.near_rigid());
  EXPECT_TRUE(fresh.near_rigid());
  for (const Eigen::Vector3d& v_c :
       {Eigen::Vector3d(0.1, -0.2, -0.3), Eigen::Vector3d(0.01, 0.0, 0.02),
        Eigen::Vector3d(-1.0, 0.5, -0.01)}) {
    ConstraintVector gamma_reused, gamma_fresh;
    ConstraintMatrix hessian_reused, hessian_fresh;
    EXPECT_EQ(reused.Evaluate(v_c, &gamma_reused, &hessian_reused),
              fresh.Evaluate(v_c, &gamma_fresh, &hessian_fresh));
    EXPECT_EQ(gamma_reused, gamma_fresh);
    EXPECT_EQ(hessian_reused, hessian_fresh);
  }
  SapContactParameters negative_friction;
  negative_friction.friction = -0.1;
  EXPECT_THROW(reused.ResetAtSignedDistance(negative_friction, 0.0),
               std::invalid_argument);
  EXPECT_THROW(reused.ResetAtSignedDistance(rigid, std::nan("")), std::invalid_argument);
  // Each field of the parameters made NaN or out of range alone is refused,
  // also by a cone that holds valid ones.
  reused.ResetAtSignedDistance(rigid, -0.002);
  for (double SapContactParameters::*field :
       {&SapContactParameters::stiffness, &SapContactParameters::dissipation_time_scale,
        &SapContactParameters::friction, &SapContactParameters::near_rigid_threshold,
        &SapContactParameters::sigma}) {
    for (const double bad : {std::nan(""), -1.0}) {
      if (field == &SapContactParameters::dissipation_time_scale && bad < 0.0) continue;
      SapContactParameters invalid = rigid;
      invalid.*field = bad;
      EXPECT_THROW(reused.ResetAtSignedDistance(invalid, -0.002), std::invalid_argument);
    }
  }
}

TEST(SapFrictionCone, RejectsInvalidParameters) {
  SapContactParameters negative_friction;
  negative_friction.friction = -0.1;
  EXPECT_THROW(SapFrictionCone(negative_friction, Eigen::Vector3d::Zero()),
               std::invalid_argument);
  SapContactParameters nan_stiffness;
  nan_stiffness.stiffness = std::nan("");
  EXPECT_THROW(SapFrictionCone(nan_stiffness, Eigen::Vector3d::Zero()),
               std::invalid_argument);
  SapFrictionCone cone(SapContactParameters{}, Eigen::Vector3d::Zero());
  EXPECT_THROW(cone.Prepare(ConstraintMatrix::Zero(3, 3), 0.01), std::invalid_argument);
}

}  // namespace
}  // namespace coulomb
