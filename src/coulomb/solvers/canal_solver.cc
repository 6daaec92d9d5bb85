#include "coulomb/solvers/canal_solver.h"

#include <algorithm>
#include <limits>
#include <memory>

#include "coulomb/contact/augmented_lagrangian_cone.h"

namespace coulomb {
namespace {

// Inexact inner solves (AL §V): ε_r = kInnerToOuterTolerance × the current
// outer residual, clamped to [inner_rel_tolerance, kInnerLoosestTolerance].
constexpr double kInnerToOuterTolerance = 0.1;
constexpr double kInnerLoosestTolerance = 1e-6;

SapSolverParameters InnerParameters(const NcpSolverParameters& parameters) {
  SapSolverParameters inner;
  inner.rel_tolerance = parameters.inner_rel_tolerance;
  inner.max_iterations = parameters.inner_max_iterations;
  inner.keep_history = false;  // only the iteration counts are reported
  return inner;
}

}  // namespace

CanalSolver::CanalSolver(const NcpSolverParameters& parameters)
    : parameters_(parameters), inner_solver_(InnerParameters(parameters)) {
  if (parameters_.max_iterations <= 0) parameters_.max_iterations = kMaxIterations;
  if (parameters_.inner_solver != CanalInnerSolver::kCascadedNewton)
    semismooth_solver_.emplace(parameters_.inner_solver);
}

void CanalSolver::RebuildInnerProblem(const ContactNcp& ncp, double penalty) {
  const ContactProblem& data = ncp.problem();
  if (!inner_ || inner_->time_step() != data.time_step())
    inner_.emplace(data.time_step());
  ContactProblem& inner = *inner_;
  inner.ResetCliquesFrom(data);
  cones_.clear();
  for (int i = 0; i < data.num_constraints(); ++i) {
    ProblemConstraint& slot = inner.EmplaceConstraint(data.constraint(i).kind);
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
      // trace(J A⁻¹ Jᵀ) = ‖L⁻¹Jᵀ‖²_F with A = L Lᵀ, without forming the product.
      // (Storage grown to the largest block: cliques of other sizes reuse it.)
      const Eigen::Index size = block.matrix.size();
      if (static_cast<Eigen::Index>(a_inverse_jt_.size()) < size)
        a_inverse_jt_.resize(size);
      Eigen::Map<Eigen::MatrixXd> l_inverse_jt(a_inverse_jt_.data(), block.matrix.cols(),
                                               block.matrix.rows());
      l_inverse_jt = block.matrix.transpose();
      ncp.clique_factorization(block.clique).matrixL().solveInPlace(l_inverse_jt);
      mean_w += l_inverse_jt.squaredNorm() / 3.0;
    }
  }
  mean_w /= std::max(1, problem.num_constraints());
  return parameters_.penalty_scale / (mean_w > 0.0 ? mean_w : 1.0);
}

NcpSolverStatistics CanalSolver::Solve(const ContactNcp& ncp,
                                       Eigen::Ref<const Eigen::VectorXd> v_guess,
                                       NcpSolution* solution,
                                       Eigen::Ref<const Eigen::VectorXd> lambda_guess) {
  const Stopwatch stopwatch;
  NcpSolverStatistics stats;
  stats.solver = "canal";
  stats.status = SolverStatus::kMaxIterationsReached;
  const ContactProblem& data = ncp.problem();
  const double initial_penalty = InitialPenalty(ncp);
  double penalty = initial_penalty;
  relax_de_saxce_ = false;
  de_saxce_.resize(ncp.num_contacts());
  if (parameters_.inner_solver == CanalInnerSolver::kCascadedNewton) {
    RebuildInnerProblem(ncp, penalty);
  } else {
    strict_.Reset(ncp);
  }
  if (lambda_guess.size() != 0) {
    ValidateLambdaGuess(ncp, lambda_guess);
    solution->lambda = lambda_guess;
    ncp.CalcVelocities(solution->lambda, &solution->v);
  } else {
    if (v_guess.size() != 0) {
      solution->v = v_guess;
    } else {
      solution->v = data.v_star();
    }
    solution->lambda.setZero(data.num_constraint_equations());
  }
  ncp.CalcContactVelocities(solution->v, &solution->u);
  stats.residual = ncp.NaturalMapResidual(solution->lambda, solution->u);
  KeepIfBest(*solution, stats.residual, /*first=*/true);
  slack_ = solution->u;  // z
  double previous_residual = std::numeric_limits<double>::infinity();
  const SapSolution& inner_solution = inner_solution_;
  for (int k = 1; k <= parameters_.max_iterations; ++k) {
    // Inexact inner solves: a fraction of the current outer residual is
    // enough (AL §V), down to the configured floor.
    const double inner_tolerance =
        std::clamp(kInnerToOuterTolerance * stats.residual,
                   parameters_.inner_rel_tolerance, kInnerLoosestTolerance);
    const InnerStep step =
        parameters_.inner_solver == CanalInnerSolver::kCascadedNewton
            ? SolveCascadedInnerProblem(ncp, penalty, inner_tolerance, k == 1, *solution)
            : SolveStrictInnerProblem(penalty, inner_tolerance, k == 1, *solution);
    stats.inner_iterations += step.iterations;
    ++stats.inner_solves;
    stats.inner_failures += !step.converged;
    if (step.no_answer) {
      stats.status = SolverStatus::kInnerSolveFailed;
      break;
    }
    ncp.CalcContactVelocities(inner_solution.v, &solution->u);
    ReusableVector& change = multiplier_change_;
    change = inner_solution.gamma - solution->lambda;
    slack_ = solution->u + change / penalty;
    solution->lambda = inner_solution.gamma;
    const double primal = change.norm() / penalty;
    // The NCP residual at v = v* + A⁻¹Jᵀλ, which satisfies the dynamics
    // exactly (AL §VII): the inner solve's momentum error does not hide in it.
    ncp.CalcVelocities(solution->lambda, &solution->v);
    ncp.CalcContactVelocities(solution->v, &solution->u);
    stats.residual = ncp.NaturalMapResidual(solution->lambda, solution->u);
    if (parameters_.keep_history)
      stats.history.push_back(
          {stats.residual, primal, step.iterations, penalty, stopwatch.Seconds()});
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
    const double max_penalty = initial_penalty * parameters_.max_penalty_growth;
    relax_de_saxce_ = penalty >= max_penalty &&
                      stats.residual > kRelaxationStallRatio * previous_residual;
    if (stats.residual > parameters_.stall_ratio * previous_residual) {
      penalty = std::min(penalty * parameters_.penalty_growth, max_penalty);
    }
    previous_residual = stats.residual;
  }
  FinishWithBestOrFallback(ncp, solution, &stats);
  stats.total_time_s = stopwatch.Seconds();
  return stats;
}

