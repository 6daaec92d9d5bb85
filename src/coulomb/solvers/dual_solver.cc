#include "coulomb/solvers/dual_solver.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "coulomb/contact/friction_cone_projection.h"

namespace coulomb {

DualSolver::DualSolver(const NcpSolverParameters& parameters, bool regularized)
    : parameters_(parameters), regularized_(regularized) {}

bool DualSolver::UsesDenseDelassus(const ContactNcp& ncp) const {
  if (parameters_.delassus != DelassusForm::kAuto)
    return parameters_.delassus == DelassusForm::kDense;
  const ContactProblem& problem = ncp.problem();
  if (problem.num_constraint_equations() > kDenseMaxEquations) return false;
  // Entries the operator reads per product: J and Jᵀ, the clique factors,
  // and a few passes over v.
  double operator_entries = 6.0 * problem.num_dofs();
  for (int i = 0; i < problem.num_constraints(); ++i) {
    for (const JacobianBlock& block : problem.constraint(i).jacobian)
      operator_entries += 2.0 * block.matrix.size();
  }
  for (int t = 0; t < problem.num_cliques(); ++t)
    operator_entries += problem.clique_size(t) * problem.clique_size(t);
  return DelassusMatrix::Entries(ncp) <= kDenseCostRatio * operator_entries;
}

double DualSolver::Gradient(const ContactNcp& ncp, const Eigen::VectorXd& lambda,
                            Eigen::VectorXd* gradient) {
  if (dense_) {
    gradient->noalias() = delassus_.matrix() * lambda;
    *gradient += r_;
  } else {
    ncp.CalcVelocities(lambda, &v_);
    ncp.CalcContactVelocities(v_, gradient);  // u(λ) = Wλ + r
  }
  if (regularized_) *gradient += ncp.regularization().cwiseProduct(lambda);
  return 0.5 * (lambda.dot(*gradient) + lambda.dot(ncp.free_contact_velocity()));
}

void DualSolver::Project(const ContactNcp& ncp, Eigen::VectorXd* lambda) const {
  for (int i = 0; i < ncp.num_contacts(); ++i) {
    auto block = lambda->segment<3>(3 * i);
    block = ProjectOntoFrictionConeWithJacobian(block, ncp.friction(i)).value;
  }
}

void DualSolver::CalcLocalSteps(const ContactNcp& ncp) {
  const ContactProblem& problem = ncp.problem();
  local_step_.resize(problem.num_constraint_equations());
  for (int i = 0; i < problem.num_constraints(); ++i) {
    double trace = ncp.regularization().segment<3>(3 * i).sum() * (regularized_ ? 1 : 0);
    for (const JacobianBlock& block : problem.constraint(i).jacobian) {
      // trace(J A⁻¹ Jᵀ) = Σ J ∘ (A⁻¹Jᵀ)ᵀ, into a reused workspace.
      a_inverse_jt_ = block.matrix.transpose();
      ncp.clique_factorization(block.clique).solveInPlace(a_inverse_jt_);
      trace += (block.matrix.array() * a_inverse_jt_.transpose().array()).sum();
    }
    const double w = trace / 3.0;
    local_step_.segment<3>(3 * i).setConstant(w > 0.0 ? 1.0 / w : 0.0);
  }
}

double DualSolver::Residual(const ContactNcp& ncp, const Eigen::VectorXd& lambda,
                            const Eigen::VectorXd& gradient) {
  projected_ = lambda - local_step_.cwiseProduct(gradient);
  Project(ncp, &projected_);
  const double scale = std::max({lambda.norm(), local_step_.cwiseProduct(r_).norm(),
                                 std::numeric_limits<double>::min()});
  return (lambda - projected_).norm() / scale;
}

double DualSolver::DualGap(const ContactNcp& ncp, const Eigen::VectorXd& v, double f) {
  const ContactProblem& problem = ncp.problem();
  Eigen::VectorXd& dv = change_;  // workspaces: nothing allocated per step
  Eigen::VectorXd& a_dv = gradient_change_;
  Eigen::VectorXd& v_c = projected_;
  dv = v - problem.v_star();
  problem.MultiplyByA(dv, &a_dv);
  double primal = 0.5 * dv.dot(a_dv);
  problem.CalcConstraintVelocities(v, &v_c);
  ConstraintVector gamma;
  for (int i = 0; i < problem.num_constraints(); ++i) {
    const ProblemConstraint& constraint = problem.constraint(i);
    const int size = constraint.potential->num_equations();
    const ConstraintVector local = v_c.segment(problem.constraint_offset(i), size);
    primal += constraint.potential->Evaluate(local, &gamma, nullptr);
  }
  return primal + f;
}

NcpSolverStatistics DualSolver::Solve(const ContactNcp& ncp,
                                      Eigen::Ref<const Eigen::VectorXd> lambda_guess,
                                      NcpSolution* solution) {
  const Stopwatch stopwatch;
  for (int i = 0; i < ncp.num_contacts(); ++i) {
    if (ncp.soft_law(i) != nullptr)
      throw std::invalid_argument("dual solver: soft laws (PD controllers) have no cone");
  }
  const int m = ncp.problem().num_constraint_equations();
  r_ = ncp.free_contact_velocity();
  CalcLocalSteps(ncp);
  dense_ = UsesDenseDelassus(ncp);
  if (dense_) delassus_.Assemble(ncp);
  // Workspaces are members: a simulation step allocates nothing here once
  // its problem's sizes were seen.
  Eigen::VectorXd &lambda = lambda_, &gradient = gradient_, &y = y_;
  Eigen::VectorXd &gradient_y = gradient_y_, &next = next_;
  Eigen::VectorXd &gradient_next = gradient_next_, &best = best_;
  Eigen::VectorXd &change = change_, &gradient_change = gradient_change_;
  if (lambda_guess.size() == m) {
    lambda = lambda_guess;
  } else {
    lambda.setZero(m);
  }
  Project(ncp, &lambda);
  NcpSolverStatistics stats;
  stats.solver = regularized_ ? "dual" : "dual-ccp";
  const int max_iterations =
      parameters_.max_iterations > 0 ? parameters_.max_iterations : kMaxIterations;

  // A first Lipschitz estimate: the Rayleigh quotient of W + R along ones.
  y.setOnes(m);
  Gradient(ncp, y, &gradient);
  double lipschitz = std::max((gradient - r_).sum() / m, 1e-300);
  double f = Gradient(ncp, lambda, &gradient);
  double best_residual = Residual(ncp, lambda, gradient);
  best = lambda;
  y = lambda;
  double theta = 1.0;
  for (stats.iterations = 0; stats.iterations < max_iterations && m > 0;) {
    if (best_residual <= parameters_.tolerance) break;
    ++stats.iterations;
    Gradient(ncp, y, &gradient_y);
    // Backtracking on the quadratic upper bound at y, f(next) ≤ f(y) +
    // ∇f(y)ᵀd + L‖d‖²/2 with d = next − y. f is quadratic, so this is
    // dᵀ(∇f(next) − ∇f(y)) ≤ L‖d‖², tested so: the cost difference itself
    // cancels to round-off near the solution, and the test would then fail
    // by chance, doubling L until the steps stall.
    double f_next = 0.0;
    for (int attempt = 0; attempt < 60; ++attempt) {
      next = y - gradient_y / lipschitz;
      Project(ncp, &next);
      f_next = Gradient(ncp, next, &gradient_next);
      change = next - y;
      if (change.dot(gradient_next - gradient_y) <= lipschitz * change.squaredNorm())
        break;
      lipschitz *= 2.0;
    }
    const double theta_next =
        0.5 * (std::sqrt(theta * theta * (theta * theta + 4.0)) - theta * theta);
    const double beta = theta * (1.0 - theta) / (theta * theta + theta_next);
    change = next - lambda;
    if (gradient_next.dot(change) > 0.0) {  // adaptive restart
      y = next;
      theta = 1.0;
    } else {
      y = next + beta * change;
      theta = theta_next;
    }
    // Barzilai–Borwein: the curvature along the last step as the next trial.
    gradient_change = gradient_next - gradient;
    const double curvature = change.dot(gradient_change);
    if (curvature > 0.0 && change.squaredNorm() > 0.0) {
      lipschitz =
          std::clamp(curvature / change.squaredNorm(), 0.5 * lipschitz, lipschitz);
    }
    lambda = next;
    gradient = gradient_next;
    f = f_next;
    const double residual = Residual(ncp, lambda, gradient);
    if (residual < best_residual) {
      best_residual = residual;
      best = lambda;
    }
    if (parameters_.keep_history) {
      stats.history.push_back({residual, 0.0, 0, lipschitz, stopwatch.Seconds()});
    }
  }
  f = Gradient(ncp, best, &gradient);
  ncp.CalcVelocities(best, &solution->v);
  solution->lambda = best;
  ncp.CalcContactVelocities(solution->v, &solution->u);
  stats.residual = best_residual;
  stats.converged = best_residual <= parameters_.tolerance;
  stats.status =
      stats.converged ? SolverStatus::kConverged : SolverStatus::kMaxIterationsReached;
  stats.dual_gap = regularized_ ? DualGap(ncp, solution->v, f) : 0.0;
  stats.total_time_s = stopwatch.Seconds();
  return stats;
}

}  // namespace coulomb
