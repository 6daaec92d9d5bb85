#pragma once

#include <Eigen/Dense>

#include "coulomb/contact/contact_problem.h"

namespace coulomb {

// The Hessian of the primal cost at v, H = A + Σ_i J_iᵀ G_i J_i (SAP §IV-A),
// assembled dense: a diagnostic for small and medium problems (O(n_v²)
// memory), not for the solver's hot path.
Eigen::MatrixXd AssembleDenseHessian(const ContactProblem& problem,
                                     const Eigen::VectorXd& v);

// Condition number λ_max/λ_min of D H D with D = diag(A)^(−1/2), the scaling
// of SAP's stopping criterion: invariant to units and to the bodies' masses,
// so it measures what contact adds (IRR §X-A plots it over time). O(n_v³).
double ScaledHessianConditionNumber(const ContactProblem& problem,
                                    const Eigen::VectorXd& v);

}  // namespace coulomb