void CanalSolver::FinishWithBestOrFallback(const ContactNcp& ncp, NcpSolution* solution,
                                           NcpSolverStatistics* stats) {
  const bool fall_back = !stats->converged &&
                         stats->status == SolverStatus::kMaxIterationsReached &&
                         parameters_.fallback_iterations > 0;
  if (fall_back) {
    NcpSolverParameters admm;
    admm.tolerance = parameters_.tolerance;
    admm.max_iterations = parameters_.fallback_iterations;
    admm.keep_history = false;
    if (!fallback_) fallback_.emplace(admm, 1, AdmmSplitting::kWholeSystem);
    const NcpSolverStatistics continued = fallback_->Solve(ncp, best_.lambda, solution);
    stats->fallback_iterations = continued.iterations;
    if (continued.residual < best_residual_) {
      stats->converged = continued.converged;
      stats->status = continued.status;
      stats->residual = continued.residual;
      return;
    }
  }
  // The outer iterates are not monotone; ADMM's end, if worse, is dropped.
  if (best_residual_ < stats->residual || fall_back) {
    solution->lambda = best_.lambda;
    solution->v = best_.v;
    solution->u = best_.u;
    stats->residual = best_residual_;
  }
}

CanalSolver::InnerStep CanalSolver::SolveCascadedInnerProblem(const ContactNcp& ncp,
                                                              double penalty,
                                                              double rel_tolerance,
                                                              bool first,
                                                              const NcpSolution& outer) {
  const ContactProblem& data = ncp.problem();
  for (int i = 0; i < ncp.num_contacts(); ++i) {
    if (!cones_[i]) continue;  // soft
    const int offset = data.constraint_offset(i);
    Eigen::Vector3d shift =
        ncp.offsets().segment<3>(offset) - outer.lambda.segment<3>(offset) / penalty;
    const double de_saxce = ncp.friction(i) * slack_.segment<2>(offset).norm();
    const double omega = relax_de_saxce_ ? parameters_.de_saxce_relaxation : 1.0;
    de_saxce_[i] = first ? de_saxce : (1.0 - omega) * de_saxce_[i] + omega * de_saxce;
    shift(2) += de_saxce_[i];
    cones_[i]->set_penalty(penalty);
    cones_[i]->set_shift(shift);
  }
  inner_solver_.set_rel_tolerance(rel_tolerance);
  const SapSolverStatistics inner =
      first ? inner_solver_.Solve(*inner_, outer.v, &inner_solution_)
            : inner_solver_.Solve(*inner_, inner_solution_.v, &inner_solution_);
  return {inner.iterations, Accepted(inner.status),
          inner.status == SolverStatus::kFactorizationFailed ||
              inner.status == SolverStatus::kNotFinite};
}

CanalSolver::InnerStep CanalSolver::SolveStrictInnerProblem(double penalty,
                                                            double rel_tolerance,
                                                            bool first,
                                                            const NcpSolution& outer) {
  strict_.SetMultipliers(outer.lambda, penalty);
  if (first) {
    strict_.ToScaled(outer.v, &scaled_v_);
  } else {
    strict_.ToScaled(inner_solution_.v, &scaled_v_);
  }
  InnerSolveLimits limits;
  limits.rel_tolerance = rel_tolerance;
  limits.max_iterations = parameters_.inner_max_iterations;
  const InnerSolveResult inner = semismooth_solver_->Solve(&strict_, &scaled_v_, limits);
  inner_solution_.v = strict_.v();
  inner_solution_.gamma = strict_.lambda();
  return {inner.iterations, inner.converged, false};
}

void CanalSolver::KeepIfBest(const NcpSolution& iterate, double residual, bool first) {
  if (!first && !(residual < best_residual_)) return;
  best_residual_ = residual;
  best_.lambda = iterate.lambda;
  best_.v = iterate.v;
  best_.u = iterate.u;
}

}  // namespace coulomb
