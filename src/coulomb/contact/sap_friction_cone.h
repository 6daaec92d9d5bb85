#pragma once

#include <limits>
#include <optional>
#include <utility>

#include <Eigen/Dense>

#include "coulomb/contact/convex_constraint.h"

namespace coulomb {

// SAP's regularization defaults, the one place they are set (SAP §V-B, the
// paper's values): β, the near-rigid threshold of eq. 29 (a contact is
// near-rigid when its natural period is below β δt), and σ, the tangential
// regularization relative to the Delassus estimate.
inline constexpr double kDefaultNearRigidThreshold = 1.0;
inline constexpr double kDefaultSigma = 1e-3;

// Physical parameters of a SAP contact (SAP §V). Defaults model a rigid,
// inelastic contact with μ = 1, the paper's choices.
struct SapContactParameters {
  // k [N/m], > 0. +∞ selects the near-rigid regime.
  double stiffness = std::numeric_limits<double>::infinity();
  // τ_d [s], ≥ 0: dissipation time scale (τ_d = δt models inelastic contact).
  // Negative: SAP's near-rigid default (β/π) δt, resolved by Prepare.
  double dissipation_time_scale = 0.0;
  // μ ≥ 0, dimensionless. μ = 0 is frictionless.
  double friction = 1.0;
  // β > 0: near-rigid threshold; contact is near-rigid when its natural period
  // is below β δt (SAP eq. 29, β = 1 in the paper).
  double near_rigid_threshold = kDefaultNearRigidThreshold;
  // σ > 0: tangential regularization relative to the Delassus estimate,
  // Rt = σ w (SAP §V-B, σ = 1e-3: slip during stiction ≈ μ σ δt g).
  double sigma = kDefaultSigma;
};

// Throws std::invalid_argument naming the offending field.
void ValidateSapContactParameters(const SapContactParameters& parameters);

// SAP's normal regularization (SAP eq. 29): the larger of the near-rigid
// β²/(4π²) w and the compliant 1/(δt k (δt + τ_d)) (0 for k = ∞). w: the
// Delassus estimate [m/(N·s)].
double SapNormalRegularization(double w, double stiffness, double dissipation_time_scale,
                               double near_rigid_threshold, double time_step);

// w = |W_11|, the Delassus estimate of a one-row constraint [m/(N·s)];
// throws std::invalid_argument "<constraint>: zero or non-finite Delassus
// estimate" unless it is positive and finite.
double ScalarDelassusEstimate(const ConstraintMatrix& delassus_estimate,
                              const char* constraint);

// τ_d when the user gave none (negative): (β/π) δt, critical damping of a
// near-rigid contact (SAP §V-B).
double SapDissipationTimeScaleOrDefault(double given, double near_rigid_threshold,
                                        double time_step);

// v̂_n = −φ0 / (δt + τ_d), the normal stabilization velocity (SAP §V-A).
double SapStabilizationVelocity(double phi0, double time_step,
                                double dissipation_time_scale);

// Friction cone constraint of SAP (SAP §V-A, eqs. 24, 28–30, App. C–D).
//
// Constraint velocity v_c = [v_t; v_n] in the contact frame (z along the
// normal; v_n > 0 when the bodies separate). With R = diag(Rt, Rt, Rn) and
// y = −R⁻¹(v_c − v̂_c), the impulse is γ = P_F(y), the projection onto the
// friction cone F = {‖γ_t‖ ≤ μ γ_n} in the R norm, and the cost is
// ℓ = ½‖γ‖²_R. Three regions (docs/math.md §2.2): stiction (y ∈ F), sliding,
// no contact (y in the polar cone). On the boundary of F the stiction
// formulas are used, on the boundary of the polar cone the sliding ones.
// Regularization from the Delassus estimate w = ‖W_ii‖_F / 3 (SAP eq. 29):
//   Rn = max(β²/(4π²) w, 1/(δt k (δt + τ_d))),   Rt = σ w.
// Units: v [m/s], γ [N·s], R [m/(N·s)].
class SapFrictionCone final : public ConvexConstraint {
 public:
  enum class Region { kStiction, kSliding, kNoContact };

  struct Evaluation {
    double cost = 0.0;
    Eigen::Vector3d gamma = Eigen::Vector3d::Zero();
    Eigen::Matrix3d hessian = Eigen::Matrix3d::Zero();
    Region region = Region::kNoContact;
  };

  // v_hat: the stabilization velocity v̂_c [m/s] (often [0, 0, v̂_n]).
  SapFrictionCone(const SapContactParameters& parameters, const Eigen::Vector3d& v_hat);
  // A contact at signed distance φ0 [m] (< 0: overlapping): Prepare sets
  // v̂ = [0, 0, −φ0/(δt + τ_d)] once δt is known (SAP §V-A).
  static SapFrictionCone AtSignedDistance(const SapContactParameters& parameters,
                                          double phi0);
  // Makes this cone AtSignedDistance(parameters, φ0) in place, field by
  // field: a problem rebuilt every step sets its cones without copying a
  // whole temporary (whose fields, just written one by one, would be read
  // back two at a time: a stalled store forwarding).
  void ResetAtSignedDistance(const SapContactParameters& parameters, double phi0);

