#include "coulomb/solvers/contact_solver.h"

#include <stdexcept>
#include <utility>

#include "coulomb/math/thread_pool.h"
#include "coulomb/solvers/canal_solver.h"
#include "coulomb/solvers/dual_solver.h"
#include "coulomb/solvers/pgs_solver.h"
#include "coulomb/solvers/sap_solver.h"
#include "coulomb/solvers/subadmm_solver.h"

namespace coulomb {
namespace {

class SapContactSolver final : public ContactSolver {
 public:
  SapContactSolver(SapSolverParameters parameters, SolverUse use, int num_threads)
      : solver_(ForUse(parameters, use), num_threads) {}
  ContactSolverKind kind() const override { return ContactSolverKind::kSap; }

  ContactSolverStatistics Solve(const ContactProblem& problem,
                                Eigen::Ref<const Eigen::VectorXd> v_guess,
                                Eigen::Ref<const Eigen::VectorXd> /*impulse_guess*/,
                                ContactSolution* solution) override {
    SapSolverStatistics sap = solver_.Solve(problem, v_guess, &solution_);
    solution->v = solution_.v;
    solution->impulses = solution_.gamma;
    ContactSolverStatistics stats;
    stats.solver = ContactSolverKind::kSap;
    stats.status = sap.status;
    stats.iterations = sap.iterations;
    stats.line_search_iterations = sap.line_search_iterations;
    stats.clique_iterations =
        problem.num_cliques() > 0
            ? static_cast<double>(sap.clique_updates) / problem.num_cliques()
            : 0.0;
    stats.momentum_error = sap.momentum_error;
    stats.complementarity_error = sap.complementarity_error;
    stats.cost = sap.cost;
    stats.num_islands = sap.num_islands;
    stats.working_set_rounds = sap.working_set_rounds;
    stats.symbolic_analysis = sap.symbolic_analysis;
    stats.factorization_time_s = sap.factorization_time_s;
    stats.total_time_s = sap.total_time_s;
    stats.sap_history = std::move(sap.history);
    return stats;
  }

 private:
  static SapSolverParameters ForUse(SapSolverParameters parameters, SolverUse use) {
    if (use == SolverUse::kTimeStepping) {
      parameters.momentum_relative_to_guess = true;
      parameters.keep_history = false;  // a per-solve allocation nobody reads
    }
    return parameters;
  }

  SapSolver solver_;
  SapSolution solution_;
};

// The NCP solvers behind the interface: the problem's NCP (rebuilt in place),
// the warm start mapped into its layout, the impulses mapped back.
class NcpContactSolver : public ContactSolver {
 public:
  explicit NcpContactSolver(SolverUse use)
      : scale_(use == SolverUse::kTimeStepping
                   ? ContactNcp::ResidualScale::kContactPointSpeed
                   : ContactNcp::ResidualScale::kFclib) {}

  ContactSolverStatistics Solve(const ContactProblem& problem,
                                Eigen::Ref<const Eigen::VectorXd> v_guess,
                                Eigen::Ref<const Eigen::VectorXd> impulse_guess,
                                ContactSolution* solution) override {
    if (ncp_) {
      ncp_->Rebuild(problem, scale_);
    } else {
      ncp_.emplace(problem, scale_);
    }
    ncp_->FromProblemImpulses(impulse_guess, &lambda_guess_);
    NcpSolverStatistics ncp = SolveNcp(*ncp_, v_guess, lambda_guess_, &ncp_solution_);
    solution->v = ncp_solution_.v;
    ncp_->ToProblemImpulses(ncp_solution_.lambda, &solution->impulses);
    ContactSolverStatistics stats;
    stats.solver = kind();
    stats.status = ncp.status;
    if (!ncp_solution_.v.allFinite() && UsableResult(stats.status)) {
      stats.status = SolverStatus::kFactorizationFailed;
    }
    stats.iterations = ncp.iterations;
    stats.inner_iterations = ncp.inner_iterations;
    stats.inner_solves = ncp.inner_solves;
    stats.inner_failures = ncp.inner_failures;
    stats.fallback_iterations = ncp.fallback_iterations;
    stats.ncp_residual = ncp.residual;
    stats.dual_gap = ncp.dual_gap;
    stats.primal_residual =
        ncp.history.empty() ? 0.0 : ncp.history.back().primal_residual;
    stats.total_time_s = ncp.total_time_s;
    stats.ncp_history = std::move(ncp.history);
    return stats;
  }

