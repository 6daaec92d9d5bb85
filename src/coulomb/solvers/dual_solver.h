#pragma once

#include <Eigen/Dense>

#include "coulomb/solvers/contact_ncp.h"
#include "coulomb/solvers/delassus_matrix.h"

namespace coulomb {

// The dual form of the cone complementarity problem (the CCP of Anitescu's
// time stepping; docs/math.md §5): over the impulses λ, stacked [t1, t2, n]
// per contact,
//   min f(λ) = ½ λᵀ(W + R)λ + λᵀ r   over   λ ∈ F = Π_i K_μi,
// W = J A⁻¹ Jᵀ (the Delassus operator: applied through A's clique
// factorizations, or for small problems assembled once per solve as a dense
// matrix, NcpSolverParameters::delassus; UsesDenseDelassus says which), r = J v* + b + e
// = u(λ = 0) (e = −v̂ for SAP's cones) and R the diagonal of the constraints'
// regularization:
// * regularized (R = SAP's [Rt, Rt, Rn]): the dual of SAP's primal problem,
//   so its solution is SAP's impulses γ and v = v* + A⁻¹Jᵀλ is SAP's v
//   (strong duality: SAP's ℓ_p(v(λ)) + f(λ) ≥ 0 is the duality gap, 0 at the
//   solution; the two solvers certify each other);
// * R = 0: Anitescu's CCP: λ ∈ F, u = Wλ + r ∈ F* and λ ⊥ u (no De Saxcé
//   shift: the normal velocity of a sliding contact is μ‖u_t‖, the CCP's
//   known "boundary layer").
// Solved by accelerated projected gradient (Nesterov's method with a
// Barzilai–Borwein trial step, backtracking on the quadratic upper bound and
// adaptive restart when the step goes against the gradient), the projection
// onto each friction cone Euclidean. Stops when the natural map of the
// variational inequality with local steps, ‖λ − Π_F(λ − D∇f(λ))‖ /
// max(‖λ‖, ‖D r‖), D = diag(1/w_i) with w_i = trace(W_ii + R_i)/3 per contact
// (units of impulse, each contact at its own scale), is at most the
// tolerance. Soft laws (PD controllers) have no cone: such problems are
// refused.
class DualSolver {
 public:
  static constexpr int kMaxIterations = 100000;
  static constexpr int kStepBudget = 1000;  // per simulation step
  // DelassusForm::kAuto takes the dense W when it has at most this many
  // equations (a 1500 × 1500 W is 18 MB) and at most kDenseCostRatio × as
  // many entries as the operator reads per product (J, Jᵀ, the clique
  // factors, 6 n_v): the dense product streams its entries, the operator's
  // small blocks and triangular solves cost 2.7–6.6× more per entry on the
  // FCLIB files (docs/dual_solver.md: the dense W 2.7× faster at 1.0 times
  // the operator's entries, the operator 1.3× faster at 8.6 times).
  static constexpr int kDenseMaxEquations = 1500;
  static constexpr double kDenseCostRatio = 4.0;
  DualSolver(const NcpSolverParameters& parameters, bool regularized);

  // lambda_guess: empty for λ = 0. Throws std::invalid_argument for a
  // problem with soft laws. statistics.residual: the natural map above;
  // statistics.dual_gap: SAP's ℓ_p(v(λ)) + f(λ) (regularized only, else 0).
  NcpSolverStatistics Solve(const ContactNcp& ncp,
                            Eigen::Ref<const Eigen::VectorXd> lambda_guess,
                            NcpSolution* solution);

  // Whether a solve of this NCP assembles W (the parameter, or kAuto's rule).
  bool UsesDenseDelassus(const ContactNcp& ncp) const;

 private:
  // g = ∇f(λ) = Wλ + r + Rλ; returns f(λ).
  double Gradient(const ContactNcp& ncp, const Eigen::VectorXd& lambda,
                  Eigen::VectorXd* gradient);
  void Project(const ContactNcp& ncp, Eigen::VectorXd* lambda) const;
  double Residual(const ContactNcp& ncp, const Eigen::VectorXd& lambda,
                  const Eigen::VectorXd& gradient);
  // local_step_ = 1/w_i per contact (three entries each).
  void CalcLocalSteps(const ContactNcp& ncp);
  // SAP's ℓ_p(v) + f(λ) at v = v(λ).
  double DualGap(const ContactNcp& ncp, const Eigen::VectorXd& v, double f);

  NcpSolverParameters parameters_;
  bool regularized_;
  bool dense_ = false;  // this solve applies delassus_
  DelassusMatrix delassus_;
  // Workspaces, kept between solves.
  Eigen::VectorXd r_, local_step_, projected_, lambda_, v_, gradient_, y_, gradient_y_,
      next_, gradient_next_, best_, change_, gradient_change_;
  Eigen::MatrixXd a_inverse_jt_;
};

}  // namespace coulomb