  int num_equations() const override { return 3; }
  void Prepare(const ConstraintMatrix& delassus_estimate, double time_step) override;
  double Evaluate(const ConstraintVector& v_c, ConstraintVector* gamma,
                  ConstraintMatrix* hessian) const override;
  double EvaluateOnStorage(const double* v_c, double* gamma,
                           double* hessian) const override;
  LineValue EvaluateAlongLine(const double* v_c, const double* direction, double alpha,
                              bool with_curvature) const override;
  // γ ≠ 0 exactly when s = y_n + μ̂ y_r > 0: s < 0 is no contact, s = 0
  // either y = 0 (stiction) or the polar cone's boundary (γ_n = s/(1 + μμ̂)).
  bool HasImpulse(const ConstraintVector& v_c) const override;
  // s = y_n + μ̂ y_r ≤ 0 is the region without contact (ℓ = 0, G = 0) and
  // its boundary s = 0, where γ = 0 but G need not vanish: a set of measure
  // zero, which the working set and SAP's islands treat as without contact.
  bool VanishesWithoutImpulse() const override { return true; }
  // Stiction and no contact are convex regions (the cone and its polar in
  // y = −R⁻¹(v_c − v̂)) where ℓ is ½ yᵀRy and 0: a segment whose ends are
  // in the same one of them lies in it.
  bool QuadraticAlongSegment(const double* v_c, const double* direction, double alpha0,
                             double alpha1, LineValue* quadratic) const override;
  double ComplementarityProduct(const ConstraintVector& v_c,
                                const ConstraintVector& gamma) const override;

  // Cost, impulse, region and, unless with_hessian is false, the Hessian at
  // v_c (the fixed-size kernel).
  Evaluation EvaluateAt(const Eigen::Vector3d& v_c, bool with_hessian = true) const;

  // Sets Rt, Rn directly (tests; Prepare computes them from W_ii).
  void SetRegularization(double rt, double rn);

  // Coulomb with μ and the position feedback e = −v̂ (the rigid limit of SAP's
  // regularized cone).
  RigidLaw rigid_law() const override;
  // Rn's near-rigid term β²w/(4π²) won over the contact's compliance.
  bool near_rigid() const override { return near_rigid_; }

  double friction() const { return parameters_.friction; }
  double rt() const { return rt_; }
  double rn() const { return rn_; }
  const Eigen::Vector3d& v_hat() const { return v_hat_; }

 private:
  SapContactParameters parameters_;
  std::optional<double> phi0_;  // set: v̂ follows from φ0 in Prepare
  Eigen::Vector3d v_hat_;
  // y = −R⁻¹(v_c − v̂), and the region of ℓ where y lies (from y_n and
  // y_r = ‖y_t‖).
  Eigen::Vector3d ScaledImpulse(const Eigen::Vector3d& v_c) const {
    return -(v_c - v_hat_).cwiseProduct(r_inverse_);
  }
  Region RegionOf(double y_n, double y_r) const {
    if (y_n >= 0.0 && y_r <= parameters_.friction * y_n) return Region::kStiction;
    if (y_n < -mu_hat_ * y_r) return Region::kNoContact;
    return Region::kSliding;
  }
  // What EvaluateInto and EvaluateAlongLine both build from v_c: y, y_r,
  // the region and ℓ; in the sliding region also t̂ = y_t/y_r (0 at y_r = 0),
  // s = y_n + μ̂ y_r, 1/(1 + μμ̂) and γ_n = s/(1 + μμ̂).
  struct ConePoint {
    Eigen::Vector3d y;
    double y_r = 0.0;
    Region region = Region::kNoContact;
    double cost = 0.0;
    Eigen::Vector2d t_hat = Eigen::Vector2d::Zero();
    double s = 0.0;
    double scale = 0.0;
    double gamma_n = 0.0;
  };
  ConePoint PointAt(const Eigen::Vector3d& v_c) const;
  // EvaluateAt's work, γ written to gamma (3 entries) and, unless null, G to
  // hessian (3 × 3, column-major); returns ℓ and the region.
  std::pair<double, Region> EvaluateInto(const Eigen::Vector3d& v_c, double* gamma,
                                         double* hessian) const;

  double rt_ = 0.0;
  double rn_ = 0.0;
  Eigen::Vector3d r_inverse_ = Eigen::Vector3d::Zero();  // (1/Rt, 1/Rt, 1/Rn)
  double mu_hat_ = 0.0;                                  // μ̂ = μ Rt / Rn
  double sliding_scale_ = 0.0;                           // 1 / (1 + μ μ̂)
  bool near_rigid_ = false;
};

}  // namespace coulomb
