#pragma once

#include <vector>

#include <Eigen/Dense>

#include "coulomb/contact/contact_problem.h"
#include "coulomb/contact/sap_friction_cone.h"
#include "coulomb/fclib/fclib_problem.h"

namespace coulomb {

// An FCLIB problem mapped to a contact problem with one SAP friction cone per
// contact (issue #2, fixed so results can be checked independently):
// * global: A = M; cliques = connected components of the sparsity graph of M,
//   those acted on by the same contacts merged (a diagonal M: one per body);
//   v* = M⁻¹ f; J = Hᵀ with each contact's rows reordered from FCLIB's
//   [n, t1, t2] to our [t1, t2, n]; v̂_c = −w (reordered).
// * local: A = I and J a factor of W's symmetric part, J Jᵀ ≈ W_s
//   (delassus_factor.h: J = V Λ^½ over rank W, one dense clique, or, when W's
//   Cholesky factor is sparse, that factor with 3 dofs per contact),
//   v* = 0, v̂_c = −q. What J Jᵀ leaves out of the stored W (its skew part,
//   and what the factor misses) is kept for the refinement (skew_refinement.h).
// Then v_c − v̂_c = u (FCLIB's contact velocity), A(v − v*) = Jᵀγ is
// M v = H r + f with r = γ reordered, and γ ∈ F is r ∈ K_μ.
// Contact parameters: k = +∞ (near-rigid), β and σ from `parameters`.
struct FclibContactProblem {
  ContactProblem problem;
  // Global problems: our dof k is FCLIB's dof fclib_dof[k].
  std::vector<int> fclib_dof{};
  // Local problems: max |W − Wᵀ| / max |W| of the file (0 when symmetric).
  double w_relative_asymmetry = 0.0;
  // Local problems: whether J is the block-sparse factor (else the dense one).
  bool sparse_factor = false;
  // Local problems: W − J Jᵀ (FCLIB order) and max |W − J Jᵀ| / max |W|.
  Eigen::MatrixXd lagged_w{};
  double w_model_error = 0.0;
};

// δt does not enter the near-rigid regularization (k = +∞); the problem
// carries δt = 1 s as a placeholder. Throws std::runtime_error naming the file
// (e.g. M not SPD, W not positive semidefinite, a contact with no Jacobian).
FclibContactProblem BuildFclibContactProblem(const FclibProblem& fclib,
                                             const SapContactParameters& parameters = {});

// A mapped local problem with the free velocity q replaced (FCLIB order):
// the same clique and Jacobians (no new factorization of W), cones with
// v̂ = −q. For the refinement on W − J Jᵀ (skew_refinement.h), which reads
// lagged_w from `mapped`: the shifted problem leaves it empty.
FclibContactProblem WithLocalFreeVelocity(const FclibContactProblem& mapped,
                                          const FclibProblem& fclib,
                                          const Eigen::VectorXd& q,
                                          const SapContactParameters& parameters = {});

// Contact vectors between our order [t1, t2, n] and FCLIB's [n, t1, t2].
Eigen::VectorXd ToFclibContactOrder(const Eigen::VectorXd& ours);
Eigen::VectorXd FromFclibContactOrder(const Eigen::VectorXd& fclib);

// Generalized velocities in FCLIB's dof order (global problems).
Eigen::VectorXd ToFclibDofOrder(const FclibContactProblem& mapped,
                                const Eigen::VectorXd& v);

}  // namespace coulomb