 protected:
  // The kind's step budget for `use` when the options leave max_iterations at 0.
  static NcpSolverParameters ForUse(NcpSolverParameters parameters, SolverUse use,
                                    ContactSolverKind kind) {
    if (use == SolverUse::kTimeStepping) {
      parameters.keep_history = false;  // a step allocates nothing
      ContactSolverOptions options;
      options.kind = kind;
      options.ncp = parameters;
      parameters.max_iterations = NcpStepBudget(options);
      parameters.fallback_iterations = 0;
    }
    return parameters;
  }

 private:
  virtual NcpSolverStatistics SolveNcp(const ContactNcp& ncp,
                                       Eigen::Ref<const Eigen::VectorXd> v_guess,
                                       Eigen::Ref<const Eigen::VectorXd> lambda_guess,
                                       NcpSolution* solution) = 0;

  ContactNcp::ResidualScale scale_;
  std::optional<ContactNcp> ncp_;
  ReusableVector lambda_guess_;
  NcpSolution ncp_solution_;
};

class CanalContactSolver final : public NcpContactSolver {
 public:
  CanalContactSolver(const NcpSolverParameters& parameters, SolverUse use)
      : NcpContactSolver(use),
        solver_(ForUse(parameters, use, ContactSolverKind::kCanal)) {}
  ContactSolverKind kind() const override { return ContactSolverKind::kCanal; }

 private:
  NcpSolverStatistics SolveNcp(const ContactNcp& ncp,
                               Eigen::Ref<const Eigen::VectorXd> v_guess,
                               Eigen::Ref<const Eigen::VectorXd> lambda_guess,
                               NcpSolution* solution) override {
    return solver_.Solve(ncp, v_guess, solution, lambda_guess);
  }
  CanalSolver solver_;
};

// A solver started from impulses alone (PGS, SubADMM and the dual solvers
// iterate on λ; the velocity guess is not theirs to use).
template <typename Solver>
class ImpulseStartedContactSolver : public NcpContactSolver {
 protected:
  template <typename... SolverArguments>
  explicit ImpulseStartedContactSolver(SolverUse use, SolverArguments&&... arguments)
      : NcpContactSolver(use), solver_(std::forward<SolverArguments>(arguments)...) {}

 private:
  NcpSolverStatistics SolveNcp(const ContactNcp& ncp,
                               Eigen::Ref<const Eigen::VectorXd> /*v_guess*/,
                               Eigen::Ref<const Eigen::VectorXd> lambda_guess,
                               NcpSolution* solution) override {
    return solver_.Solve(ncp, lambda_guess, solution);
  }
  Solver solver_;
};

class SubAdmmContactSolver final : public ImpulseStartedContactSolver<SubAdmmSolver> {
 public:
  SubAdmmContactSolver(const ContactSolverOptions& options, SolverUse use)
      : ImpulseStartedContactSolver(use, ForUse(options.ncp, use, options.kind),
                                    options.threads, Splitting(options.kind)),
        kind_(options.kind) {}
  ContactSolverKind kind() const override { return kind_; }

 private:
  static AdmmSplitting Splitting(ContactSolverKind kind) {
    switch (kind) {
      case ContactSolverKind::kSubAdmmNoBody:
        return AdmmSplitting::kSubsystems;
      case ContactSolverKind::kAdmm:
        return AdmmSplitting::kWholeSystem;
      default:
        return AdmmSplitting::kSubsystemsAndBodies;
    }
  }
  ContactSolverKind kind_;
};

class PgsContactSolver final : public ImpulseStartedContactSolver<PgsSolver> {
 public:
  PgsContactSolver(const NcpSolverParameters& parameters, SolverUse use)
      : ImpulseStartedContactSolver(use,
                                    ForUse(parameters, use, ContactSolverKind::kPgs)) {}
  ContactSolverKind kind() const override { return ContactSolverKind::kPgs; }
};

class DualContactSolver final : public ImpulseStartedContactSolver<DualSolver> {
 public:
  DualContactSolver(const NcpSolverParameters& parameters, SolverUse use,
                    bool regularized)
      : ImpulseStartedContactSolver(
            use, ForUse(parameters, use, ContactSolverKind::kDual), regularized),
        regularized_(regularized) {}
  ContactSolverKind kind() const override {
    return regularized_ ? ContactSolverKind::kDual : ContactSolverKind::kDualCcp;
  }

