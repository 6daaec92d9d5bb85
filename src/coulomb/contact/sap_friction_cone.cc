#include "coulomb/contact/sap_friction_cone.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>

namespace coulomb {
namespace {

[[noreturn, gnu::cold, gnu::noinline]] void ThrowRequirement(const char* field,
                                                             const char* requirement,
                                                             double value) {
  throw std::invalid_argument(std::string(field) + ": " + requirement + ", got " +
                              std::to_string(value));
}

// Every contact's parameters are checked at every step: the message is
// built out of line, only when a check fails.
inline void Require(bool condition, const char* field, const char* requirement,
                    double value) {
  if (!condition) [[unlikely]]
    ThrowRequirement(field, requirement, value);
}

constexpr double kOneOverPi = std::numbers::inv_pi;

// The errors of a contact's set-up, out of line: the strings they build
// would otherwise give Prepare, run for every contact at every step, a
// large stack frame and keep SetRegularization from being inlined.
[[noreturn, gnu::cold, gnu::noinline]] void ThrowDelassusShape(Eigen::Index rows,
                                                               Eigen::Index cols) {
  throw std::invalid_argument("Delassus estimate of a contact: expected 3×3, got " +
                              std::to_string(rows) + "×" + std::to_string(cols));
}

[[noreturn, gnu::cold, gnu::noinline]] void ThrowDelassusNorm(double w) {
  throw std::invalid_argument("Delassus estimate ‖W_ii‖/3 = " + std::to_string(w) +
                              ": the contact Jacobian is zero or not finite");
}

[[noreturn, gnu::cold, gnu::noinline]] void ThrowRegularization(double rt, double rn) {
  throw std::invalid_argument("SAP regularization must be positive: Rt = " +
                              std::to_string(rt) + ", Rn = " + std::to_string(rn));
}

// SAP eq. 29's two terms (SapNormalRegularization is the larger): the
// near-rigid β²/(4π²) w and the compliant 1/(δt k (δt + τ_d)), 0 for k = ∞.
// Constants are multiplied, not divided by: every contact is prepared at
// every step, and a chain of divisions is what it waits on.
double SapNearRigidRegularization(double w, double near_rigid_threshold) {
  constexpr double kOneOverFourPiSquared = 0.25 * kOneOverPi * kOneOverPi;
  const double beta = near_rigid_threshold;
  return beta * beta * kOneOverFourPiSquared * w;
}

// relaxation = δt + τ_d; one division, which does not wait on v̂'s
// 1/(δt + τ_d).
double SapCompliantRegularization(double stiffness, double relaxation, double time_step) {
  return std::isinf(stiffness) ? 0.0 : 1.0 / (time_step * stiffness * relaxation);
}

}  // namespace

void ValidateSapContactParameters(const SapContactParameters& p) {
  Require(p.stiffness > 0.0, "stiffness", "must be positive (or +inf)", p.stiffness);
  Require(std::isfinite(p.dissipation_time_scale), "dissipation_time_scale",
          "must be finite (negative: the near-rigid default)", p.dissipation_time_scale);
  Require(std::isfinite(p.friction) && p.friction >= 0.0, "friction",
          "must be finite and ≥ 0", p.friction);
  Require(std::isfinite(p.near_rigid_threshold) && p.near_rigid_threshold > 0.0,
          "near_rigid_threshold", "must be finite and positive", p.near_rigid_threshold);
  Require(std::isfinite(p.sigma) && p.sigma > 0.0, "sigma", "must be finite and positive",
          p.sigma);
}

double ScalarDelassusEstimate(const ConstraintMatrix& delassus_estimate,
                              const char* constraint) {
  const double w = std::abs(delassus_estimate(0, 0));
  if (!(w > 0.0) || !std::isfinite(w)) {
    throw std::invalid_argument(std::string(constraint) +
                                ": zero or non-finite Delassus estimate");
  }
  return w;
}

double SapNormalRegularization(double w, double stiffness, double dissipation_time_scale,
                               double near_rigid_threshold, double time_step) {
  return std::max(SapNearRigidRegularization(w, near_rigid_threshold),
                  SapCompliantRegularization(
                      stiffness, time_step + dissipation_time_scale, time_step));
}

double SapDissipationTimeScaleOrDefault(double given, double near_rigid_threshold,
                                        double time_step) {
  return given >= 0.0 ? given : near_rigid_threshold * kOneOverPi * time_step;
}

double SapStabilizationVelocity(double phi0, double time_step,
                                double dissipation_time_scale) {
  // Times the reciprocal, as the cones have formed v̂ (−φ0/(δt + τ_d) rounds
  // differently, which leads the chaotic clutter to other trajectories).
  return -phi0 * (1.0 / (time_step + dissipation_time_scale));
}

SapFrictionCone::SapFrictionCone(const SapContactParameters& parameters,
                                 const Eigen::Vector3d& v_hat)
    : parameters_(parameters), v_hat_(v_hat) {
  ValidateSapContactParameters(parameters);
  if (!v_hat.allFinite()) throw std::invalid_argument("v_hat: must be finite");
}

void SapFrictionCone::Prepare(const ConstraintMatrix& delassus_estimate,
                              double time_step) {
  if (delassus_estimate.rows() != 3 || delassus_estimate.cols() != 3)
    ThrowDelassusShape(delassus_estimate.rows(), delassus_estimate.cols());
  constexpr double kOneThird = 1.0 / 3.0;
  // ‖W_ii‖_F / 3 (SAP §V-B), summed at fixed size.
  const double w =
      Eigen::Map<const Eigen::Matrix3d>(delassus_estimate.data()).norm() * kOneThird;
  if (!(w > 0.0) || !std::isfinite(w)) ThrowDelassusNorm(w);
  const double beta = parameters_.near_rigid_threshold;
  const double tau_d = SapDissipationTimeScaleOrDefault(
      parameters_.dissipation_time_scale, beta, time_step);
  // v̂ = −φ0/(δt + τ_d) (SAP §V-A).
  if (phi0_) v_hat_ = {0.0, 0.0, SapStabilizationVelocity(*phi0_, time_step, tau_d)};
  const double relaxation = time_step + tau_d;
  const double near_rigid = SapNearRigidRegularization(w, beta);
  const double compliant =
      SapCompliantRegularization(parameters_.stiffness, relaxation, time_step);
  SetRegularization(parameters_.sigma * w, std::max(near_rigid, compliant));
  near_rigid_ = near_rigid > compliant;
}

SapFrictionCone SapFrictionCone::AtSignedDistance(const SapContactParameters& parameters,
                                                  double phi0) {
  SapFrictionCone cone(parameters, Eigen::Vector3d::Zero());
  cone.ResetAtSignedDistance(parameters, phi0);
  return cone;
}

void SapFrictionCone::ResetAtSignedDistance(const SapContactParameters& parameters,
                                            double phi0) {
  ValidateSapContactParameters(parameters);
  if (!std::isfinite(phi0)) throw std::invalid_argument("phi0: must be finite");
  parameters_.stiffness = parameters.stiffness;
  parameters_.dissipation_time_scale = parameters.dissipation_time_scale;
  parameters_.friction = parameters.friction;
  parameters_.near_rigid_threshold = parameters.near_rigid_threshold;
  parameters_.sigma = parameters.sigma;
  phi0_ = phi0;
  v_hat_.setZero();
  // What Prepare sets, as a new cone has it (every member is set here).
  rt_ = rn_ = mu_hat_ = sliding_scale_ = 0.0;
  r_inverse_.setZero();
  near_rigid_ = false;
}

RigidLaw SapFrictionCone::rigid_law() const {
  return {.kind = RigidLaw::Kind::kContact,
          .friction = parameters_.friction,
          .offset = -v_hat_,
          .regularization = Eigen::Vector3d(rt_, rt_, rn_)};
}

void SapFrictionCone::SetRegularization(double rt, double rn) {
  if (!(rt > 0.0) || !(rn > 0.0)) ThrowRegularization(rt, rn);
  rt_ = rt;
  rn_ = rn;
  // 1/Rt and 1/Rn in one packed division. 1/(1 + μμ̂) is formed from the
  // μ̂ the sliding region uses (s = y_n + μ̂ y_r), so that γ_n = s/(1 + μμ̂)
  // meets the stiction region's γ_n = y_n on the cone to the last bit
  // (docs/performance_notes.md: Rn/(Rn + μ² Rt) rounds differently).
  const double mu = parameters_.friction;
  const Eigen::Array2d inverses = 1.0 / Eigen::Array2d(rt, rn);
  r_inverse_ = Eigen::Vector3d(inverses[0], inverses[0], inverses[1]);
  mu_hat_ = mu * rt * inverses[1];  // μ̂ = μ Rt / Rn
  sliding_scale_ = 1.0 / (1.0 + mu * mu_hat_);
}

SapFrictionCone::Evaluation SapFrictionCone::EvaluateAt(const Eigen::Vector3d& v_c,
                                                        bool with_hessian) const {
  Evaluation result;
  std::tie(result.cost, result.region) = EvaluateInto(
      v_c, result.gamma.data(), with_hessian ? result.hessian.data() : nullptr);
  return result;
}

// Inlined into both callers: a call returning the point through memory costs
// more than the evaluations around it.
[[gnu::always_inline]] inline SapFrictionCone::ConePoint SapFrictionCone::PointAt(
    const Eigen::Vector3d& v_c) const {
  ConePoint point;
  point.y = ScaledImpulse(v_c);
  const double y_n = point.y.z();
  point.y_r = point.y.head<2>().norm();
  point.region = RegionOf(y_n, point.y_r);
  if (point.region == Region::kStiction) {  // γ = y
    point.cost = 0.5 * (rt_ * point.y_r * point.y_r + rn_ * y_n * y_n);
  } else if (point.region == Region::kSliding) {
    if (point.y_r > 0.0) point.t_hat = point.y.head<2>() / point.y_r;
    point.s = y_n + mu_hat_ * point.y_r;  // ≥ 0 in this region
    point.scale = sliding_scale_;
    point.gamma_n = point.s * point.scale;
    point.cost = 0.5 * rn_ * point.s * point.s * point.scale;
  }
  return point;
}

std::pair<double, SapFrictionCone::Region> SapFrictionCone::EvaluateInto(
    const Eigen::Vector3d& v_c, double* gamma_out, double* hessian_out) const {
  Eigen::Map<Eigen::Vector3d> gamma(gamma_out);
  const ConePoint point = PointAt(v_c);
  if (point.region == Region::kStiction) {
    gamma = point.y;
    if (hessian_out != nullptr) {  // R⁻¹ R R⁻¹
      Eigen::Map<Eigen::Matrix3d> hessian(hessian_out);
      hessian = r_inverse_.asDiagonal();
    }
    return {point.cost, point.region};
  }
  if (point.region == Region::kNoContact) {  // γ = 0, ℓ = 0, G = 0
    gamma.setZero();
    if (hessian_out != nullptr) Eigen::Map<Eigen::Matrix3d>{hessian_out}.setZero();
    return {0.0, point.region};
  }
  const double mu_hat = mu_hat_;
  const Eigen::Vector2d& t_hat = point.t_hat;
  gamma << parameters_.friction * point.gamma_n * t_hat, point.gamma_n;
  if (hessian_out == nullptr) return {point.cost, point.region};

  // ∇²_y ℓ_R (SAP App. D), then G = R⁻¹ ∇²_y ℓ_R R⁻¹.
  Eigen::Matrix3d hessian_y;
  const Eigen::Matrix2d p = t_hat * t_hat.transpose();
  Eigen::Matrix2d tangential = mu_hat * mu_hat * p;
  if (mu_hat > 0.0)
    tangential += mu_hat * point.s / point.y_r * (Eigen::Matrix2d::Identity() - p);
  hessian_y.topLeftCorner<2, 2>() = tangential;
  hessian_y.topRightCorner<2, 1>() = mu_hat * t_hat;
  hessian_y.bottomLeftCorner<1, 2>() = mu_hat * t_hat.transpose();
  hessian_y(2, 2) = 1.0;
  hessian_y *= rn_ * point.scale;
  Eigen::Map<Eigen::Matrix3d> hessian(hessian_out);
  hessian = r_inverse_.asDiagonal() * hessian_y * r_inverse_.asDiagonal();
  return {point.cost, point.region};
}

double SapFrictionCone::Evaluate(const ConstraintVector& v_c, ConstraintVector* gamma,
                                 ConstraintMatrix* hessian) const {
  gamma->resize(3);
  if (hessian != nullptr) hessian->resize(3, 3);
  return EvaluateInto(Eigen::Vector3d(v_c), gamma->data(),
                      hessian != nullptr ? hessian->data() : nullptr)
      .first;
}

double SapFrictionCone::EvaluateOnStorage(const double* v_c, double* gamma,
                                          double* hessian) const {
  return EvaluateInto(Eigen::Map<const Eigen::Vector3d>(v_c), gamma, hessian).first;
}

// ℓ(v_c + αΔ): dℓ/dα = −Δ·γ and d²ℓ/dα² = ΔᵀGΔ = uᵀ(∇²_y ℓ_R)u with u = R⁻¹Δ,
// the quadratic form of EvaluateAt's Hessian written out, without forming it.
ConvexConstraint::LineValue SapFrictionCone::EvaluateAlongLine(
    const double* v_c, const double* direction, double alpha, bool with_curvature) const {
  const Eigen::Map<const Eigen::Vector3d> delta(direction);
  const ConePoint point = PointAt(Eigen::Map<const Eigen::Vector3d>(v_c) + alpha * delta);
  LineValue value;
  if (point.region == Region::kNoContact) return value;  // ℓ = 0 about here
  value.cost = point.cost;
  const Eigen::Vector3d u = r_inverse_.cwiseProduct(delta);
  if (point.region == Region::kStiction) {  // γ = y, G = R⁻¹
    value.slope = -delta.dot(point.y);
    if (with_curvature) value.curvature = delta.dot(u);
    return value;
  }
  const Eigen::Vector2d& t_hat = point.t_hat;
  value.slope =
      -point.gamma_n * (parameters_.friction * t_hat.dot(delta.head<2>()) + delta.z());
  if (!with_curvature) return value;
  const double u_along = t_hat.dot(u.head<2>());  // u_t's component along t̂
  double form = mu_hat_ * u_along * (mu_hat_ * u_along + 2.0 * u.z()) + u.z() * u.z();
  if (mu_hat_ > 0.0)
    form +=
        mu_hat_ * point.s / point.y_r * (u.head<2>().squaredNorm() - u_along * u_along);
  value.curvature = rn_ * point.scale * form;
  return value;
}

bool SapFrictionCone::HasImpulse(const ConstraintVector& v_c) const {
  const Eigen::Vector3d y = ScaledImpulse(Eigen::Vector3d(v_c));
  return y.z() + mu_hat_ * y.head<2>().norm() > 0.0;
}

bool SapFrictionCone::QuadraticAlongSegment(const double* v_c, const double* direction,
                                            double alpha0, double alpha1,
                                            LineValue* quadratic) const {
  const Eigen::Map<const Eigen::Vector3d> v(v_c), delta(direction);
  const auto region_at = [&](double alpha) {
    const Eigen::Vector3d y = ScaledImpulse(v + alpha * delta);
    return RegionOf(y.z(), y.head<2>().norm());
  };
  const Region region = region_at(alpha0);
  if (region == Region::kSliding || region_at(alpha1) != region) return false;
  *quadratic = LineValue{};
  if (region == Region::kNoContact) return true;
  // ℓ = ½ eᵀR⁻¹e with e = v_c + αΔ − v̂ (γ = y = −R⁻¹e).
  const Eigen::Vector3d error = v - v_hat_;
  const Eigen::Vector3d r_inverse_delta = r_inverse_.cwiseProduct(delta);
  quadratic->cost = 0.5 * error.dot(r_inverse_.cwiseProduct(error));
  quadratic->slope = error.dot(r_inverse_delta);
  quadratic->curvature = delta.dot(r_inverse_delta);
  return true;
}

double SapFrictionCone::ComplementarityProduct(const ConstraintVector& v_c,
                                               const ConstraintVector& gamma) const {
  const Eigen::Vector3d g =
      Eigen::Vector3d(v_c) - v_hat_ + Eigen::Vector3d(rt_, rt_, rn_).cwiseProduct(gamma);
  return g.dot(gamma);
}

}  // namespace coulomb
