#pragma once

#include <vector>

#include <Eigen/Dense>

#include "coulomb/solvers/contact_ncp.h"

namespace coulomb {

// Projected Gauss–Seidel on the dual of the contact NCP, the AL paper's
// baseline (math.md §4.4). Per contact i, in a fixed order,
//   λ_i ← T(λ_i − W_ii⁻¹ u_i),   u_i = J_i v + b_i + e_i,
// T the strict operator (normal clamp, then the disc of radius μ λ_n), and
// v = v* + A⁻¹ Jᵀ λ kept up to date after each contact (so W = J A⁻¹ Jᵀ is
// never formed: each update costs the size of the cliques it touches).
// Sweeps until the natural-map residual ≤ tolerance or the sweep limit; PGS
// converges linearly and stalls on coupled or badly scaled problems, which
// the statistics show.
class PgsSolver {
 public:
  explicit PgsSolver(const NcpSolverParameters& parameters = {});

  // lambda_guess: empty for λ = 0.
  NcpSolverStatistics Solve(const ContactNcp& ncp, const Eigen::VectorXd& lambda_guess,
                            NcpSolution* solution);

 private:
  struct ContactBlock {
    int clique;
    int offset;
    Eigen::Matrix<double, 3, Eigen::Dynamic> jacobian;      // J_it
    Eigen::Matrix<double, Eigen::Dynamic, 3> a_inverse_jt;  // A_t⁻¹ J_itᵀ
  };
  void Precompute(const ContactNcp& ncp);
  static Eigen::Vector3d SoftUpdate(const ContactNcp::SoftLaw& law, double u_rest,
                                    double w);

  NcpSolverParameters parameters_;
  std::vector<std::vector<ContactBlock>> blocks_;  // per contact
  std::vector<Eigen::Matrix3d> delassus_inverse_;  // W_ii⁻¹ per contact
  std::vector<double> delassus_normal_;            // (W_ii)_nn per contact
};

}  // namespace coulomb
