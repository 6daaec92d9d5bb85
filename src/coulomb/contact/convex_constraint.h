#pragma once

#include <memory>
#include <typeinfo>
#include <utility>

#include <Eigen/Dense>

namespace coulomb {

// Constraints have at most this many equations (3 for a contact, 1 for a
// joint limit or a PD controller, up to 6 for a weld). Vectors and matrices of
// constraint size use fixed-capacity storage: no heap allocation per call.
inline constexpr int kMaxConstraintEquations = 6;
using ConstraintVector =
    Eigen::Matrix<double, Eigen::Dynamic, 1, 0, kMaxConstraintEquations, 1>;
using ConstraintMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, 0,
                                       kMaxConstraintEquations, kMaxConstraintEquations>;

// The rigid law a constraint stands for in the exact contact NCP (AL §III-B),
// stated by the constraint itself so that the NCP solvers (CANAL, SubADMM,
// PGS) work with the contacts of any model. With u = v_c + e the constraint
// velocity shifted by the position feedback e:
// * kContact (3 equations, [t1, t2, n]): Signorini–Coulomb with friction μ,
//   K_μ ∋ λ ⊥ u + [0, 0, μ‖u_t‖] ∈ K_μ* (De Saxcé);
// * kUnilateral (1 equation): 0 ≤ λ ⊥ u ≥ 0, e = offset(2) (a joint limit: a
//   frictionless contact on one row);
// * kSoft (1 equation): the compliant law λ = clamp(c − d u, lo, hi), e = 0
//   (a PD controller: c = δt a, d = δt b, ±δt u_max);
// * kNone: no rigid counterpart; the NCP solvers refuse the problem.
// Units: u [m/s] or [rad/s], λ [N·s] or [N·m·s].
struct RigidLaw {
  enum class Kind { kNone, kContact, kUnilateral, kSoft };
  Kind kind = Kind::kNone;
  double friction = 0.0;                             // μ (kContact)
  Eigen::Vector3d offset = Eigen::Vector3d::Zero();  // e (kContact, kUnilateral)
  // The diagonal R of a regularized potential ½‖γ‖²_R whose impulse is the
  // projection onto the cone in the R norm (SAP's cone: [Rt, Rt, Rn]; a
  // limit: [0, 0, R]) [m/(N·s)]: what the dual solver adds to W to solve the
  // regularized problem (SAP's, by strong duality). Zero: none.
  Eigen::Vector3d regularization = Eigen::Vector3d::Zero();
  double c = 0.0, d = 0.0, lo = 0.0, hi = 0.0;  // kSoft
};

// A constraint as a convex potential of its constraint velocity (SAP §IV,
// IRR §III: "any convex, separable potential plugs into the same solver").
//
// Given the constraint velocity v_c = J v + b (b the constraint's bias), a
// constraint returns its cost ℓ(v_c), its impulse γ = −∂ℓ/∂v_c and its
// Hessian G = ∂²ℓ/∂v_c² ⪰ 0. The solver minimizes
//   ℓ_p(v) = ½‖v − v*‖²_A + Σ_i ℓ_i(J_i v + b_i)
// whose gradient A(v − v*) − Jᵀγ is the balance of momentum. New contact
// models, joint limits and controllers are new subclasses, not solver changes.
class ConvexConstraint {
 public:
  virtual ~ConvexConstraint() = default;

  // Size of v_c, γ and G (≤ kMaxConstraintEquations).
  virtual int num_equations() const = 0;

  // Sets the parameters that depend on the problem around the constraint:
  // `delassus_estimate` ≈ W_ii = Σ_t J_it A_t⁻¹ J_itᵀ over the cliques the
  // constraint touches, and the time step δt [s]. Called once per problem,
  // before any Evaluate.
  virtual void Prepare(const ConstraintMatrix& delassus_estimate, double time_step) = 0;

