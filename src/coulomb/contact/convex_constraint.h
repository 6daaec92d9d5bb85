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

  // g·γ, where g is the slack of the constraint's dual-cone condition at v_c
  // with impulse γ (for SAP, g = v_c − v̂_c + Rγ ∈ F*). Zero (this default)
  // for potentials that are not derived from a cone complementarity problem.
  virtual double ComplementarityProduct(const ConstraintVector& /*v_c*/,
                                        const ConstraintVector& /*gamma*/) const {
    return 0.0;
  }
};

// Stores T(args...) in *slot, assigning to the object already there when it
// is a T, so that rebuilding a problem in place allocates nothing.
template <class T, class... Args>
void EmplaceConstraintPotential(std::unique_ptr<ConvexConstraint>* slot, Args&&... args) {
  if (*slot && typeid(**slot) == typeid(T)) {
    static_cast<T&>(**slot) = T(std::forward<Args>(args)...);
  } else {
    *slot = std::make_unique<T>(std::forward<Args>(args)...);
  }
}

}  // namespace coulomb
