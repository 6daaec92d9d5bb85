#pragma once

#include <Eigen/Dense>

#include "coulomb/contact/convex_constraint.h"

namespace coulomb {

// The near-rigid clamp of a Hunt & Crossley contact (docs/math.md §3.6):
// a contact of stiffness k and Delassus scale w [1/kg] oscillates with the
// period T = 2π/√(k w). A step of δt cannot resolve T ≪ δt, and its Newton
// system stops being solvable in floating point (the Hessian's scaled
// condition number grows like δt² k w: at δt = 10 ms the 40-body clutter's
// Lagged steps stall at e_m ≈ 1e-5 from k ≈ 1e9 N/m on). The clamp keeps
// T ≥ β_HC δt: k_eff = min(k, (2π / (β_HC δt))² / w). SAP's own near-rigid
// regime is β = 1 (T ≥ δt, SAP §V); Hunt & Crossley keeps its physics
// fifty times further, down to T = δt/50 (δt² k w ≤ (2π/β_HC)² ≈ 1e5),
// where the clutter still converges to ε_r = 1e-6.
inline constexpr double kDefaultHuntCrossleyNearRigidThreshold = 0.02;
// k_eff [N/m] for stiffness k, Delassus scale w > 0, step δt; k if β = 0.
double NearRigidStiffness(double stiffness, double w, double time_step, double beta);

// Physical parameters of a Hunt & Crossley contact with regularized friction
// (IRR §IV–V), shared by the Lagged and Similar models.
struct HuntCrossleyParameters {
  // k [N/m], finite and > 0. The IRR paper models steel with 1e7.
  double stiffness = 1e7;
  // d [s/m] ≥ 0: Hunt & Crossley dissipation, f_n = k x (1 + d ẋ)₊. The
  // default 10 s/m is the IRR clutter value (IRR §X-A).
  double dissipation = 10.0;
  // μ ≥ 0, dimensionless.
  double friction = 1.0;
  // v_s [m/s] > 0: the slip speed at which friction saturates (the ε of the
  // soft norm). 1e-4 m/s is IRR's value for manipulation (IRR §IX).
  double stiction_tolerance = 1e-4;
  // β_HC ≥ 0 of the near-rigid clamp (NearRigidStiffness; 0 turns it off).
  double near_rigid_threshold = kDefaultHuntCrossleyNearRigidThreshold;
};

// Throws std::invalid_argument naming the offending field.
void ValidateHuntCrossleyParameters(const HuntCrossleyParameters& parameters);

// The discrete Hunt & Crossley normal impulse as a function of the normal
// velocity v_n (IRR-13 … IRR-16, docs/math.md §3.1).
//
// Over one step the penetration is x = x0 − δt v_n and its rate ẋ = −v_n, so
// the impulse is n(v_n) = δt k x₊ (1 + d ẋ)₊ = δt (f0 − δt k v_n)(1 − d v_n)
// for v_n < v̂ = min(x0/δt, 1/d), and 0 above. Its antiderivative, written
// with f0 = k x0 and Δf = −δt k v_n so that it stays well conditioned when k
// is small and x0 large (IRR §IV), is
//   N⁺(v_n) = δt [ v_n (f0 + ½Δf) − d v_n²/2 · (f0 + ⅔Δf) ],
//   N(v_n)  = N⁺(min(v_n, v̂)),
// concave (n' ≤ 0) and C¹. A contact model's normal cost is −N. Potential()
// returns N(v_n) − N(v̂) ≤ 0, evaluated as −∫ n over [v_n, v̂] in powers of
// v̂ − v_n: the constant N(v̂) (up to 1e5 J·s for a fast speculative contact
// at k = 1e7) would otherwise dominate the total cost and its round-off.
// Units: v [m/s], impulses [N·s], x0 [m] (negative for a gap, which makes
// the contact speculative: it acts only when v_n < x0/δt closes the gap).
class HuntCrossleyNormal {
 public:
  HuntCrossleyNormal() = default;
  // x0 = −φ0 [m], the penetration at the start of the step.
  HuntCrossleyNormal(double stiffness, double dissipation, double x0, double time_step);

  double v_hat() const { return v_hat_; }
  double Potential(double v_n) const;          // N(v_n) − N(v̂) ≤ 0 [J·s]
  double Impulse(double v_n) const;            // n(v_n) = N'(v_n) ≥ 0 [N·s]
  double ImpulseDerivative(double v_n) const;  // n'(v_n) ≤ 0 [N·s²/m]

 private:
  double stiffness_ = 0.0;
  double dissipation_ = 0.0;
  double f0_ = 0.0;  // k x0 [N]
  double time_step_ = 0.0;
  double v_hat_ = 0.0;
};

// The rigid counterpart of a Hunt & Crossley contact for the exact NCP
// solvers: Coulomb with μ and SAP's position feedback e_n = φ0/(δt + τ_d),
// τ_d = (β/π) δt at the default β (SAP §V-B), as a SAP contact would get.
RigidLaw HuntCrossleyRigidLaw(double friction, double phi0, double time_step);

// The soft norm ‖x‖_s = √(‖x‖² + ε²) − ε of a tangential velocity and its
// derivatives (IRR-18, IRR App. A): gradient t̂_s = x / √(‖x‖² + ε²), Hessian
// (I − t̂_s t̂_sᵀ) / (‖x‖_s + ε). ε > 0 [m/s].
struct SoftNorm {
  SoftNorm(const Eigen::Vector2d& x, double epsilon);
  double value;             // ‖x‖_s
  Eigen::Vector2d tangent;  // t̂_s, ‖t̂_s‖ < 1
  Eigen::Matrix2d hessian;  // ∂²‖x‖_s/∂x²
};

}  // namespace coulomb