  // Returns ℓ(v_c) and writes γ(v_c) and, if `hessian` is not null, G(v_c).
  virtual double Evaluate(const ConstraintVector& v_c, ConstraintVector* gamma,
                          ConstraintMatrix* hessian) const = 0;
  // The same on the caller's storage: v_c and γ of num_equations() entries,
  // G (if not null) of num_equations()² entries, column-major (a solver's
  // per-iteration evaluation, without copies). This default goes through
  // Evaluate; potentials on a hot path override it.
  virtual double EvaluateOnStorage(const double* v_c, double* gamma,
                                   double* hessian) const;

  // Whether γ(v_c) ≠ 0: the constraint adds to ℓ_p and its gradient at v_c
  // (SAP's working set). This default goes through Evaluate.
  virtual bool HasImpulse(const ConstraintVector& v_c) const;
  // Whether, wherever HasImpulse is false, ℓ and G vanish too (a region
  // without contact, as SAP's cone has): the constraint then adds nothing to
  // ℓ_p, ∇ℓ_p or H there, and SAP's islands need not join the cliques it
  // couples (EngagedIslands). False (this default) for potentials that keep
  // a cost or a curvature where γ = 0 (a controller at its target).
  virtual bool VanishesWithoutImpulse() const { return false; }
  // ℓ restricted to the line v_c + α Δ: its value, its slope dℓ/dα = −Δᵀγ
  // and, if asked, its curvature d²ℓ/dα² = ΔᵀGΔ (SAP's exact line search).
  struct LineValue {
    double cost = 0.0;
    double slope = 0.0;
    double curvature = 0.0;
  };
  // v_c and Δ have num_equations() entries. This default goes through
  // Evaluate; potentials on a hot path override it with a fixed-size kernel
  // that skips the Hessian when no curvature is asked for.
  virtual LineValue EvaluateAlongLine(const double* v_c, const double* direction,
                                      double alpha, bool with_curvature) const;
  // True when ℓ is exactly quadratic along v_c + α Δ for every α in
  // [alpha0, alpha1] (the segment lies in one region where ℓ is quadratic),
  // with *quadratic its value, slope and curvature at α = 0:
  // ℓ(α) = cost + slope α + ½ curvature α². False (this default) says nothing:
  // the line search then evaluates the constraint at every trial step.
  virtual bool QuadraticAlongSegment(const double* /*v_c*/, const double* /*direction*/,
                                     double /*alpha0*/, double /*alpha1*/,
                                     LineValue* /*quadratic*/) const {
    return false;
  }
  // g·γ, where g is the slack of the constraint's dual-cone condition at v_c
  // with impulse γ (for SAP, g = v_c − v̂_c + Rγ ∈ F*). Zero (this default)
  // for potentials that are not derived from a cone complementarity problem.
  virtual double ComplementarityProduct(const ConstraintVector& /*v_c*/,
                                        const ConstraintVector& /*gamma*/) const {
    return 0.0;
  }

  // The rigid counterpart of this constraint (valid after Prepare).
  virtual RigidLaw rigid_law() const { return {}; }

  // True when Prepare found the constraint stiffer than a step of δt
  // resolves and made it near-rigid (SAP's Rn = β²w/(4π²), a Hunt & Crossley
  // contact's clamped stiffness; docs/math.md §2.9, §3.6).
  virtual bool near_rigid() const { return false; }
};

// Stores T(args...) in *slot, assigning to the object already there when it
// is a T, so that rebuilding a problem in place allocates nothing.
template <class T, class... Args>
void EmplaceConstraintPotential(std::unique_ptr<ConvexConstraint>* slot, Args&&... args) {
  ConvexConstraint* existing = slot->get();
  if (existing != nullptr && typeid(*existing) == typeid(T)) {
    static_cast<T&>(*existing) = T(std::forward<Args>(args)...);
  } else {
    *slot = std::make_unique<T>(std::forward<Args>(args)...);
  }
}

}  // namespace coulomb
