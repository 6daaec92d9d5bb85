#include "coulomb/solvers/sap_solver.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>

#include "coulomb/base/stopwatch.h"
#include "coulomb/solvers/sap_line_search.h"

namespace coulomb {
SapSolver::SapSolver(const SapSolverParameters& parameters, int num_threads)
    : parameters_(parameters) {
  ValidateSapSolverParameters(parameters);
  ThreadPool::CheckThreadCount(num_threads, "SapSolver threads");
  if (num_threads > 1) pool_ = std::make_unique<ThreadPool>(num_threads);
}

SapSolver::Workspace SapSolver::SetUpWorkspace(const ContactProblem& problem) {
  const int n = problem.num_dofs();
  Workspace reuse = Workspace::kReused;
  if (!coupling_) {
    coupling_.emplace(problem);
    factorization_ = MakeHessianFactorization(parameters_.linear_solver, problem);
    reuse = Workspace::kRebuilt;
  } else if (!coupling_->Matches(problem)) {
    // In the storage of the last analysis.
    if (coupling_->Update(problem)) {
      factorization_->Rebuild(problem);
      reuse = Workspace::kRebuilt;
    } else {  // constraints changed, not the coupling: the symbolic work stays
      factorization_->ReassignConstraints(problem);
      reuse = Workspace::kConstraintsReassigned;
    }
  }
  if (reuse == Workspace::kRebuilt) {
    for (Eigen::VectorXd* vector :
         {&inverse_sqrt_diagonal_, &velocity_error_, &a_times_velocity_error_, &momentum_,
          &momentum_origin_, &origin_error_, &generalized_impulse_, &gradient_, &delta_v_,
          &delta_p_, &a_times_origin_error_}) {
      vector->resize(n);
    }
    clique_active_.resize(problem.num_cliques());
    set_aside_cliques_.reserve(problem.num_cliques());
  }
  delta_v_c_.resize(problem.num_constraint_equations());
  constraint_costs_.resize(problem.num_constraints());
  constraint_hessians_.resize(problem.num_constraints());
  engaged_.resize(problem.num_constraints());
  segment_storage_.resize(problem.num_constraints());
  // Islands are numbered up to 2 × cliques (EngagedIslands::Join): the
  // per-island lists never reallocate.
  const int max_islands = 2 * problem.num_cliques() + 1;
  island_active_.reserve(max_islands);
  island_shares_.reserve(max_islands);
  island_steps_.reserve(max_islands);
  island_segment_offset_.reserve(max_islands);
  joined_islands_.reserve(max_islands);
  engaged_crossing_.reserve(problem.num_constraints());
  moved_crossing_.reserve(problem.num_constraints());
  crossing_v_c_.reserve(problem.num_constraints());
  crossing_visit_.resize(problem.num_constraints(), 0);
  factorization_->LoadJacobians(problem);
  for (int clique = 0; clique < problem.num_cliques(); ++clique) {
    inverse_sqrt_diagonal_.segment(problem.clique_offset(clique),
                                   problem.clique_size(clique)) =
        problem.clique_matrix(clique).diagonal().cwiseSqrt().cwiseInverse();
  }
  return reuse;
}

namespace {

// Calls body(entries) with entries(v) the block of v that belongs to the
// clique: fixed-size (unrolled) for the 6 dofs of a free body, the common
// clique, dynamic otherwise.
template <typename Body>
void ForCliqueEntries(const ContactProblem& problem, int clique, Body&& body) {
  const int offset = problem.clique_offset(clique);
  const int size = problem.clique_size(clique);
  if (size == 6) {
    body([offset](auto& v) { return v.template segment<6>(offset); });
  } else {
    body([offset, size](auto& v) { return v.segment(offset, size); });
  }
}

// The same for a constraint's entries of stacked constraint vectors: fixed
// for the 3 of a contact.
template <typename Body>
void ForConstraintEntries(const ContactProblem& problem, int index, Body&& body) {
  const int offset = problem.constraint_offset(index);
  const int size = problem.constraint_size(index);
  if (size == 3) {
    body([offset](auto& v) { return v.template segment<3>(offset); });
  } else {
    body([offset, size](auto& v) { return v.segment(offset, size); });
  }
}

bool Succeeded(const SapSolverStatistics& stats) {
  return stats.converged() || stats.status == SolverStatus::kConvergedAtRoundoff;
}

// Counts the Newton iterations since the last progress: ℓ_p decreasing by
// more than kRoundoffCostTolerance |ℓ_p|, or ‖D∇ℓ_p‖ halving (near the
// minimum the cost changes below its ulps while Newton still reduces the
// gradient quadratically: that is progress too).
class RoundoffStall {
 public:
  // The cost and gradient norm of the next iterate; true once no progress
  // was made for kRoundoffStallIterations iterations.
  bool Stalled(double cost, double gradient_norm) {
    const bool cost_decreased =
        best_cost_ - cost > SapSolver::kRoundoffCostTolerance * std::abs(cost);
    const bool gradient_decreased = gradient_norm < 0.5 * best_gradient_norm_;
    if (cost_decreased || gradient_decreased) {
      best_cost_ = std::min(best_cost_, cost);
      best_gradient_norm_ = std::min(best_gradient_norm_, gradient_norm);
      iterations_ = 0;
    } else {
      ++iterations_;
    }
    return iterations_ >= SapSolver::kRoundoffStallIterations;
  }

