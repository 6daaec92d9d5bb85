#pragma once

#include <span>
#include <vector>

#include <Eigen/Dense>

#include "coulomb/math/reusable_dense.h"
#include "coulomb/solvers/contact_ncp.h"

namespace coulomb {

// Projected Gauss–Seidel on the dual of the contact NCP, the AL paper's
// baseline (docs/math.md §4.4). Per contact i, in a fixed order,
//   λ_i ← T(λ_i − D_i u_i),   u_i = J_i v + b_i + e_i,
// T the strict operator (normal clamp, then the disc of radius μ λ_n), and
// v = v* + A⁻¹ Jᵀ λ kept up to date after each contact (so W = J A⁻¹ Jᵀ is
// never formed: each update costs the size of the cliques it touches).
// The local step D_i (PgsStep):
// * kScalar (default): D_i = I / λ_max(W_ii). For any scalar step the fixed
//   points of λ = T(λ − ρ u) are exactly Coulomb's law (λ_n ⊥ u_n; u_t = 0
//   inside the disc, u_t = −α λ_t on its rim), and a step below 1/λ_max is a
//   descent step on the contact's local quadratic, so sweeps do not blow up.
// * kDelassusInverse: D_i = W_ii⁻¹, the usual block PGS step. Its tangential
//   fixed point is W_ii⁻¹ u_t ∥ −λ_t, which is not Coulomb's law when W_ii is
//   anisotropic, and on strongly coupled problems (a robot's contacts and
//   joint limits) its sweeps diverge.
// Sweeps until the natural-map residual ≤ tolerance or the sweep limit; PGS
// converges linearly and stalls on coupled or badly scaled problems, which
// the statistics show.
enum class PgsStep { kScalar, kDelassusInverse };

class PgsSolver {
 public:
  // Sweeps when NcpSolverParameters::max_iterations is 0, and the budget per
  // simulation step (MakeContactSolver with SolverUse::kTimeStepping).
  static constexpr int kMaxIterations = 10000;
  static constexpr int kStepBudget = 100;
  explicit PgsSolver(const NcpSolverParameters& parameters = {},
                     PgsStep step = PgsStep::kScalar);

  // lambda_guess: empty for λ = 0.
  NcpSolverStatistics Solve(const ContactNcp& ncp,
                            Eigen::Ref<const Eigen::VectorXd> lambda_guess,
                            NcpSolution* solution);

 private:
  struct ContactBlock {
    int offset = 0;  // of the clique in v
    // J_it, read in the NCP's problem (set by Precompute for the solve).
    const Eigen::MatrixXd* jacobian = nullptr;
    // J_it with its three rows known to the compiler.
    Eigen::Map<const Eigen::Matrix<double, 3, Eigen::Dynamic>> rows() const {
      return {jacobian->data(), 3, jacobian->cols()};
    }
    ReusableDense<Eigen::Matrix<double, Eigen::Dynamic, 3>> a_inverse_jt;  // A_t⁻¹ J_itᵀ
  };
  void Precompute(const ContactNcp& ncp);
  std::span<const ContactBlock> Blocks(int contact) const {
    return std::span<const ContactBlock>(blocks_).subspan(
        first_block_[contact], first_block_[contact + 1] - first_block_[contact]);
  }
  static Eigen::Vector3d SoftUpdate(const ContactNcp::SoftLaw& law, double u_rest,
                                    double w);

  NcpSolverParameters parameters_;
  PgsStep step_;
  // Contact i's blocks are blocks_[first_block_[i], first_block_[i + 1]);
  // the entries past the last keep their storage for later solves.
  std::vector<ContactBlock> blocks_;
  std::vector<int> first_block_;
  std::vector<Eigen::Matrix3d> local_step_;  // D_i per contact
  std::vector<double> delassus_normal_;      // (W_ii)_nn per contact
};

}  // namespace coulomb
