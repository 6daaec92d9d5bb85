#include "coulomb/solvers/canal_solver.h"

#include <algorithm>
#include <limits>
#include <memory>

#include "coulomb/contact/augmented_lagrangian_cone.h"

namespace coulomb {
namespace {

// Newton iterations per inner solve: SAP converges in a few; more only stall
// at round-off.
constexpr int kInnerMaxIterations = 25;
// Inexact inner solves (AL §V): ε_r = kInnerToOuterTolerance × the current
// outer residual, clamped to [inner_rel_tolerance, kInnerLoosestTolerance].
constexpr double kInnerToOuterTolerance = 0.1;
constexpr double kInnerLoosestTolerance = 1e-6;

SapSolverParameters InnerParameters(const NcpSolverParameters& parameters) {
  SapSolverParameters inner;
  inner.rel_tolerance = parameters.inner_rel_tolerance;
  inner.max_iterations = kInnerMaxIterations;
  inner.keep_history = false;  // only the iteration counts are reported
  return inner;
}

}  // namespace

CanalSolver::CanalSolver(const NcpSolverParameters& parameters)
    : parameters_(parameters), inner_solver_(InnerParameters(parameters)) {
  if (parameters_.max_iterations <= 0) parameters_.max_iterations = kMaxIterations;
}

void CanalSolver::RebuildInnerProblem(const ContactNcp& ncp, double penalty) {
  const ContactProblem& data = ncp.problem();
  if (!inner_ || inner_->time_step() != data.time_step())
    inner_.emplace(data.time_step());
  ContactProblem& inner = *inner_;
  inner.ResetCliquesFrom(data);
  cones_.clear();
  for (int i = 0; i < data.num_constraints(); ++i) {
    ProblemConstraint& slot = inner.EmplaceConstraint();
    slot.jacobian = data.constraint(i).jacobian;
    slot.bias = data.constraint(i).bias;
    if (ncp.soft_law(i)) {  // a compliant law needs no multiplier: kept as it is
      ncp.EmplaceSoftPotential(i, &slot.potential);
      cones_.push_back(nullptr);
      continue;
    }
    EmplaceConstraintPotential<AugmentedLagrangianCone>(&slot.potential, ncp.friction(i),
                                                        penalty, Eigen::Vector3d::Zero());
    cones_.push_back(static_cast<AugmentedLagrangianCone*>(slot.potential.get()));
  }
  inner.Finalize();
}

double CanalSolver::InitialPenalty(const ContactNcp& ncp) {
  const ContactProblem& problem = ncp.problem();
  double mean_w = 0.0;
  for (int i = 0; i < problem.num_constraints(); ++i) {
    for (const JacobianBlock& block : problem.constraint(i).jacobian) {
      // trace(J A⁻¹ Jᵀ) = Σ J ∘ (A⁻¹Jᵀ)ᵀ, without forming the product.
      // (Storage grown to the largest block: cliques of other sizes reuse it.)
      const Eigen::Index size = block.matrix.size();
      if (static_cast<Eigen::Index>(a_inverse_jt_.size()) < size)
        a_inverse_jt_.resize(size);
      Eigen::Map<Eigen::MatrixXd> a_inverse_jt(a_inverse_jt_.data(), block.matrix.cols(),
                                               block.matrix.rows());
      a_inverse_jt = block.matrix.transpose();
      ncp.clique_factorization(block.clique).solveInPlace(a_inverse_jt);
      mean_w += block.matrix.cwiseProduct(a_inverse_jt.transpose()).sum() / 3.0;
    }
  }
  mean_w /= std::max(1, problem.num_constraints());
  return parameters_.penalty_scale / (mean_w > 0.0 ? mean_w : 1.0);
}

NcpSolverStatistics CanalSolver::Solve(const ContactNcp& ncp,
                                       const Eigen::VectorXd& v_guess,
                                       NcpSolution* solution,
                                       const Eigen::VectorXd& lambda_guess) {
  const Stopwatch stopwatch;
  NcpSolverStatistics stats;
  stats.solver = "canal";
  stats.status = SolverStatus::kMaxIterationsReached;
  const ContactProblem& data = ncp.problem();
  const double initial_penalty = InitialPenalty(ncp);
  double penalty = initial_penalty;
  RebuildInnerProblem(ncp, penalty);
  const ContactProblem& inner = *inner_;
  if (lambda_guess.size() != 0) {
    ValidateLambdaGuess(ncp, lambda_guess);
    solution->lambda = lambda_guess;
    ncp.CalcVelocities(solution->lambda, &solution->v);
  } else {
    solution->v = v_guess.size() != 0 ? v_guess : data.v_star();
    solution->lambda = Eigen::VectorXd::Zero(data.num_constraint_equations());
  }
  ncp.CalcContactVelocities(solution->v, &solution->u);
  stats.residual = ncp.NaturalMapResidual(solution->lambda, solution->u);
  KeepIfBest(*solution, stats.residual, /*first=*/true);
  Eigen::VectorXd& slack = slack_;  // z
  slack = solution->u;
  double previous_residual = std::numeric_limits<double>::infinity();
  SapSolution& inner_solution = inner_solution_;
  for (int k = 1; k <= parameters_.max_iterations; ++k) {
    for (int i = 0; i < ncp.num_contacts(); ++i) {
      if (!cones_[i]) continue;  // soft
      const int offset = data.constraint_offset(i);
      Eigen::Vector3d shift = ncp.offsets().segment<3>(offset) -
                              solution->lambda.segment<3>(offset) / penalty;
      shift(2) += ncp.friction(i) * slack.segment<2>(offset).norm();  // De Saxcé
      cones_[i]->set_penalty(penalty);
      cones_[i]->set_shift(shift);
    }
    // Inexact inner solves: a fraction of the current outer residual is
    // enough (AL §V), down to the configured floor.
    inner_solver_.set_rel_tolerance(std::clamp(kInnerToOuterTolerance * stats.residual,
                                               parameters_.inner_rel_tolerance,
                                               kInnerLoosestTolerance));
    const SapSolverStatistics inner_stats = inner_solver_.Solve(
        inner, k == 1 ? solution->v : inner_solution.v, &inner_solution);
    stats.inner_iterations += inner_stats.iterations;
    if (inner_stats.status == SolverStatus::kFactorizationFailed) {
      stats.status = SolverStatus::kInnerSolveFailed;
      break;
    }
    ncp.CalcContactVelocities(inner_solution.v, &solution->u);
    Eigen::VectorXd& change = multiplier_change_;
    change = inner_solution.gamma - solution->lambda;
    slack = solution->u + change / penalty;
    solution->lambda = inner_solution.gamma;
    const double primal = change.norm() / penalty;
    // The NCP residual at v = v* + A⁻¹Jᵀλ, which satisfies the dynamics
    // exactly (AL §VII): the inner solve's momentum error does not hide in it.
    ncp.CalcVelocities(solution->lambda, &solution->v);
    ncp.CalcContactVelocities(solution->v, &solution->u);
    stats.residual = ncp.NaturalMapResidual(solution->lambda, solution->u);
    if (parameters_.keep_history)
      stats.history.push_back(
          {stats.residual, primal, inner_stats.iterations, penalty, stopwatch.Seconds()});
    stats.iterations = k;
    KeepIfBest(*solution, stats.residual, /*first=*/false);
    if (stats.residual <= parameters_.tolerance) {
      stats.converged = true;
      stats.status = SolverStatus::kConverged;
      break;
    }
    // Grow β when the NCP residual stalls. (Judging by the primal residual
    // ‖Δλ‖/β instead lets β run away: a larger β shrinks it by itself, and
    // an ill-conditioned inner problem then caps the accuracy.)
    if (stats.residual > parameters_.stall_ratio * previous_residual) {
      penalty = std::min(penalty * parameters_.penalty_growth,
                         initial_penalty * parameters_.max_penalty_growth);
    }
    previous_residual = stats.residual;
  }
  if (best_residual_ < stats.residual) {  // the outer iterates are not monotone
    solution->lambda = best_.lambda;
    solution->v = best_.v;
    solution->u = best_.u;
    stats.residual = best_residual_;
  }
  stats.total_time_s = stopwatch.Seconds();
  return stats;
}

void CanalSolver::KeepIfBest(const NcpSolution& iterate, double residual, bool first) {
  if (!first && !(residual < best_residual_)) return;
  best_residual_ = residual;
  best_.lambda = iterate.lambda;
  best_.v = iterate.v;
  best_.u = iterate.u;
}

}  // namespace coulomb
