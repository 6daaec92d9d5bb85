#include "coulomb/solvers/subadmm_solver.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "coulomb/contact/friction_cone_projection.h"

namespace coulomb {

SubAdmmSolver::SubAdmmSolver(const NcpSolverParameters& parameters, int num_threads,
                             AdmmSplitting splitting)
    : parameters_(parameters), splitting_(splitting), pool_(num_threads) {
  if (parameters_.max_iterations <= 0) parameters_.max_iterations = kMaxIterations;
}

void SubAdmmSolver::SetUp(const ContactNcp& ncp) {
  const ContactProblem& problem = ncp.problem();
  SetUpSubsystems(problem);
  SetUpLinks(problem);
  ChooseFactorizations(problem);
  primal_of_constraint_.assign(problem.num_constraints(), 0.0);
  dof_scale_.resize(problem.num_dofs());
  for (int t = 0; t < problem.num_cliques(); ++t) {
    dof_scale_.segment(problem.clique_offset(t), problem.clique_size(t)) =
        problem.clique_matrix(t).diagonal().cwiseSqrt().cwiseInverse();
  }
}

void SubAdmmSolver::SetUpSubsystems(const ContactProblem& problem) {
  const bool whole = splitting_ == AdmmSplitting::kWholeSystem;
  num_subsystems_ = whole ? 1 : problem.num_cliques();
  if (static_cast<int>(subsystems_.size()) < num_subsystems_)
    subsystems_.resize(num_subsystems_);
  for (int j = 0; j < num_subsystems_; ++j) {
    Subsystem& subsystem = subsystems_[j];
    subsystem.offset = whole ? 0 : problem.clique_offset(j);
    subsystem.size = whole ? problem.num_dofs() : problem.clique_size(j);
    const auto v_star = problem.v_star().segment(subsystem.offset, subsystem.size);
    if (whole) {  // A = blockdiag(A_t)
      problem.MultiplyByA(problem.v_star(), &subsystem.momentum_star);
    } else {
      subsystem.momentum_star.noalias() = problem.clique_matrix(j) * v_star;
    }
    subsystem.rhs.resize(subsystem.size);
  }
}

SubAdmmSolver::Link& SubAdmmSolver::NewLink(int constraint, int subsystem, int offset,
                                            int num_dofs) {
  if (num_links_ == static_cast<int>(links_.size())) links_.emplace_back();
  Link& link = links_[num_links_];
  link.constraint = constraint;
  link.subsystem = subsystem;
  link.offset = offset;
  link.jacobian.setZero(3, num_dofs);
  link.body_dof = -1;
  link.blocks.clear();
  link.z.setZero();
  link.u.setZero();
  links_of_subsystem_[subsystem].push_back(num_links_);
  links_of_constraint_[constraint].push_back(num_links_);
  ++num_links_;
  return link;
}

void SubAdmmSolver::SetUpLinks(const ContactProblem& problem) {
  num_links_ = 0;
  links_of_subsystem_.resize(
      std::max<size_t>(links_of_subsystem_.size(), num_subsystems_));
  for (std::vector<int>& links : links_of_subsystem_) links.clear();
  links_of_constraint_.resize(
      std::max<size_t>(links_of_constraint_.size(), problem.num_constraints()));
  for (std::vector<int>& links : links_of_constraint_) links.clear();
  for (int i = 0; i < problem.num_constraints(); ++i) {
    const std::vector<JacobianBlock>& blocks = problem.constraint(i).jacobian;
    if (splitting_ == AdmmSplitting::kWholeSystem) {  // one link over all of v
      Link& link = NewLink(i, 0, 0, problem.num_dofs());
      for (const JacobianBlock& block : blocks) {
        const int offset = problem.clique_offset(block.clique);
        link.jacobian.middleCols(offset, block.matrix.cols()) += block.matrix;
        link.blocks.emplace_back(offset, block.clique);
      }
      continue;
    }
    for (const JacobianBlock& block : blocks) {
      const int offset = problem.clique_offset(block.clique);
      const int size = problem.clique_size(block.clique);
      const CliqueTree* tree = problem.clique_tree(block.clique);
      if (splitting_ == AdmmSplitting::kSubsystems || !tree || block.bodies.empty()) {
        NewLink(i, block.clique, offset, size).jacobian = block.matrix;
        continue;
      }
      for (const BodyJacobian& body : block.bodies) {  // one copy per body
        Link& link = NewLink(i, block.clique, offset, size);
        AddBodyJacobian(*tree, body, link.jacobian);
        link.body_dof = body.dof;
        link.map = body.map;
      }
    }
  }
}

void SubAdmmSolver::ChooseFactorizations(const ContactProblem& problem) {
  if (splitting_ == AdmmSplitting::kWholeSystem) {
    Eigen::MatrixXd& a = subsystems_[0].matrix.ResetDense(problem.num_dofs());
    a.setZero();  // A = blockdiag(A_t)
    for (int t = 0; t < problem.num_cliques(); ++t) {
      a.block(problem.clique_offset(t), problem.clique_offset(t), problem.clique_size(t),
              problem.clique_size(t)) = problem.clique_matrix(t);
    }
    return;
  }
  for (int j = 0; j < num_subsystems_; ++j) {
    // The tree factorization needs every link's Jᵀ J in the tree's pattern.
    const CliqueTree* tree = splitting_ == AdmmSplitting::kSubsystemsAndBodies
                                 ? problem.clique_tree(j)
                                 : nullptr;
    for (int l : links_of_subsystem_[j]) {
      if (tree && links_[l].body_dof < 0 &&
          !SubsystemMatrix::OnOneChain(*tree, links_[l].jacobian)) {
        tree = nullptr;
      }
    }
    subsystems_[j].matrix.Reset(problem.clique_matrix(j), tree);
  }
}

double SubAdmmSolver::InitialPenalty(const ContactNcp& ncp) {
  // Per tree (also when merged): mass scale / contacts on the tree.
  const ContactProblem& problem = ncp.problem();
  std::vector<int>& contacts_on = contacts_on_clique_;
  contacts_on.assign(problem.num_cliques(), 0);
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

bool SubAdmmSolver::Factor(const ContactProblem& problem, double penalty) {
  factored_.resize(num_subsystems_);
  pool_.ParallelFor(num_subsystems_, [&](int j) {
    SubsystemMatrix& matrix = subsystems_[j].matrix;
    matrix.BeginAssembly();
    for (int l : links_of_subsystem_[j]) {
      const Link& link = links_[l];
      if (link.blocks.empty()) {
        matrix.AddLink(link.jacobian, link.body_dof, link.map, penalty);
        continue;
      }
      for (const auto& [row, left] : link.blocks) {  // β J_aᵀ J_b, block by block
        for (const auto& [column, right] : link.blocks) {
          matrix.dense_matrix()
              .block(row, column, problem.clique_size(left), problem.clique_size(right))
              .noalias() +=
              penalty *
              link.jacobian.middleCols(row, problem.clique_size(left)).transpose() *
              link.jacobian.middleCols(column, problem.clique_size(right));
        }
      }
    }
    factored_[j] = matrix.Factor();
  });
  return std::all_of(factored_.begin(), factored_.end(), [](char ok) { return ok; });
}

void SubAdmmSolver::SolveSubsystem(int j, double penalty, Eigen::VectorXd* v) {
  Subsystem& subsystem = subsystems_[j];
  subsystem.rhs = subsystem.momentum_star;
  for (int l : links_of_subsystem_[j]) {
    subsystem.rhs.noalias() +=
        links_[l].jacobian.transpose() * (penalty * links_[l].z - links_[l].u);
  }
  subsystem.matrix.SolveInPlace(subsystem.rhs);
  v->segment(subsystem.offset, subsystem.rhs.size()) = subsystem.rhs;
}

void SubAdmmSolver::UpdateConstraint(const ContactNcp& ncp, int constraint,
                                     double penalty, const Eigen::VectorXd& v,
                                     ReusableVector* lambda) {
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

void SubAdmmSolver::WarmStart(const ContactNcp& ncp,
                              Eigen::Ref<const Eigen::VectorXd> lambda_guess,
                              Eigen::VectorXd* v, ReusableVector* lambda) {
  ValidateLambdaGuess(ncp, lambda_guess);
  *lambda = lambda_guess;
  ncp.CalcVelocities(*lambda, v);
  for (int l = 0; l < num_links_; ++l) {
    Link& link = links_[l];
    link.u = -lambda->segment<3>(ncp.problem().constraint_offset(link.constraint));
    link.z = link.jacobian * v->segment(link.offset, link.jacobian.cols());
  }
}

double SubAdmmSolver::DualResidual(const ContactNcp& ncp, const Eigen::VectorXd& v,
                                   Eigen::Ref<const Eigen::VectorXd> lambda) {
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

NcpSolverStatistics SubAdmmSolver::FactorizationFailed(const Stopwatch& stopwatch,
                                                       NcpSolverStatistics stats) const {
  stats.status = SolverStatus::kFactorizationFailed;
  stats.residual = std::numeric_limits<double>::infinity();
  stats.total_time_s = stopwatch.Seconds();
  return stats;
}

NcpSolverStatistics SubAdmmSolver::Solve(const ContactNcp& ncp,
                                         Eigen::Ref<const Eigen::VectorXd> lambda_guess,
                                         NcpSolution* solution) {
  const Stopwatch stopwatch;
  const ContactProblem& problem = ncp.problem();
  NcpSolverStatistics stats;
  stats.solver = "subadmm";
  stats.status = SolverStatus::kMaxIterationsReached;
  SetUp(ncp);
  double penalty = InitialPenalty(ncp);
  if (!Factor(problem, penalty)) return FactorizationFailed(stopwatch, stats);
  Eigen::VectorXd& v = iterate_;  // the ADMM iterate
  v = problem.v_star();
  solution->lambda.setZero(problem.num_constraint_equations());
  if (lambda_guess.size() != 0) WarmStart(ncp, lambda_guess, &v, &solution->lambda);
  for (int iteration = 1; iteration <= parameters_.max_iterations; ++iteration) {
    pool_.ParallelFor(num_subsystems_, [&](int j) { SolveSubsystem(j, penalty, &v); });
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
      if (parameters_.keep_history)
        stats.history.push_back(
            {stats.residual, primal, 0, penalty, stopwatch.Seconds()});
      if (stats.residual <= parameters_.tolerance) {
        stats.converged = true;
        stats.status = SolverStatus::kConverged;
        break;
      }
    }
    const bool unbalanced = primal > 10.0 * dual || dual > 10.0 * primal;
    if (primal > 0.0 && dual > 0.0 && unbalanced) {  // residual balancing
      penalty *= std::sqrt(primal / dual);
      if (!Factor(problem, penalty)) return FactorizationFailed(stopwatch, stats);
    }
  }
  stats.total_time_s = stopwatch.Seconds();
  return stats;
}

}  // namespace coulomb
