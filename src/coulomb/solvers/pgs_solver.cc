#include "coulomb/solvers/pgs_solver.h"

#include <algorithm>

#include "coulomb/contact/friction_cone_projection.h"

namespace coulomb {

PgsSolver::PgsSolver(const NcpSolverParameters& parameters, PgsStep step)
    : parameters_(parameters), step_(step) {
  if (parameters_.max_iterations <= 0) parameters_.max_iterations = kMaxIterations;
}

void PgsSolver::Precompute(const ContactNcp& ncp) {
  const ContactProblem& problem = ncp.problem();
  // Storage is kept across solves: sizes met before allocate nothing.
  local_step_.resize(ncp.num_contacts());
  delassus_normal_.resize(ncp.num_contacts());
  first_block_.resize(ncp.num_contacts() + 1);
  first_block_[0] = 0;
  for (int i = 0; i < ncp.num_contacts(); ++i) {
    Eigen::Matrix3d delassus = Eigen::Matrix3d::Zero();
    const std::vector<JacobianBlock>& jacobian = problem.constraint(i).jacobian;
    first_block_[i + 1] = first_block_[i] + static_cast<int>(jacobian.size());
    if (blocks_.size() < static_cast<size_t>(first_block_[i + 1]))
      blocks_.resize(first_block_[i + 1]);
    for (size_t k = 0; k < jacobian.size(); ++k) {
      ContactBlock& b = blocks_[first_block_[i] + k];
      b.offset = problem.clique_offset(jacobian[k].clique);
      b.jacobian = &jacobian[k].matrix;
      b.a_inverse_jt = jacobian[k].matrix.transpose();
      ncp.clique_factorization(jacobian[k].clique).solveInPlace(b.a_inverse_jt);
      delassus.noalias() += *b.jacobian * b.a_inverse_jt;
    }
    delassus_normal_[i] = delassus(2, 2);
    if (step_ == PgsStep::kScalar) {
      const double largest =
          Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d>(delassus, Eigen::EigenvaluesOnly)
              .eigenvalues()
              .maxCoeff();
      local_step_[i] = Eigen::Matrix3d::Identity() / (largest + 1e-300);
      continue;
    }
    // W_ii can be singular (a rank-deficient local FCLIB problem): a relative
    // 1e-12 on the diagonal keeps the inverse finite and changes nothing else.
    delassus.diagonal().array() += 1e-12 * delassus.trace() + 1e-300;
    local_step_[i] = delassus.inverse();
  }
}

// A soft constraint solved exactly on its own: with the others fixed,
// u_n = u_rest + w λ_n, and λ_n = clamp(c − d u_n) is the clamp of the linear
// solution (c − d u_rest)/(1 + d w) (the law is monotone).
Eigen::Vector3d PgsSolver::SoftUpdate(const ContactNcp::SoftLaw& law, double u_rest,
                                      double w) {
  return {0.0, 0.0,
          std::clamp((law.c - law.d * u_rest) / (1.0 + law.d * w), law.lo, law.hi)};
}

NcpSolverStatistics PgsSolver::Solve(const ContactNcp& ncp,
                                     Eigen::Ref<const Eigen::VectorXd> lambda_guess,
                                     NcpSolution* solution) {
  const Stopwatch stopwatch;
  const ContactProblem& problem = ncp.problem();
  Precompute(ncp);
  NcpSolverStatistics stats;
  stats.solver = "pgs";
  if (lambda_guess.size() != 0) {
    solution->lambda = lambda_guess;
  } else {
    solution->lambda.setZero(problem.num_constraint_equations());
  }
  ncp.CalcVelocities(solution->lambda, &solution->v);
  stats.status = SolverStatus::kMaxIterationsReached;
  for (int sweep = 1; sweep <= parameters_.max_iterations; ++sweep) {
    for (int i = 0; i < ncp.num_contacts(); ++i) {
      const int offset = problem.constraint_offset(i);
      Eigen::Vector3d u =
          problem.constraint(i).bias.head<3>() + ncp.offsets().segment<3>(offset);
      const auto blocks = Blocks(i);
      for (const ContactBlock& b : blocks) {
        u.noalias() += b.rows() * solution->v.segment(b.offset, b.jacobian->cols());
      }
      const Eigen::Vector3d old = solution->lambda.segment<3>(offset);
      const ContactNcp::SoftLaw* soft = ncp.soft_law(i);
      const Eigen::Vector3d updated =
          soft ? SoftUpdate(*soft, u(2) - delassus_normal_[i] * old(2),
                            delassus_normal_[i])
               : StrictFrictionOperator(old - local_step_[i] * u, ncp.friction(i));
      solution->lambda.segment<3>(offset) = updated;
      for (const ContactBlock& b : blocks) {
        solution->v.segment(b.offset, b.a_inverse_jt.rows()).noalias() +=
            b.a_inverse_jt * (updated - old);
      }
    }
    ncp.CalcContactVelocities(solution->v, &solution->u);
    stats.residual = ncp.NaturalMapResidual(solution->lambda, solution->u);
    if (parameters_.keep_history)
      stats.history.push_back({stats.residual, 0.0, 0, 0.0, stopwatch.Seconds()});
    stats.iterations = sweep;
    if (stats.residual <= parameters_.tolerance) {
      stats.converged = true;
      stats.status = SolverStatus::kConverged;
      break;
    }
  }
  stats.total_time_s = stopwatch.Seconds();
  return stats;
}

}  // namespace coulomb