 private:
  double best_cost_ = std::numeric_limits<double>::infinity();
  double best_gradient_norm_ = std::numeric_limits<double>::infinity();
  int iterations_ = 0;
};

}  // namespace

SapSolverStatistics SapSolver::Solve(const ContactProblem& problem,
                                     Eigen::Ref<const Eigen::VectorXd> v_guess,
                                     SapSolution* solution) {
  const Stopwatch stopwatch;
  if (!problem.finalized())
    throw std::logic_error("SapSolver: the problem is not finalized");
  if (v_guess.size() != 0 && v_guess.size() != problem.num_dofs()) {
    throw std::invalid_argument("SapSolver: initial guess has " +
                                std::to_string(v_guess.size()) + " entries, expected " +
                                std::to_string(problem.num_dofs()));
  }
  if (v_guess.size() != 0) {
    guess_ = v_guess;
  } else {
    guess_ = problem.v_star();
  }
  SapSolverStatistics stats;
  if (parameters_.working_set && SelectInitialWorkingSet(problem)) {
    stats = SolveOnWorkingSet(problem, solution);
  }
  if (stats.working_set_rounds == 0 || !Succeeded(stats)) {
    // No working set, or it did not converge: the whole problem, from the
    // v_c at guess_ that the choice of a working set computed.
    const int iterations = stats.iterations, rounds = stats.working_set_rounds,
              joins = stats.island_joins;
    const std::int64_t clique_updates = stats.clique_updates;
    std::vector<SapIterationRecord> history = std::move(stats.history);
    stats = SolveFrom(problem, guess_, parameters_.working_set ? &guess_v_c_ : nullptr,
                      parameters_.max_iterations, solution, &history);
    stats.iterations += iterations;
    stats.clique_updates += clique_updates;
    stats.working_set_rounds = rounds;
    stats.island_joins += joins;
    stats.history = std::move(history);
  }
  stats.total_time_s = stopwatch.Seconds();
  return stats;
}

bool SapSolver::ConstraintActive(const ContactProblem& problem, int index,
                                 const Eigen::VectorXd& v) const {
  return problem.potential(index).HasImpulse(problem.ConstraintVelocity(index, v));
}

bool SapSolver::SelectInitialWorkingSet(const ContactProblem& problem) {
  working_set_.clear();
  left_out_.clear();
  // Capacity for every constraint at once: the lists change without allocating.
  working_set_.reserve(problem.num_constraints());
  left_out_.reserve(problem.num_constraints());
  grown_set_.reserve(problem.num_constraints());
  joining_.reserve(problem.num_constraints());
  problem.CalcConstraintVelocities(guess_, &guess_v_c_);
  // Without a constraint between two cliques there is no coupling for the
  // set to leave out (a robot on the ground): no need to sort them.
  bool couples_cliques = false;
  for (int index = 0; index < problem.num_constraints() && !couples_cliques; ++index)
    couples_cliques = problem.constraint(index).jacobian.size() > 1;
  if (!couples_cliques) return false;
  for (int index = 0; index < problem.num_constraints(); ++index) {
    const ConstraintVector v_c = guess_v_c_.segment(problem.constraint_offset(index),
                                                    problem.constraint_size(index));
    const bool active = problem.potential(index).HasImpulse(v_c) ||
                        ConstraintActive(problem, index, problem.v_star());
    (active ? working_set_ : left_out_).push_back(index);
  }
  const auto [all_pairs, working_pairs] = CountCoupledCliquePairs(problem);
  return all_pairs > 0 && working_pairs <= kWorkingSetCouplingShare * all_pairs;
}

std::pair<int, int> SapSolver::CountCoupledCliquePairs(const ContactProblem& problem) {
  // One key per clique pair of each constraint: the pair, then a bit that is
  // 0 when the constraint is in the working set, so that once sorted a
  // pair's first key says whether the working set couples it.
  clique_pairs_.clear();
  size_t next_in_set = 0;
  for (int index = 0; index < problem.num_constraints(); ++index) {
    const bool in_set =
        next_in_set < working_set_.size() && working_set_[next_in_set] == index;
    if (in_set) ++next_in_set;
    const std::vector<JacobianBlock>& blocks = problem.constraint(index).jacobian;
    for (size_t a = 0; a < blocks.size(); ++a) {
      for (size_t b = 0; b < a; ++b) {
        const auto [low, high] = std::minmax(blocks[a].clique, blocks[b].clique);
        clique_pairs_.push_back(static_cast<uint64_t>(low) << 33 |
                                static_cast<uint64_t>(high) << 1 | (in_set ? 0 : 1));
      }
    }
  }
  std::sort(clique_pairs_.begin(), clique_pairs_.end());
  int all_pairs = 0, working_pairs = 0;
  for (size_t k = 0; k < clique_pairs_.size(); ++k) {
    if (k > 0 && clique_pairs_[k] >> 1 == clique_pairs_[k - 1] >> 1) continue;
    ++all_pairs;
    if ((clique_pairs_[k] & 1) == 0) ++working_pairs;
  }
  return {all_pairs, working_pairs};
}

bool SapSolver::GrowWorkingSet(const ContactProblem& problem, const Eigen::VectorXd& v,
                               bool moved_only) {
  const auto moved = [&](int index) {
    for (const JacobianBlock& block : problem.constraint(index).jacobian) {
      if (clique_active_[block.clique]) return true;
    }
    return false;
  };
  joining_.clear();
  for (int index : left_out_) {
    if ((!moved_only || moved(index)) && ConstraintActive(problem, index, v))
      joining_.push_back(index);
  }
  if (joining_.empty()) return false;
  // Both lists stay increasing: the joining constraints merged into the
  // set and taken out of those left out.
  grown_set_.clear();
  std::merge(working_set_.begin(), working_set_.end(), joining_.begin(), joining_.end(),
             std::back_inserter(grown_set_));
  working_set_.swap(grown_set_);
  size_t next_joining = 0, kept = 0;
  for (int index : left_out_) {
    if (next_joining < joining_.size() && joining_[next_joining] == index) {
      ++next_joining;
    } else {
      left_out_[kept++] = index;
    }
  }
  left_out_.resize(kept);
  return true;
}

SapSolverStatistics SapSolver::SolveOnWorkingSet(const ContactProblem& problem,
                                                 SapSolution* solution) {
  SapSolverStatistics total;
  const int budget = std::min(parameters_.max_iterations, kWorkingSetMaxIterations);
  subproblem_guess_ = guess_;
  if (!subproblem_) subproblem_.emplace(problem.time_step());
  whole_problem_ = &problem;
  while (true) {
    subproblem_->ResetToSubproblem(problem, working_set_);
    const SapSolverStatistics round =
        SolveFrom(*subproblem_, subproblem_guess_, nullptr, budget - total.iterations,
                  &subproblem_solution_, &total.history);
    const bool finished = Succeeded(round);
    AccumulateRound(round, &total);
    // Grown at an iterate (SolveFrom checks after every step) or at the
    // converged solution: another round from there.
    if (!working_set_grew_) {
      if (!finished || !GrowWorkingSet(problem, subproblem_solution_.v, false)) break;
      // The round's closing record is not the end of the solve.
      if (parameters_.keep_history) total.history.pop_back();
    }
    subproblem_guess_ = subproblem_solution_.v;
  }
  whole_problem_ = nullptr;
  // The whole problem's v_c and γ at the result.
  solution->v = subproblem_solution_.v;
  problem.CalcConstraintVelocities(solution->v, &solution->v_c);
  solution->gamma.resize(problem.num_constraint_equations());
  for (int index = 0; index < problem.num_constraints(); ++index) {
    const ConvexConstraint& potential = problem.potential(index);
    const int offset = problem.constraint_offset(index);
    const int size = potential.num_equations();
    ConstraintVector gamma;
    potential.Evaluate(solution->v_c.segment(offset, size), &gamma, nullptr);
    solution->gamma.segment(offset, size) = gamma;
  }
  total.complementarity_error = ComplementarityError(problem, *solution, total.cost);
  return total;
}

void SapSolver::AccumulateRound(const SapSolverStatistics& round,
                                SapSolverStatistics* total) const {
  total->status = round.status;
  total->iterations += round.iterations;
  total->clique_updates += round.clique_updates;
  total->line_search_iterations += round.line_search_iterations;
  total->cost = round.cost;
  total->momentum_error = round.momentum_error;
  total->complementarity_error = round.complementarity_error;
  total->num_islands = round.num_islands;
  total->island_joins += round.island_joins;
  total->symbolic_analysis = total->symbolic_analysis || round.symbolic_analysis;
  total->factorization_time_s += round.factorization_time_s;
  ++total->working_set_rounds;
  total->working_set_size = static_cast<int>(working_set_.size());
}

SapSolverStatistics SapSolver::SolveFrom(const ContactProblem& problem,
                                         const Eigen::VectorXd& v_start,
                                         const ReusableVector* v_c_start,
                                         int max_iterations, SapSolution* solution,
                                         std::vector<SapIterationRecord>* history) {
  const Workspace workspace = SetUpWorkspace(problem);
  solution->v = v_start;
  // v_c = J v + b and A (v − v*) here, then moved with v by each step
  // (UpdateAlongDirection).
  if (v_c_start != nullptr) {
    solution->v_c = *v_c_start;
  } else {
    problem.CalcConstraintVelocities(solution->v, &solution->v_c);
  }
  ResetIslands(problem, solution);
  velocity_error_ = solution->v - problem.v_star();
  problem.MultiplyByA(velocity_error_, &a_times_velocity_error_);
  if (parameters_.momentum_relative_to_guess) {
    momentum_origin_ = guess_;
  } else {
    momentum_origin_.setZero();
  }
  // A (v* − origin): the momentum A (v − origin) is then A (v − v*) plus it.
  origin_error_ = problem.v_star() - momentum_origin_;
  problem.MultiplyByA(origin_error_, &a_times_origin_error_);

  working_set_grew_ = false;
  SapSolverStatistics stats;
  stats.num_islands = islands_.num_islands();
  stats.symbolic_analysis = workspace == Workspace::kRebuilt;
  stats.working_set_size = problem.num_constraints();
  const size_t history_size = history->size() + std::max(max_iterations, 0) + 1;
  if (parameters_.keep_history && history->capacity() < history_size) {
    history->reserve(history_size);  // the solve's one allocation
  }
  const auto keep = [&](const SapIterationRecord& iteration) {
    if (parameters_.keep_history) history->push_back(iteration);
  };
  Evaluation evaluation;
  RoundoffStall stall;
  int iterations_after_growth = 0;  // since the working set grew, in this round
  while (true) {
    evaluation = Evaluate(problem, /*with_hessians=*/true, solution);
    SapIterationRecord record{evaluation.cost, evaluation.gradient_norm, 0.0, 0};
    const double tolerance =
        parameters_.abs_tolerance + parameters_.rel_tolerance * evaluation.momentum_scale;
    if (evaluation.gradient_norm < tolerance) {
      stats.status = SolverStatus::kConverged;
      keep(record);
      break;
    }
    if (!std::isfinite(evaluation.cost) || !std::isfinite(evaluation.gradient_norm) ||
        !std::isfinite(evaluation.momentum_scale)) {
      stats.status = SolverStatus::kNotFinite;
      keep(record);
      break;
    }
    if (stall.Stalled(evaluation.cost, evaluation.gradient_norm) &&
        evaluation.gradient_norm <
            kRoundoffAcceptance * parameters_.rel_tolerance * evaluation.momentum_scale) {
      stats.status = SolverStatus::kConvergedAtRoundoff;
      keep(record);
      break;
    }
    if (stats.iterations >= max_iterations) {
      stats.status = SolverStatus::kMaxIterationsReached;
      keep(record);
      break;
    }
    SetAsideConvergedIslands(problem);
    const Stopwatch factor_stopwatch;
    const bool factored = factorization_->Factor(problem, constraint_hessians_);
    if (factored) {
      // Δv = −H⁻¹∇ℓ_p on the cliques still iterated; it stays zero on those
      // set aside (SetAsideConvergedIslands), which the solve leaves alone.
      for (int clique : active_cliques_) {
        ForCliqueEntries(problem, clique,
                         [&](auto entries) { entries(delta_v_) = -entries(gradient_); });
      }
      factorization_->Solve(delta_v_);
    }
    stats.factorization_time_s += factor_stopwatch.Seconds();
    if (!factored) {
      stats.status = SolverStatus::kFactorizationFailed;
      keep(record);
      break;
    }
    const bool stepped = UpdateAlongDirection(problem, solution, &record);
    keep(record);
    stats.line_search_iterations += record.line_search_iterations;
    if (!stepped) {
      stats.status = SolverStatus::kLineSearchFailed;
      evaluation = Evaluate(problem, /*with_hessians=*/false, solution);
      break;
    }
    ++stats.iterations;
    stats.clique_updates += static_cast<std::int64_t>(active_cliques_.size());
    // Islands set aside have not moved since their last check: only the
    // constraints on a clique that stepped can have engaged.
    if (whole_problem_ != nullptr &&
        GrowWorkingSet(*whole_problem_, solution->v, /*moved_only=*/true)) {
      // Also what the next full Newton step would engage: fewer rounds.
      look_ahead_ = solution->v + delta_v_;
      GrowWorkingSet(*whole_problem_, look_ahead_, /*moved_only=*/true);
      working_set_grew_ = true;
    }
    if (working_set_grew_ &&
        iterations_after_growth++ >= kWorkingSetIterationsAfterGrowth)
      break;
  }
  stats.island_joins = island_joins_;
  stats.cost = evaluation.cost;
  stats.momentum_error =
      evaluation.momentum_scale > 0.0
          ? evaluation.gradient_norm / evaluation.momentum_scale
          : (evaluation.gradient_norm > 0.0 ? std::numeric_limits<double>::infinity()
                                            : 0.0);
  // A working set's round: SolveOnWorkingSet measures it on the whole problem.
  if (whole_problem_ == nullptr)
    stats.complementarity_error =
        ComplementarityError(problem, *solution, evaluation.cost);
  return stats;
}

SapSolver::Evaluation SapSolver::Evaluate(const ContactProblem& problem,
                                          bool with_hessians, SapSolution* solution) {
  solution->gamma.resize(problem.num_constraint_equations());
  for (int index : active_constraints_) {
    const int offset = problem.constraint_offset(index);
    double* hessian = nullptr;
    if (with_hessians) {
      const int size = problem.constraint_size(index);
      constraint_hessians_[index].resize(size, size);
      hessian = constraint_hessians_[index].data();
    }
    constraint_costs_[index] = problem.potential(index).EvaluateOnStorage(
        solution->v_c.data() + offset, solution->gamma.data() + offset, hessian);
  }
  for (int clique : active_cliques_) {
    ForCliqueEntries(problem, clique,
                     [&](auto entries) { entries(generalized_impulse_).setZero(); });
  }
  problem.AddJacobianTransposeTimes(solution->gamma, active_constraints_,
                                    generalized_impulse_);
  IslandShare total = set_aside_;
  for (int island : active_islands_) {
    island_shares_[island] = EvaluateIsland(problem, island);
    total += island_shares_[island];
  }
  Evaluation evaluation;
  evaluation.cost = total.cost;
  evaluation.gradient_norm = std::sqrt(total.gradient_squared);
  evaluation.momentum_scale =
      std::sqrt(std::max(total.momentum_squared, total.impulse_squared));
  return evaluation;
}

SapSolver::IslandShare SapSolver::EvaluateIsland(const ContactProblem& problem,
                                                 int island) {
  IslandShare share;
  for (int index : islands_.constraints(island)) share.cost += constraint_costs_[index];
  for (int clique : islands_.cliques(island)) {
    ForCliqueEntries(problem, clique, [&](auto entries) {
      const auto d = entries(inverse_sqrt_diagonal_);
      const auto a_error = entries(a_times_velocity_error_);
      const auto impulse = entries(generalized_impulse_);
      auto momentum = entries(momentum_);
      auto gradient = entries(gradient_);
      momentum = a_error + entries(a_times_origin_error_);
      gradient = a_error - impulse;
      share.cost += 0.5 * entries(velocity_error_).dot(a_error);
      share.gradient_squared += d.cwiseProduct(gradient).squaredNorm();
      share.momentum_squared += d.cwiseProduct(momentum).squaredNorm();
      share.impulse_squared += d.cwiseProduct(impulse).squaredNorm();
    });
  }
  return share;
}

void SapSolver::SetAsideConvergedIslands(const ContactProblem& problem) {
  const double abs_share =
      parameters_.abs_tolerance /
      std::sqrt(static_cast<double>(islands_.num_nonempty_islands()));
  set_aside_cliques_.clear();
  for (int island : active_islands_) {
    const IslandShare& share = island_shares_[island];
    const double tolerance =
        abs_share +
        parameters_.rel_tolerance *
            std::sqrt(0.5 * std::max(share.momentum_squared, share.impulse_squared));
    if (std::sqrt(share.gradient_squared) > tolerance) continue;
    island_active_[island] = 0;
    for (int clique : islands_.cliques(island)) {
      clique_active_[clique] = 0;
      set_aside_cliques_.push_back(clique);
      ForCliqueEntries(problem, clique,
                       [&](auto entries) { entries(delta_v_).setZero(); });
    }
    set_aside_ += share;
  }
  if (set_aside_cliques_.empty()) return;
  factorization_->SetCliquesAside(set_aside_cliques_);
  ListActiveIslands();
}

void SapSolver::ListActiveIslands() {
  active_constraints_.clear();
  active_cliques_.clear();
  active_islands_.clear();
  for (int island = 0; island < islands_.num_islands(); ++island) {
    if (!island_active_[island]) continue;
    active_islands_.push_back(island);
    const std::span<const int> constraints = islands_.constraints(island);
    const std::span<const int> cliques = islands_.cliques(island);
    active_constraints_.insert(active_constraints_.end(), constraints.begin(),
                               constraints.end());
    active_cliques_.insert(active_cliques_.end(), cliques.begin(), cliques.end());
  }
}

void SapSolver::ResetIslands(const ContactProblem& problem, SapSolution* solution) {
  // A working set's round keeps every constraint engaged: the set holds the
  // constraints with an impulse already (and those about to engage), so
  // islands of their own would only add work.
  const bool whole_problem = whole_problem_ == nullptr;
  for (int index = 0; index < problem.num_constraints(); ++index) {
    const int size = problem.constraint_size(index);
    const ConvexConstraint& potential = problem.potential(index);
    engaged_[index] = !whole_problem || !potential.VanishesWithoutImpulse() ||
                      potential.HasImpulse(
                          solution->v_c.segment(problem.constraint_offset(index), size));
  }
  islands_.Build(problem, engaged_, factorization_->partition().supernode_of_clique);
  // A crossing constraint is disengaged wherever the solve has been: γ = 0
  // and G = 0, which stay until it joins an island (Evaluate skips it).
  solution->gamma.resize(problem.num_constraint_equations());
  for (int index : islands_.crossing()) {
    const int size = problem.constraint_size(index);
    constraint_hessians_[index].setZero(size, size);
    solution->gamma.segment(problem.constraint_offset(index), size).setZero();
  }
  island_active_.assign(islands_.num_islands(), 1);
  island_shares_.resize(islands_.num_islands());
  island_steps_.resize(islands_.num_islands());
  set_aside_ = {};
  std::fill(clique_active_.begin(), clique_active_.end(), 1);
  trial_v_ = solution->v;
  island_joins_ = 0;
  IslandsChanged();
}

bool SapSolver::CrossingConstraintEngagedAtTrial(const ContactProblem& problem,
                                                 const SapSolution& solution) {
  moved_crossing_.clear();
  if (!islands_.any_crossing_at_build()) return false;
  // trial_v_ equals v but on the cliques still iterated (ResetIslands and
  // every step keep it so): only theirs are written.
  for (int island : active_islands_) {
    const double alpha = island_steps_[island].alpha;
    for (int clique : islands_.cliques(island)) {
      ForCliqueEntries(problem, clique, [&](auto entries) {
        entries(trial_v_) = entries(solution.v) + alpha * entries(delta_v_);
      });
    }
  }
  // The crossing constraints on those cliques, each once.
  if (crossing_visit_stamp_ == std::numeric_limits<int>::max()) {
    std::fill(crossing_visit_.begin(), crossing_visit_.end(), 0);
    crossing_visit_stamp_ = 0;
  }
  ++crossing_visit_stamp_;
  for (int clique : active_cliques_) {
    for (int index : islands_.crossing_at_build(clique)) {
      if (!islands_.is_crossing(index) || crossing_visit_[index] == crossing_visit_stamp_)
        continue;
      crossing_visit_[index] = crossing_visit_stamp_;
      moved_crossing_.push_back(index);
    }
  }
  engaged_crossing_.clear();
  crossing_v_c_.resize(moved_crossing_.size());
  for (size_t k = 0; k < moved_crossing_.size(); ++k) {
    crossing_v_c_[k] = problem.ConstraintVelocity(moved_crossing_[k], trial_v_);
    if (problem.potential(moved_crossing_[k]).HasImpulse(crossing_v_c_[k]))
      engaged_crossing_.push_back(moved_crossing_[k]);
  }
  // In increasing order: the order of the joins.
  std::sort(engaged_crossing_.begin(), engaged_crossing_.end());
  return !engaged_crossing_.empty();
}

void SapSolver::JoinIslands(const ContactProblem& problem) {
  joined_islands_.clear();
  for (int index : engaged_crossing_) {
    const int island = islands_.Join(problem, index);
    if (island < 0) continue;
    joined_islands_.push_back(island);
    ++island_joins_;
  }
  // A later Join may have taken in an earlier one's island (left empty).
  std::erase_if(joined_islands_,
                [&](int island) { return islands_.cliques(island).empty(); });
  island_active_.resize(islands_.num_islands(), 0);
  island_shares_.resize(islands_.num_islands());
  island_steps_.resize(islands_.num_islands());
  // The joined islands are iterated, with any clique set aside in them (its
  // Δv is zero: the direction is still one of descent); the islands they
  // took in are empty, and set_aside_ is summed again over the others.
  for (int island : joined_islands_) {
    island_active_[island] = 1;
    for (int clique : islands_.cliques(island)) clique_active_[clique] = 1;
  }
  set_aside_ = {};
  for (int island = 0; island < islands_.num_islands(); ++island) {
    if (islands_.cliques(island).empty()) island_active_[island] = 0;
    if (!island_active_[island] && !islands_.cliques(island).empty())
      set_aside_ += island_shares_[island];
  }
  IslandsChanged();
}

void SapSolver::IslandsChanged() {
  island_segment_offset_.resize(islands_.num_islands());
  for (int island = 0, offset = 0; island < islands_.num_islands(); ++island) {
    island_segment_offset_[island] = offset;
    offset += static_cast<int>(islands_.constraints(island).size());
  }
  moved_crossing_.clear();
  factorization_->SetActiveCliques(clique_active_);
  ListActiveIslands();
}

void SapSolver::SearchIslands(const ContactProblem& problem, const SapSolution& solution,
                              const std::vector<int>& islands) {
  // Each island reads and writes only its own entries.
  const auto search = [&](int k) {
    island_steps_[islands[k]] = IslandStepLength(problem, solution, islands[k]);
  };
  const int count = static_cast<int>(islands.size());
  if (ParallelIslands()) {
    pool_->ParallelFor(count, search);
  } else {
    for (int k = 0; k < count; ++k) search(k);
  }
}

bool SapSolver::UpdateAlongDirection(const ContactProblem& problem, SapSolution* solution,
                                     SapIterationRecord* record) {
  problem.MultiplyByJacobian(delta_v_, active_constraints_, delta_v_c_);
  problem.MultiplyByA(delta_v_, active_cliques_, delta_p_);
  SearchIslands(problem, *solution, active_islands_);
  const auto all_succeeded = [&] {
    return std::all_of(active_islands_.begin(), active_islands_.end(),
                       [&](int island) { return island_steps_[island].succeeded; });
  };
  bool succeeded = all_succeeded();
  // A constraint between islands that their steps would engage joins them,
  // and the joined island searches again along the same Δv: a descent
  // direction for it too, since that constraint adds nothing to ∇ℓ_p at v.
  while (succeeded && CrossingConstraintEngagedAtTrial(problem, *solution)) {
    JoinIslands(problem);
    for (int island : joined_islands_) {
      problem.MultiplyByJacobian(delta_v_, islands_.constraints(island), delta_v_c_);
      problem.MultiplyByA(delta_v_, islands_.cliques(island), delta_p_);
    }
    SearchIslands(problem, *solution, joined_islands_);
    succeeded = all_succeeded();
  }
  record->min_alpha = std::numeric_limits<double>::infinity();
  for (int island : active_islands_) {
    const LineSearchResult& step = island_steps_[island];
    // Islands are independent: count the longest search, not their sum.
    record->line_search_iterations =
        std::max(record->line_search_iterations, step.iterations);
    if (step.succeeded) record->min_alpha = std::min(record->min_alpha, step.alpha);
  }
  if (!succeeded) return false;
  const auto step = [&](int k) {
    const int island = active_islands_[k];
    StepIsland(problem, island, island_steps_[island].alpha, solution);
  };
  const int num_active = static_cast<int>(active_islands_.size());
  if (ParallelIslands()) {
    pool_->ParallelFor(num_active, step);
  } else {
    for (int k = 0; k < num_active; ++k) step(k);
  }
  for (size_t k = 0; k < moved_crossing_.size(); ++k) {
    solution->v_c.segment(problem.constraint_offset(moved_crossing_[k]),
                          crossing_v_c_[k].size()) = crossing_v_c_[k];
  }
  return true;
}

void SapSolver::StepIsland(const ContactProblem& problem, int island, double alpha,
                           SapSolution* solution) {
  for (int clique : islands_.cliques(island)) {
    ForCliqueEntries(problem, clique, [&](auto entries) {
      entries(solution->v) += alpha * entries(delta_v_);
      entries(velocity_error_) += alpha * entries(delta_v_);
      entries(a_times_velocity_error_) += alpha * entries(delta_p_);
    });
  }
  // v_c = J v + b moves by α Δv_c: 3 products per contact, not J v again.
  for (int index : islands_.constraints(island)) {
    ForConstraintEntries(problem, index, [&](auto entries) {
      entries(solution->v_c) += alpha * entries(delta_v_c_);
    });
  }
}

LineSearchResult SapSolver::IslandStepLength(const ContactProblem& problem,
                                             const SapSolution& solution,
                                             int island) const {
  const std::span<const int> constraints = islands_.constraints(island);
  if (constraints.empty()) {
    // ℓ is quadratic on this island: the Newton step is its exact minimizer.
    return {1.0, 0, true};
  }
  double c = 0.0, a = 0.0, b = 0.0;
  for (int clique : islands_.cliques(island)) {
    ForCliqueEntries(problem, clique, [&](auto entries) {
      const auto error = entries(velocity_error_);
      const auto delta_p = entries(delta_p_);
      c += 0.5 * error.dot(entries(a_times_velocity_error_));
      a += delta_p.dot(error);
      b += delta_p.dot(entries(delta_v_));
    });
  }
  double slope0 = a;
  double slope_magnitude = std::abs(a);
  for (int index : constraints) {
    ForConstraintEntries(problem, index, [&](auto entries) {
      const double term = entries(delta_v_c_).dot(entries(solution.gamma));
      slope0 -= term;
      slope_magnitude += std::abs(term);
    });
  }
  // dℓ/dα sums terms of this magnitude: its round-off is a few ulps of it.
  const double slope_roundoff =
      64.0 * std::numeric_limits<double>::epsilon() * slope_magnitude;
  const std::span<int> segment_storage(
      segment_storage_.data() + island_segment_offset_[island], constraints.size());
  IslandLineFunction line(problem, constraints, solution.v_c, delta_v_c_, c, a, b,
                          segment_storage);
  return parameters_.line_search == LineSearchType::kExact
             ? ExactLineSearch(line, slope0, slope_roundoff, parameters_)
             : BacktrackingLineSearch(line, slope0, slope_roundoff, parameters_);
}

double SapSolver::ComplementarityError(const ContactProblem& problem,
                                       const SapSolution& solution, double cost) const {
  if (problem.num_constraints() == 0 || !(cost > 0.0)) return 0.0;
  double sum = 0.0;
  for (int index = 0; index < problem.num_constraints(); ++index) {
    const ConvexConstraint& potential = problem.potential(index);
    const int offset = problem.constraint_offset(index);
    const int size = potential.num_equations();
    sum += std::abs(potential.ComplementarityProduct(
        solution.v_c.segment(offset, size), solution.gamma.segment(offset, size)));
  }
  return sum / problem.num_constraints() / cost;
}

}  // namespace coulomb
