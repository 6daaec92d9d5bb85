#include "coulomb/solvers/subadmm_solver.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "coulomb/contact/friction_cone_projection.h"

namespace coulomb {

SubAdmmSolver::SubAdmmSolver(const NcpSolverParameters& parameters, int num_threads,
                             bool split_subsystems)
    : parameters_(parameters), split_subsystems_(split_subsystems), pool_(num_threads) {
  if (parameters_.max_iterations <= 0) parameters_.max_iterations = 10000;
}

void SubAdmmSolver::SetUp(const ContactNcp& ncp) {
  const ContactProblem& problem = ncp.problem();
  subsystems_.clear();
  if (split_subsystems_) {
    for (int t = 0; t < problem.num_cliques(); ++t) {
      subsystems_.push_back(
          {.offset = problem.clique_offset(t), .a = problem.clique_matrix(t)});
    }
  } else {  // one subsystem: A = blockdiag(A_t)
    Eigen::MatrixXd a = Eigen::MatrixXd::Zero(problem.num_dofs(), problem.num_dofs());
    for (int t = 0; t < problem.num_cliques(); ++t) {
      a.block(problem.clique_offset(t), problem.clique_offset(t), problem.clique_size(t),
              problem.clique_size(t)) = problem.clique_matrix(t);
    }
    subsystems_.push_back({.offset = 0, .a = std::move(a)});
  }
  links_.clear();
  links_of_clique_.assign(subsystems_.size(), {});
  links_of_constraint_.assign(problem.num_constraints(), {});
  for (int i = 0; i < problem.num_constraints(); ++i) {
    if (!split_subsystems_) {  // one link over all of v
      Eigen::Matrix<double, 3, Eigen::Dynamic> jacobian =
          Eigen::MatrixXd::Zero(3, problem.num_dofs());
      std::vector<std::pair<int, Eigen::MatrixXd>> blocks;
      for (const JacobianBlock& block : problem.constraint(i).jacobian) {
        jacobian.middleCols(problem.clique_offset(block.clique), block.matrix.cols()) +=
            block.matrix;
        blocks.emplace_back(problem.clique_offset(block.clique), block.matrix);
      }
      links_of_clique_[0].push_back(static_cast<int>(links_.size()));
      links_of_constraint_[i].push_back(static_cast<int>(links_.size()));
      links_.push_back({.constraint = i,
                        .clique = 0,
                        .offset = 0,
                        .jacobian = jacobian,
                        .blocks = std::move(blocks)});
      continue;
    }
    for (const JacobianBlock& block : problem.constraint(i).jacobian) {
      links_of_clique_[block.clique].push_back(static_cast<int>(links_.size()));
      links_of_constraint_[i].push_back(static_cast<int>(links_.size()));
      links_.push_back({.constraint = i,
                        .clique = block.clique,
                        .offset = problem.clique_offset(block.clique),
                        .jacobian = block.matrix});
    }
  }
  primal_of_constraint_.assign(problem.num_constraints(), 0.0);
  for (Subsystem& subsystem : subsystems_) {
    subsystem.momentum_star =
        subsystem.a * problem.v_star().segment(subsystem.offset, subsystem.a.rows());
    subsystem.rhs.resize(subsystem.a.rows());
  }
  dof_scale_.resize(problem.num_dofs());
  for (int t = 0; t < problem.num_cliques(); ++t) {
    dof_scale_.segment(problem.clique_offset(t), problem.clique_size(t)) =
        problem.clique_matrix(t).diagonal().cwiseSqrt().cwiseInverse();
  }
}

double SubAdmmSolver::InitialPenalty(const ContactNcp& ncp) const {
  // Per tree (also when merged): mass scale / contacts on the tree.
  const ContactProblem& problem = ncp.problem();
  std::vector<int> contacts_on(problem.num_cliques(), 0);
  for (int i = 0; i < problem.num_constraints(); ++i) {
    for (const JacobianBlock& block : problem.constraint(i).jacobian)
      ++contacts_on[block.clique];
  }
  double log_sum = 0.0;
  int count = 0;
  for (int t = 0; t < problem.num_cliques(); ++t) {
    if (contacts_on[t] == 0) continue;
    const Eigen::MatrixXd& a = problem.clique_matrix(t);
    log_sum += std::log(a.trace() / a.rows() / contacts_on[t]);
    ++count;
  }
  return parameters_.penalty_scale * (count > 0 ? std::exp(log_sum / count) : 1.0);
}

void SubAdmmSolver::Factor(double penalty) {
  subsystem_factors_.resize(subsystems_.size());
  pool_.ParallelFor(static_cast<int>(subsystems_.size()), [&](int j) {
    Eigen::MatrixXd matrix = subsystems_[j].a;
    for (int l : links_of_clique_[j]) {
      if (links_[l].blocks.empty()) {
        matrix += penalty * links_[l].jacobian.transpose() * links_[l].jacobian;
        continue;
      }
      for (const auto& [row, left] : links_[l].blocks) {  // β J_aᵀ J_b, block by block
        for (const auto& [column, right] : links_[l].blocks) {
          matrix.block(row, column, left.cols(), right.cols()) +=
              penalty * left.transpose() * right;
        }
      }
    }
    subsystem_factors_[j].compute(matrix);
  });
}

void SubAdmmSolver::SolveSubsystem(int j, double penalty, Eigen::VectorXd* v) {
  Subsystem& subsystem = subsystems_[j];
  subsystem.rhs = subsystem.momentum_star;
  for (int l : links_of_clique_[j]) {
    subsystem.rhs.noalias() +=
        links_[l].jacobian.transpose() * (penalty * links_[l].z - links_[l].u);
  }
  subsystem_factors_[j].solveInPlace(subsystem.rhs);
  v->segment(subsystem.offset, subsystem.rhs.size()) = subsystem.rhs;
}

void SubAdmmSolver::UpdateConstraint(const ContactNcp& ncp, int constraint,
                                     double penalty, const Eigen::VectorXd& v,
                                     Eigen::VectorXd* lambda) {
  const ContactProblem& problem = ncp.problem();
  const int offset = problem.constraint_offset(constraint);
  const std::vector<int>& links = links_of_constraint_[constraint];
  // The bias b_i and offset e_i enter once: e_i ← b_i + e_i.
  Eigen::Vector3d sum = penalty * (problem.constraint(constraint).bias.head<3>() +
                                   ncp.offsets().segment<3>(offset));
  for (int l : links) {
    Link& link = links_[l];
    link.jv.noalias() = link.jacobian * v.segment(link.offset, link.jacobian.cols());
    link.y = penalty * link.jv + link.u;
    sum += link.y;
  }
  const double n = static_cast<double>(links.size());
  const ContactNcp::SoftLaw* soft = ncp.soft_law(constraint);
  // A soft law on u_n = (sum_n + n λ_n)/β: λ_n = clamp of the linear solution.
  const Eigen::Vector3d impulse =
      soft ? Eigen::Vector3d(0.0, 0.0,
                             std::clamp((penalty * soft->c - soft->d * sum(2)) /
                                            (penalty + soft->d * n),
                                        soft->lo, soft->hi))
           : StrictFrictionOperator(-sum / n, ncp.friction(constraint));
  double primal = 0.0;
  for (int l : links) {
    Link& link = links_[l];
    link.z = (link.y + impulse) / penalty;
    primal = std::max(primal, (link.jv - link.z).norm());
    link.u = -impulse;
  }
  primal_of_constraint_[constraint] = primal;
  lambda->segment<3>(offset) = impulse;
}

void SubAdmmSolver::WarmStart(const ContactNcp& ncp, const Eigen::VectorXd& lambda_guess,
                              Eigen::VectorXd* v, Eigen::VectorXd* lambda) {
  ValidateLambdaGuess(ncp, lambda_guess);
  *lambda = lambda_guess;
  ncp.CalcVelocities(*lambda, v);
  for (Link& link : links_) {
    link.u = -lambda->segment<3>(ncp.problem().constraint_offset(link.constraint));
    link.z = link.jacobian * v->segment(link.offset, link.jacobian.cols());
  }
}

double SubAdmmSolver::DualResidual(const ContactNcp& ncp, const Eigen::VectorXd& v,
                                   const Eigen::VectorXd& lambda) {
  const ContactProblem& problem = ncp.problem();
  velocity_change_ = v - problem.v_star();
  problem.MultiplyByA(velocity_change_, &dual_residual_);
  dual_impulse_.setZero(problem.num_dofs());
  problem.AddJacobianTransposeTimes(lambda, &dual_impulse_);
  dual_residual_ -= dual_impulse_;
  double worst = 0.0;
  for (int t = 0; t < problem.num_cliques(); ++t) {
    const int offset = problem.clique_offset(t), size = problem.clique_size(t);
    worst = std::max(worst, dof_scale_.segment(offset, size)
                                .cwiseProduct(dual_residual_.segment(offset, size))
                                .norm());
  }
  return worst;
}

NcpSolverStatistics SubAdmmSolver::Solve(const ContactNcp& ncp, NcpSolution* solution,
                                         const Eigen::VectorXd& lambda_guess) {
  const auto start = std::chrono::steady_clock::now();
  const ContactProblem& problem = ncp.problem();
  NcpSolverStatistics stats;
  stats.solver = "subadmm";
  stats.status = "max_iterations_reached";
  SetUp(ncp);
  double penalty = InitialPenalty(ncp);
  Factor(penalty);
  Eigen::VectorXd v = problem.v_star();  // the ADMM iterate
  solution->lambda = Eigen::VectorXd::Zero(problem.num_constraint_equations());
  if (lambda_guess.size() != 0) WarmStart(ncp, lambda_guess, &v, &solution->lambda);
  for (int iteration = 1; iteration <= parameters_.max_iterations; ++iteration) {
    pool_.ParallelFor(static_cast<int>(subsystems_.size()),
                      [&](int j) { SolveSubsystem(j, penalty, &v); });
    pool_.ParallelFor(problem.num_constraints(), [&](int i) {
      UpdateConstraint(ncp, i, penalty, v, &solution->lambda);
    });
    const double primal = primal_of_constraint_.empty()
                              ? 0.0
                              : *std::max_element(primal_of_constraint_.begin(),
                                                  primal_of_constraint_.end());
    const double dual = DualResidual(ncp, v, solution->lambda);
    stats.iterations = iteration;
    // The NCP residual at v = v* + A⁻¹Jᵀλ, which satisfies the dynamics
    // exactly (AL §VII), not at the iterate. With tolerance 0 (a fixed
    // iteration budget) only the last iteration needs it.
    if (parameters_.tolerance > 0.0 || iteration == parameters_.max_iterations) {
      ncp.CalcVelocities(solution->lambda, &solution->v);
      ncp.CalcContactVelocities(solution->v, &solution->u);
      stats.residual = ncp.NaturalMapResidual(solution->lambda, solution->u);
      stats.history.push_back({stats.residual, primal, 0, penalty, SecondsSince(start)});
      if (stats.residual <= parameters_.tolerance) {
        stats.converged = true;
        stats.status = "converged";
        break;
      }
    }
    const bool unbalanced = primal > 10.0 * dual || dual > 10.0 * primal;
    if (primal > 0.0 && dual > 0.0 && unbalanced) {  // residual balancing
      penalty *= std::sqrt(primal / dual);
      Factor(penalty);
    }
  }
  stats.total_time_s = SecondsSince(start);
  return stats;
}

}  // namespace coulomb