 private:
  bool regularized_;
};

}  // namespace

void ValidateContactSolverOptions(const ContactSolverOptions& options) {
  ValidateSapSolverParameters(options.sap);
  ThreadPool::CheckThreadCount(options.threads, "threads");
  if (!(options.ncp.tolerance >= 0.0)) {
    throw std::invalid_argument("ncp tolerance: must be ≥ 0");
  }
  if (options.ncp.max_iterations < 0) {
    throw std::invalid_argument("max_iterations: must be ≥ 0 (0: the solver's default)");
  }
  if (options.ncp.inner_solver != CanalInnerSolver::kCascadedNewton &&
      options.kind != ContactSolverKind::kCanal) {
    throw std::invalid_argument("--canal-inner " + ToString(options.ncp.inner_solver) +
                                " applies to --solver canal only");
  }
  if (options.ncp.delassus != DelassusForm::kAuto &&
      options.kind != ContactSolverKind::kDual &&
      options.kind != ContactSolverKind::kDualCcp) {
    throw std::invalid_argument("--delassus " + ToString(options.ncp.delassus) +
                                " applies to --solver dual or dual-ccp only");
  }
  if (!(options.ncp.de_saxce_relaxation > 0.0 &&
        options.ncp.de_saxce_relaxation <= 1.0)) {
    throw std::invalid_argument("CANAL de_saxce_relaxation: must be in (0, 1]");
  }
  if (options.ncp.fallback_iterations < 0) {
    throw std::invalid_argument("fallback_iterations: must be ≥ 0 (0: none)");
  }
  if (options.ncp.fallback_iterations > 0 && options.kind != ContactSolverKind::kCanal) {
    throw std::invalid_argument("--fallback-iterations applies to --solver canal only");
  }
  if (options.ncp.inner_max_iterations < 1) {
    throw std::invalid_argument("CANAL inner iterations: must be ≥ 1");
  }
}

std::unique_ptr<ContactSolver> MakeContactSolver(const ContactSolverOptions& options,
                                                 SolverUse use) {
  ValidateContactSolverOptions(options);
  switch (options.kind) {
    case ContactSolverKind::kSap:
      return std::make_unique<SapContactSolver>(options.sap, use, options.threads);
    case ContactSolverKind::kCanal:
      return std::make_unique<CanalContactSolver>(options.ncp, use);
    case ContactSolverKind::kSubAdmm:
    case ContactSolverKind::kSubAdmmNoBody:
    case ContactSolverKind::kAdmm:
      return std::make_unique<SubAdmmContactSolver>(options, use);
    case ContactSolverKind::kPgs:
      return std::make_unique<PgsContactSolver>(options.ncp, use);
    case ContactSolverKind::kDual:
    case ContactSolverKind::kDualCcp:
      return std::make_unique<DualContactSolver>(
          options.ncp, use, options.kind == ContactSolverKind::kDual);
  }
  throw std::logic_error("unhandled contact solver kind");
}

int NcpStepBudget(const ContactSolverOptions& options) {
  if (options.kind == ContactSolverKind::kSap) return 0;
  if (options.ncp.max_iterations > 0) return options.ncp.max_iterations;
  switch (options.kind) {
    case ContactSolverKind::kCanal:
      return CanalSolver::kStepBudget;
    case ContactSolverKind::kSubAdmm:
    case ContactSolverKind::kSubAdmmNoBody:
    case ContactSolverKind::kAdmm:
      return SubAdmmSolver::kStepBudget;
    case ContactSolverKind::kPgs:
      return PgsSolver::kStepBudget;
    case ContactSolverKind::kDual:
    case ContactSolverKind::kDualCcp:
      return DualSolver::kStepBudget;
    case ContactSolverKind::kSap:
      break;
  }
  return 0;
}

}  // namespace coulomb
