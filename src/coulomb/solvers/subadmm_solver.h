#pragma once

#include <memory>
#include <vector>

#include <Eigen/Dense>

#include "coulomb/math/thread_pool.h"
#include "coulomb/solvers/contact_ncp.h"

namespace coulomb {

// SubADMM: consensus ADMM over subsystems for the contact problem (AL §VI,
// Alg. 2; math.md §4.3). Subsystems j are the cliques (trees); constraint i
// keeps a copy of its multiplier per subsystem it touches (Z_i, |Z_i| of
// them) through the Jacobian blocks J_ij. Per iteration, with penalty β:
// 1. per subsystem, in parallel:
//      (A_j + β Σ_i J_ijᵀ J_ij) v_j = A_j v*_j + Σ_i J_ijᵀ (β z_ij − u_ij),
//    the matrix factored once per β (Cholesky of the subsystem's block);
// 2. per constraint, in parallel: y_ij = β J_ij v_j + u_ij,
//      λ_i = T(−(Σ_j y_ij + β e_i)/|Z_i|),  z_ij = (y_ij + λ_i)/β,
//    T the strict operator (normal clamp, then the disc);
// 3. u_ij = −λ_i.
// At a fixed point z_ij = J_ij v_j and A_j (v_j − v*_j) = Σ_i J_ijᵀ λ_i. β
// starts at the geometric mean over cliques of trace(A_j)/dim / (number of
// contacts on the clique) and is rescaled by √(θ_p/θ_d) (then refactored)
// when the primal residual θ_p = max ‖J_ij v_j − z_ij‖ and the dual residual
// θ_d = max_j ‖A_j(v_j − v*_j) − Σ J_ijᵀ λ_i‖ (scaled by √diag(A)⁻¹ like
// SAP's) differ by more than the factor 10. Stops on the natural-map
// residual at v = v* + A⁻¹Jᵀλ (exact dynamics; the solution's v) or the
// iteration limit (default 10 000; in simulation a fixed budget). Results are identical
// for any thread count: every task writes only its own subsystem's or constraint's data.
// Not done yet: the per-body split inside a tree (it needs the bodies'
// Jacobians, which the contact problem does not carry); trees here are
// single subsystems.
class SubAdmmSolver {
 public:
  // split_subsystems = false merges all trees into one subsystem: plain
  // ADMM with one factorization of the whole A + β JᵀJ (the AL paper's "no
  // split" baseline, for comparison).
  SubAdmmSolver(const NcpSolverParameters& parameters = {}, int num_threads = 1,
                bool split_subsystems = true);

  // lambda_guess: initial impulses (e.g. the previous step's; empty for 0):
  // u_l = −λ_i and z_l = J_l v(λ) on every link, v(λ) = v* + A⁻¹Jᵀλ.
  NcpSolverStatistics Solve(const ContactNcp& ncp, NcpSolution* solution,
                            const Eigen::VectorXd& lambda_guess = Eigen::VectorXd());

 private:
  struct Subsystem {
    int offset;                       // in v
    Eigen::MatrixXd a;                // A_j
    Eigen::VectorXd momentum_star{};  // A_j v*_j
    Eigen::VectorXd rhs{};            // workspace of step 1
  };
  struct Link {  // constraint i on subsystem j
    int constraint;
    int clique;                                         // the subsystem
    int offset;                                         // of the clique in v
    Eigen::Matrix<double, 3, Eigen::Dynamic> jacobian;  // J_ij
    Eigen::Vector3d z = Eigen::Vector3d::Zero();
    Eigen::Vector3d u = Eigen::Vector3d::Zero();
    Eigen::Vector3d y = Eigen::Vector3d::Zero();   // workspace of step 2
    Eigen::Vector3d jv = Eigen::Vector3d::Zero();  // J_ij v_j, workspace of step 2
    // Unsplit mode: the nonzero column blocks of `jacobian` (offset in v,
    // block), so that A + β JᵀJ is assembled block by block.
    std::vector<std::pair<int, Eigen::MatrixXd>> blocks{};
  };
  void SetUp(const ContactNcp& ncp);
  void WarmStart(const ContactNcp& ncp, const Eigen::VectorXd& lambda_guess,
                 Eigen::VectorXd* v, Eigen::VectorXd* lambda);
  double InitialPenalty(const ContactNcp& ncp) const;
  void Factor(double penalty);
  void SolveSubsystem(int subsystem, double penalty, Eigen::VectorXd* v);
  void UpdateConstraint(const ContactNcp& ncp, int constraint, double penalty,
                        const Eigen::VectorXd& v, Eigen::VectorXd* lambda);
  double DualResidual(const ContactNcp& ncp, const Eigen::VectorXd& v,
                      const Eigen::VectorXd& lambda);

  NcpSolverParameters parameters_;
  bool split_subsystems_;
  ThreadPool pool_;
  std::vector<Subsystem> subsystems_;
  std::vector<Link> links_;
  std::vector<std::vector<int>> links_of_clique_;
  std::vector<std::vector<int>> links_of_constraint_;
  std::vector<Eigen::LLT<Eigen::MatrixXd>> subsystem_factors_;
  std::vector<double> primal_of_constraint_;
  // Workspace of the dual residual: D = diag(A)^(−1/2), v − v*, A(v − v*), Jᵀλ.
  Eigen::VectorXd dof_scale_, velocity_change_, dual_residual_, dual_impulse_;
};

}  // namespace coulomb
