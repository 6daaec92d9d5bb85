#pragma once

#include <Eigen/Dense>

namespace coulomb {

// Maps onto the Coulomb friction cone K_μ = {x = [x_t (2), x_n] : ‖x_t‖ ≤ μ x_n}
// used by the rigid-contact (NCP) solvers (docs/math.md §4.1–4.2, AL-14 … AL-23).
// Order [t1, t2, n], as everywhere in the contact layer.

// Euclidean projection Π_K(x) and its Jacobian ∂Π/∂x in the three regions:
// stick (x ∈ K): x, I; open (x in the polar cone, μ‖x_t‖ ≤ −x_n): 0, 0;
// slip: λ_n = (x_n + μ‖x_t‖)/(1 + μ²), λ_t = μ λ_n t̂, with
//   ∂Π/∂x = 1/(1+μ²) [ μ² t̂t̂ᵀ + μ (x_n + μ‖x_t‖)/‖x_t‖ (I − t̂t̂ᵀ)   μ t̂ ]
//                    [ μ t̂ᵀ                                         1   ]
// (AL-23). On a region boundary the formula of the region that contains x
// (stick, then open) is used.
struct ConeProjection {
  Eigen::Vector3d value;
  Eigen::Matrix3d jacobian;
};
ConeProjection ProjectOntoFrictionConeWithJacobian(const Eigen::Vector3d& x, double mu);

// The strict operator T of AL §IV (AL-18): λ_n = max(x_n, 0), then λ_t is the
// projection of x_t onto the disc of radius μ λ_n. Not the Euclidean
// projection: the normal impulse does not see the tangential part.
Eigen::Vector3d StrictFrictionOperator(const Eigen::Vector3d& x, double mu);

// T and its (generalized) Jacobian ∂T/∂x, which is not symmetric in slip:
// open (x_n ≤ 0): 0; stick (‖x_t‖ ≤ μ x_n): I; slip (‖x_t‖ > μ x_n > 0):
//   ∂T/∂x = [ μ x_n/‖x_t‖ (I − t̂t̂ᵀ)   μ t̂ ]
//           [ 0ᵀ                       1   ],  t̂ = x_t/‖x_t‖
// (the tangential impulse follows the normal one, not the other way round).
ConeProjection StrictFrictionOperatorWithJacobian(const Eigen::Vector3d& x, double mu);

}  // namespace coulomb
