#include "coulomb/contact/hunt_crossley.h"

#include <cmath>
#include <random>
#include <stdexcept>

#include <gtest/gtest.h>

#include "coulomb/contact/lagged_contact.h"
#include "coulomb/contact/similar_contact.h"
#include "test_support.h"

namespace coulomb {
namespace {

using testing::NumericalGradient;
using testing::NumericalJacobian;

// δt = 10 ms, k = 1e4 N/m, d = 2 s/m, x0 = 1 mm: f0 = 10 N, v̂ = min(x0/δt,
// 1/d) = 0.1 m/s. Impulses ~0.1 N·s, so finite differences are well scaled.
constexpr double kTimeStep = 0.01;
constexpr double kX0 = 1e-3;

HuntCrossleyParameters Parameters(double mu) {
  HuntCrossleyParameters parameters;
  parameters.stiffness = 1e4;
  parameters.dissipation = 2.0;
  parameters.friction = mu;
  parameters.stiction_tolerance = 1e-2;
  return parameters;
}

ConstraintMatrix Delassus() { return ConstraintMatrix::Identity(3, 3) * 3.0; }  // w = √3

// Velocities in all regimes: stick (‖v_t‖ < ε), slip, approaching,
// separating past v̂, and within 1e-4 of the kink at v̂ on either side.
std::vector<Eigen::Vector3d> SampleVelocities(unsigned seed) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<Eigen::Vector3d> samples;
  for (int k = 0; k < 400; ++k) {
    const double angle = 2.0 * M_PI * unit(random);
    const double slip = (k % 2 == 0 ? 0.02 : 1.0) * unit(random);  // ε = 0.01
    double v_n = 0.0;
    switch (k % 4) {
      case 0:
        v_n = -0.5 * unit(random);
        break;
      case 1:
        v_n = 0.1 * unit(random);
        break;
      case 2:
        v_n = 0.1 + 0.5 * unit(random);
        break;
      case 3:
        v_n = 0.1 + (unit(random) < 0.5 ? -1e-4 : 1e-4);
        break;
    }
    samples.emplace_back(slip * std::cos(angle), slip * std::sin(angle), v_n);
  }
  return samples;
}

// Checks γ = −∂ℓ/∂v_c and G = ∂²ℓ/∂v_c² by central differences, and G ⪰ 0.
// h = 1e-7 (gradient) / 1e-8 (Hessian): truncation ~h² |ℓ'''| ≈ 1e-12,
// round-off ~1e-16 ℓ/h ≈ 1e-10; samples avoid the kink where `kinked` says.
void ExpectConsistentDerivatives(const ConvexConstraint& constraint,
                                 const Eigen::Vector3d& v_c) {
  ConstraintVector gamma;
  ConstraintMatrix g;
  constraint.Evaluate(v_c, &gamma, &g);
  const auto cost = [&constraint](const Eigen::VectorXd& v) {
    ConstraintVector unused;
    return constraint.Evaluate(ConstraintVector(v), &unused, nullptr);
  };
  const auto minus_gamma = [&constraint](const Eigen::VectorXd& v) -> Eigen::VectorXd {
    ConstraintVector impulse;
    constraint.Evaluate(ConstraintVector(v), &impulse, nullptr);
    return -impulse;
  };
  const Eigen::Vector3d gradient = NumericalGradient(cost, v_c, 1e-7);
  EXPECT_LT((Eigen::Vector3d(gamma) + gradient).norm(), 1e-6 * (1.0 + gamma.norm()))
      << "v_c = " << v_c.transpose();
  const Eigen::Matrix3d numerical = NumericalJacobian(minus_gamma, v_c, 1e-8);
  EXPECT_LT((Eigen::Matrix3d(g) - numerical).norm(), 1e-5 * (1.0 + g.norm()))
      << "v_c = " << v_c.transpose();
  EXPECT_LT((g - g.transpose()).norm(), 1e-12 * (1.0 + g.norm()));
  const double min_eigenvalue =
      Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d>(Eigen::Matrix3d(g))
          .eigenvalues()
          .minCoeff();
  EXPECT_GE(min_eigenvalue, -1e-12 * (1.0 + g.norm()));
}

// ℓ(b) ≥ ℓ(a) − γ(a)·(b − a) for all pairs: the first-order convexity test.
void ExpectConvexOnSamples(const ConvexConstraint& constraint, unsigned seed) {
  const std::vector<Eigen::Vector3d> samples = SampleVelocities(seed);
  for (size_t i = 0; i + 1 < samples.size(); ++i) {
    ConstraintVector gamma_a, unused;
    const double cost_a = constraint.Evaluate(samples[i], &gamma_a, nullptr);
    const double cost_b = constraint.Evaluate(samples[i + 1], &unused, nullptr);
    const double tangent =
        cost_a - Eigen::Vector3d(gamma_a).dot(samples[i + 1] - samples[i]);
    EXPECT_GE(cost_b, tangent - 1e-12 * (1.0 + std::abs(cost_b)));
  }
}

TEST(HuntCrossleyNormal, ImpulseIsTheDiscreteHuntCrossleyForce) {
  const HuntCrossleyNormal normal(1e4, 2.0, kX0, kTimeStep);
  EXPECT_DOUBLE_EQ(normal.v_hat(), 0.1);
  for (double v_n : {-1.0, -0.1, 0.0, 0.05, 0.099}) {
    // n = δt k x₊ (1 + d ẋ)₊ with x = x0 − δt v_n, ẋ = −v_n (IRR-13).
    const double x = kX0 - kTimeStep * v_n;
    const double expected = kTimeStep * 1e4 * x * (1.0 - 2.0 * v_n);
    EXPECT_NEAR(normal.Impulse(v_n), expected, 1e-14);
  }
  EXPECT_EQ(normal.Impulse(0.1), 0.0);
  EXPECT_EQ(normal.Impulse(0.3), 0.0);
  // v̂ = 1/d when the dissipation term vanishes first.
  EXPECT_DOUBLE_EQ(HuntCrossleyNormal(1e4, 20.0, kX0, kTimeStep).v_hat(), 0.05);
}

TEST(HuntCrossleyNormal, ImpulseIsTheDerivativeOfThePotential) {
  for (double d : {0.0, 2.0, 20.0}) {
    const HuntCrossleyNormal normal(1e4, d, kX0, kTimeStep);
    for (double v_n = -0.8; v_n < 0.4; v_n += 0.0137) {
      if (std::abs(v_n - normal.v_hat()) < 1e-5) continue;
      const double h = 1e-7;
      const double dn = (normal.Potential(v_n + h) - normal.Potential(v_n - h)) / (2 * h);
      EXPECT_NEAR(normal.Impulse(v_n), dn, 1e-7 * (1 + std::abs(dn))) << v_n;
      const double dn2 = (normal.Impulse(v_n + h) - normal.Impulse(v_n - h)) / (2 * h);
      EXPECT_NEAR(normal.ImpulseDerivative(v_n), dn2, 1e-6 * (1 + std::abs(dn2))) << v_n;
      EXPECT_LE(normal.ImpulseDerivative(v_n), 0.0);
    }
  }
}

TEST(HuntCrossleyNormal, SpeculativeContactActsOnlyWhenTheGapCloses) {
  // 2 mm gap: v̂ = −0.2 m/s, no impulse unless the contact approaches faster.
  const HuntCrossleyNormal normal(1e4, 2.0, -2e-3, kTimeStep);
  EXPECT_DOUBLE_EQ(normal.v_hat(), -0.2);
  EXPECT_EQ(normal.Impulse(-0.1), 0.0);
  EXPECT_GT(normal.Impulse(-0.3), 0.0);
}

TEST(SoftNorm, MatchesItsDefinitionAndSaturates) {
  const SoftNorm small(Eigen::Vector2d(3e-5, 4e-5), 1e-4);  // ‖x‖ = 5e-5
  EXPECT_NEAR(small.value, std::sqrt(5e-5 * 5e-5 + 1e-8) - 1e-4, 1e-18);
  const SoftNorm large(Eigen::Vector2d(3.0, 4.0), 1e-4);
  EXPECT_NEAR(large.tangent.norm(), 1.0, 1e-8);
  EXPECT_NEAR(large.value, 5.0, 1e-4);
  const SoftNorm zero(Eigen::Vector2d::Zero(), 1e-4);
  EXPECT_EQ(zero.value, 0.0);
  EXPECT_TRUE(zero.hessian.isApprox(Eigen::Matrix2d::Identity() * 1e4));
}

TEST(LaggedContact, DerivativesMatchFiniteDifferencesInAllRegimes) {
  for (double mu : {0.0, 0.5, 2.0}) {
    for (double sigma : {0.0, 1.0}) {
      LaggedContact contact(Parameters(mu), -kX0, -0.05, sigma);
      contact.Prepare(Delassus(), kTimeStep);
      for (const Eigen::Vector3d& v_c : SampleVelocities(1)) {
        ExpectConsistentDerivatives(contact, v_c);
      }
      ExpectConvexOnSamples(contact, 2);
    }
  }
}

TEST(LaggedContact, FrictionIsBoundedByTheLaggedImpulse) {
  LaggedContact contact(Parameters(0.5), -kX0, -0.05, 0.0);
  contact.Prepare(Delassus(), kTimeStep);
  // γ_n0 = δt k x0 (1 + d·0.05) = 0.01·10·1.1.
  EXPECT_NEAR(contact.lagged_normal_impulse(), 0.11, 1e-15);
  ConstraintVector gamma;
  contact.Evaluate(Eigen::Vector3d(3.0, 4.0, 0.0), &gamma, nullptr);
  EXPECT_NEAR(gamma.head<2>().norm(), 0.5 * 0.11, 1e-6);
  EXPECT_LT(gamma.head<2>().dot(Eigen::Vector2d(3, 4)), 0.0);  // opposes slip
  // Friction does not depend on v_n: uncoupled.
  ConstraintVector separated;
  contact.Evaluate(Eigen::Vector3d(3.0, 4.0, 0.5), &separated, nullptr);
  EXPECT_EQ(separated(2), 0.0);
  EXPECT_EQ(separated.head<2>(), gamma.head<2>());
}

TEST(LaggedContact, RegularizedVariantLoosensStictionOnlyForLargeImpulses) {
  // IRR-44: ε = max(v_s, σ w μ γ_n0), w = ‖W‖_F/3 = √3.
  LaggedContact resting(Parameters(1.0), -kX0, 0.0, 1e-3);
  resting.Prepare(Delassus(), kTimeStep);
  EXPECT_EQ(resting.stiction_tolerance(), 1e-2);
  LaggedContact impact(Parameters(1.0), -0.5, -1.0, 1e-3);  // γ_n0 = 0.01·5000·3
  impact.Prepare(Delassus(), kTimeStep);
  EXPECT_NEAR(impact.stiction_tolerance(), 1e-3 * std::sqrt(3.0) * 150.0, 1e-12);
}

TEST(SimilarContact, DerivativesMatchFiniteDifferencesAwayFromTheKink) {
  for (double mu : {0.0, 0.5, 2.0}) {
    SimilarContact contact(Parameters(mu), -kX0);
    contact.Prepare(Delassus(), kTimeStep);
    for (const Eigen::Vector3d& v_c : SampleVelocities(3)) {
      // The kink is at z = v_n − μ‖v_t‖_s = v̂ = 0.1.
      const double z = v_c(2) - mu * SoftNorm(v_c.head<2>(), 1e-2).value;
      if (std::abs(z - 0.1) < 1e-6) continue;
      ExpectConsistentDerivatives(contact, v_c);
    }
    ExpectConvexOnSamples(contact, 4);
  }
}

TEST(SimilarContact, FrictionIsCoulombOfTheCoupledNormalImpulse) {
  SimilarContact contact(Parameters(0.7), -kX0);
  contact.Prepare(Delassus(), kTimeStep);
  ConstraintVector gamma;
  contact.Evaluate(Eigen::Vector3d(30.0, 40.0, -0.2), &gamma, nullptr);
  EXPECT_GT(gamma(2), 0.0);
  EXPECT_NEAR(gamma.head<2>().norm(), 0.7 * gamma(2), 1e-5 * gamma(2));
  // Sliding makes the normal impulse act at z = v_n − μ‖v_t‖_s: it releases
  // only when v_n > v̂ + μ‖v_t‖_s (gliding, IRR §VII).
  ConstraintVector gliding;
  contact.Evaluate(Eigen::Vector3d(0.1, 0.0, 0.12), &gliding, nullptr);
  EXPECT_GT(gliding(2), 0.0);
}

TEST(HuntCrossleyParameters, RejectsInvalidValues) {
  HuntCrossleyParameters infinite = Parameters(1.0);
  infinite.stiffness = std::numeric_limits<double>::infinity();
  EXPECT_THROW(ValidateHuntCrossleyParameters(infinite), std::invalid_argument);
  HuntCrossleyParameters negative_d = Parameters(1.0);
  negative_d.dissipation = -1.0;
  EXPECT_THROW(ValidateHuntCrossleyParameters(negative_d), std::invalid_argument);
  HuntCrossleyParameters zero_vs = Parameters(1.0);
  zero_vs.stiction_tolerance = 0.0;
  EXPECT_THROW(SimilarContact(zero_vs, 0.0), std::invalid_argument);
  EXPECT_THROW(LaggedContact(Parameters(1.0), std::nan(""), 0.0), std::invalid_argument);
}

}  // namespace
}  // namespace coulomb
