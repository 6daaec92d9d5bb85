#pragma once

#include <Eigen/Dense>

#include "coulomb/fclib/fclib_problem.h"

namespace coulomb {

// The FCLIB standard error of impulses r (Acary, Brémond, Huber 2018):
//   ‖r − P_K(r − û)‖,   û = u + [μ‖u_T‖, 0, 0] per contact (De Saxcé),
// with u = W r + q (local) or u = Hᵀ M⁻¹(H r + f) + w (global, i.e. the
// velocities that satisfy the dynamics exactly; q = u(r = 0)) and P_K the
// Euclidean projection onto the cones K_μ. Vectors in FCLIB order [n, t1, t2].
// Normalization (stated, as Siconos does): divided by max(‖q‖, ‖r‖, ‖u‖), or
// by 1 when all three are zero.
struct NaturalMapResidual {
  double error = 0.0;         // normalized
  double unnormalized = 0.0;  // ‖r − P_K(r − û)‖
  double normalization = 1.0;
  Eigen::VectorXd u;  // contact velocities at r
};

NaturalMapResidual CalcNaturalMapResidual(const FclibProblem& problem,
                                          const Eigen::VectorXd& r);

// u(r) as above.
Eigen::VectorXd CalcFclibContactVelocities(const FclibProblem& problem,
                                           const Eigen::VectorXd& r);

// Euclidean projection onto {‖x_T‖ ≤ μ x_N}, x = [x_N, x_T] (FCLIB order).
Eigen::Vector3d ProjectOntoFrictionCone(const Eigen::Vector3d& x, double mu);

}  // namespace coulomb
