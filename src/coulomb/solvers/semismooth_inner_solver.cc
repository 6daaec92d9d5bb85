#include "coulomb/solvers/semismooth_inner_solver.h"

#include <cmath>
#include <stdexcept>

namespace coulomb {
namespace {

// De Luca, Facchinei, Kanzow's descent test and Armijo parameters.
constexpr double kDescentFactor = 1e-8;  // ρ
constexpr double kDescentPower = 2.1;    // p
constexpr double kArmijoSlope = 1e-4;    // σ
constexpr double kSmallestStep = 1e-12;  // t below which the line search fails
// Trust-region updates (Nocedal & Wright, Alg. 4.1).
constexpr double kAcceptRatio = 1e-4;
constexpr double kShrinkRatio = 0.25;
constexpr double kExpandRatio = 0.75;
constexpr double kSmallestRadius = 1e-14;

}  // namespace

SemismoothInnerSolver::SemismoothInnerSolver(CanalInnerSolver method) : method_(method) {
  if (method == CanalInnerSolver::kCascadedNewton) {
    throw std::invalid_argument(
        "SemismoothInnerSolver: the cascaded Newton method is CANAL's own inner solver");
  }
}

InnerSolveResult SemismoothInnerSolver::Solve(StrictAlSurrogate* surrogate,
                                              Eigen::VectorXd* x,
                                              const InnerSolveLimits& limits) {
  return method_ == CanalInnerSolver::kDogleg ? SolveDogleg(surrogate, x, limits)
                                              : SolveDamped(surrogate, x, limits);
}

bool SemismoothInnerSolver::LinearizeAt(StrictAlSurrogate* surrogate) {
  residual_ = surrogate->residual();
  surrogate->CalcJacobian(&jacobian_);
  gradient_.noalias() = jacobian_.transpose() * residual_;
  lu_.compute(jacobian_);
  if (!(lu_.rcond() >= kSingularRcond)) return false;
  newton_step_ = -lu_.solve(residual_);
  return newton_step_.allFinite();
}

InnerSolveResult SemismoothInnerSolver::SolveDamped(StrictAlSurrogate* surrogate,
                                                    Eigen::VectorXd* x,
                                                    const InnerSolveLimits& limits) {
  InnerSolveResult result;
  double merit = surrogate->Evaluate(*x);
  while (!surrogate->Converged(limits.abs_tolerance, limits.rel_tolerance)) {
    if (result.iterations >= limits.max_iterations) return result;
    const bool has_newton_step = LinearizeAt(surrogate);
    step_ = newton_step_;
    if (!has_newton_step ||
        gradient_.dot(step_) > -kDescentFactor * std::pow(step_.norm(), kDescentPower)) {
      step_ = -gradient_;
    }
    const double slope = gradient_.dot(step_);
    double t = 1.0;
    while (true) {
      trial_ = *x + t * step_;
      const double trial_merit = surrogate->Evaluate(trial_);
      if (trial_merit <= merit + kArmijoSlope * t * slope) {
        merit = trial_merit;
        break;
      }
      t *= 0.5;
      if (t < kSmallestStep) {
        surrogate->Evaluate(*x);
        return result;
      }
    }
    *x = trial_;
    ++result.iterations;
  }
  result.converged = true;
  return result;
}

void SemismoothInnerSolver::DoglegStep(double radius, bool has_newton_step) {
  if (has_newton_step && newton_step_.norm() <= radius) {
    step_ = newton_step_;
    return;
  }
  const double cauchy_norm = cauchy_step_.norm();
  if (!has_newton_step || cauchy_norm >= radius) {
    step_ = cauchy_step_ * std::min(1.0, radius / cauchy_norm);
    return;
  }
  // τ ∈ [0, 1] with ‖p_U + τ (p_N − p_U)‖ = Δ.
  leg_ = newton_step_ - cauchy_step_;
  const double a = leg_.squaredNorm();
  const double b = 2.0 * cauchy_step_.dot(leg_);
  const double c = cauchy_norm * cauchy_norm - radius * radius;
  const double tau = (-b + std::sqrt(b * b - 4.0 * a * c)) / (2.0 * a);
  step_ = cauchy_step_ + tau * leg_;
}

InnerSolveResult SemismoothInnerSolver::SolveDogleg(StrictAlSurrogate* surrogate,
                                                    Eigen::VectorXd* x,
                                                    const InnerSolveLimits& limits) {
  InnerSolveResult result;
  double merit = surrogate->Evaluate(*x);
  double radius = -1.0;  // Δ, set from the first Newton step
  while (!surrogate->Converged(limits.abs_tolerance, limits.rel_tolerance)) {
    const bool has_newton_step = LinearizeAt(surrogate);
    model_change_.noalias() = jacobian_ * gradient_;
    const double curvature = model_change_.squaredNorm();
    if (!(curvature > 0.0)) return result;  // ∇Ψ = 0 away from a root: stuck
    cauchy_step_ = -(gradient_.squaredNorm() / curvature) * gradient_;
    if (radius < 0.0)
      radius = has_newton_step ? newton_step_.norm() : cauchy_step_.norm();
    while (true) {  // trial steps on this model until one is accepted
      if (result.iterations >= limits.max_iterations ||
          radius < kSmallestRadius * (1.0 + x->norm())) {
        surrogate->Evaluate(*x);
        return result;
      }
      ++result.iterations;
      DoglegStep(radius, has_newton_step);
      model_change_ = residual_;
      model_change_.noalias() += jacobian_ * step_;
      const double predicted = merit - 0.5 * model_change_.squaredNorm();
      trial_ = *x + step_;
      const double trial_merit = surrogate->Evaluate(trial_);
      const double ratio = predicted > 0.0 ? (merit - trial_merit) / predicted : -1.0;
      const double step_norm = step_.norm();
      if (ratio < kShrinkRatio) {
        radius = kShrinkRatio * step_norm;
      } else if (ratio > kExpandRatio && step_norm >= 0.99 * radius) {
        radius *= 2.0;
      }
      if (ratio > kAcceptRatio) {
        *x = trial_;
        merit = trial_merit;
        break;
      }
    }
  }
  result.converged = true;
  return result;
}

}  // namespace coulomb
