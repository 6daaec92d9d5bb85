#pragma once

#include <memory>
#include <vector>

#include <Eigen/Dense>

#include "coulomb/math/reusable_dense.h"
#include "coulomb/math/thread_pool.h"
#include "coulomb/solvers/contact_ncp.h"
#include "coulomb/solvers/subsystem_matrix.h"

namespace coulomb {

// SubADMM: consensus ADMM over subsystems for the contact problem (AL §VI,
// Alg. 2; docs/math.md §4.3). Subsystems j are the cliques (trees); constraint i
// keeps a copy of its multiplier per subsystem it touches (Z_i, |Z_i| of
// them) through the Jacobian blocks J_ij. Per iteration, with penalty β:
// 1. per subsystem, in parallel:
//      (A_j + β Σ_i J_ijᵀ J_ij) v_j = A_j v*_j + Σ_i J_ijᵀ (β z_ij − u_ij),
//    the matrix factored once per β (SubsystemMatrix: tree or dense
//    Cholesky, see Splitting below);
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
//
// Splitting (AL §VI-B, eqs. 30–31; the variants of AL §VII-D2):
// * kSubsystemsAndBodies (SubADMM): where the problem gives a clique's tree
//   (CliqueTree) and its Jacobian blocks per body, every body a constraint
//   acts through holds its own copy (a contact between two links of one
//   robot has two), so the subsystem matrix is the tree's mass matrix with
//   point masses β at the contacts and is factored without fill-in
//   (SubsystemMatrix). Cliques without a tree are factored densely.
// * kSubsystems ("No Body"): one copy per tree, dense Cholesky of each
//   A_j + β Σ J_ijᵀ J_ij.
// * kWholeSystem ("No Sub"): all trees in one subsystem, plain ADMM with one
//   factorization of A + β JᵀJ.
// The copies change the iterates only where a constraint touches two bodies
// of one tree; the fixed point is the same NCP solution.
enum class AdmmSplitting { kWholeSystem, kSubsystems, kSubsystemsAndBodies };

class SubAdmmSolver {
 public:
  // Iterations when NcpSolverParameters::max_iterations is 0, and the budget
  // per simulation step (MakeContactSolver with SolverUse::kTimeStepping).
  static constexpr int kMaxIterations = 10000;
  static constexpr int kStepBudget = 100;
  SubAdmmSolver(const NcpSolverParameters& parameters = {}, int num_threads = 1,
                AdmmSplitting splitting = AdmmSplitting::kSubsystemsAndBodies);

  // lambda_guess: initial impulses (e.g. the previous step's; empty for 0):
  // u_l = −λ_i and z_l = J_l v(λ) on every link, v(λ) = v* + A⁻¹Jᵀλ.
  // A solver object may be reused: its storage is kept between solves.
  NcpSolverStatistics Solve(const ContactNcp& ncp,
                            Eigen::Ref<const Eigen::VectorXd> lambda_guess,
                            NcpSolution* solution);

 private:
  struct Subsystem {
    int offset = 0;  // in v
    int size = 0;
    SubsystemMatrix matrix{};         // A_j + β Σ J_lᵀ J_l, factored
    Eigen::VectorXd momentum_star{};  // A_j v*_j
    Eigen::VectorXd rhs{};            // workspace of step 1
  };
  struct Link {  // a copy of constraint i on subsystem j (and body)
    int constraint = -1;
    int subsystem = -1;
    int offset = 0;  // of the subsystem in v
    ReusableDense<Eigen::Matrix<double, 3, Eigen::Dynamic>> jacobian{};  // J_l
    int body_dof = -1;  // body split: the body's dof, J_l = map · J_b
    Eigen::Matrix<double, 3, 6> map = Eigen::Matrix<double, 3, 6>::Zero();
    Eigen::Vector3d z = Eigen::Vector3d::Zero();
    Eigen::Vector3d u = Eigen::Vector3d::Zero();
    Eigen::Vector3d y = Eigen::Vector3d::Zero();   // workspace of step 2
    Eigen::Vector3d jv = Eigen::Vector3d::Zero();  // J_l v_j, workspace of step 2
    // kWholeSystem: the nonzero column blocks of `jacobian` (offset in v,
    // clique), so that A + β JᵀJ is assembled block by block.
    std::vector<std::pair<int, int>> blocks{};
  };
  void SetUp(const ContactNcp& ncp);
  void SetUpSubsystems(const ContactProblem& problem);
  void SetUpLinks(const ContactProblem& problem);
  Link& NewLink(int constraint, int subsystem, int offset, int num_dofs);
  void ChooseFactorizations(const ContactProblem& problem);
  void WarmStart(const ContactNcp& ncp, Eigen::Ref<const Eigen::VectorXd> lambda_guess,
                 Eigen::VectorXd* v, ReusableVector* lambda);
  double InitialPenalty(const ContactNcp& ncp);
  // False if a subsystem matrix is not positive definite.
  bool Factor(const ContactProblem& problem, double penalty);
  NcpSolverStatistics FactorizationFailed(const Stopwatch& stopwatch,
                                          NcpSolverStatistics stats) const;
  void SolveSubsystem(int subsystem, double penalty, Eigen::VectorXd* v);
  void UpdateConstraint(const ContactNcp& ncp, int constraint, double penalty,
                        const Eigen::VectorXd& v, ReusableVector* lambda);
  double DualResidual(const ContactNcp& ncp, const Eigen::VectorXd& v,
                      Eigen::Ref<const Eigen::VectorXd> lambda);

  NcpSolverParameters parameters_;
  AdmmSplitting splitting_;
  ThreadPool pool_;
  // The first num_subsystems_ / num_links_ entries are this solve's; the
  // rest is storage kept for the next.
  std::vector<Subsystem> subsystems_;
  int num_subsystems_ = 0;
  std::vector<Link> links_;
  int num_links_ = 0;
  std::vector<std::vector<int>> links_of_subsystem_;
  std::vector<std::vector<int>> links_of_constraint_;
  std::vector<char> factored_;  // per subsystem: the last Factor() succeeded
  std::vector<double> primal_of_constraint_;
  std::vector<int> contacts_on_clique_;  // InitialPenalty's workspace
  Eigen::VectorXd iterate_;              // the ADMM iterate v
  // Workspace of the dual residual: D = diag(A)^(−1/2), v − v*, A(v − v*), Jᵀλ.
  Eigen::VectorXd dof_scale_, velocity_change_, dual_residual_, dual_impulse_;
};

}  // namespace coulomb
