#pragma once

#include <array>
#include <memory>
#include <string_view>
#include <utility>
#include <vector>

#include <Eigen/Dense>

#include "coulomb/base/named_enum.h"
#include "coulomb/contact/contact_problem.h"
#include "coulomb/math/reusable_dense.h"
#include "coulomb/solvers/contact_ncp.h"
#include "coulomb/solvers/sap_solver_parameters.h"
#include "coulomb/solvers/sap_statistics.h"
#include "coulomb/solvers/solver_status.h"

namespace coulomb {

// The solvers of a contact problem (ContactProblem):
// * kSap: SAP's Newton method on the convex problem of the constraints'
//   potentials (SAP §IV) — compliant contact, any contact model;
// * kCanal, kSubAdmm, kSubAdmmNoBody, kAdmm, kPgs: the exact NCP of the
//   constraints' rigid laws (ContactNcp, AL §III): CANAL (AL §V), SubADMM
//   split per tree and per body, per tree only ("No Body") or not at all
//   ("No Sub") (AL §VI, §VII-D2), projected Gauss–Seidel;
// * kDual, kDualCcp: the dual (impulse) form of the cone complementarity
//   problem by accelerated projected gradient (DualSolver), with SAP's
//   regularization (its solution is SAP's) or without (Anitescu's CCP).
enum class ContactSolverKind {
  kSap,
  kCanal,
  kSubAdmm,
  kSubAdmmNoBody,
  kAdmm,
  kPgs,
  kDual,
  kDualCcp
};

template <>
struct EnumNames<ContactSolverKind> {
  static constexpr std::string_view kWhat = "solver";
  static constexpr std::array<std::pair<ContactSolverKind, std::string_view>, 8> kNames =
      {{
          {ContactSolverKind::kSap, "sap"},
          {ContactSolverKind::kCanal, "canal"},
          {ContactSolverKind::kSubAdmm, "subadmm"},
          {ContactSolverKind::kSubAdmmNoBody, "subadmm-nobody"},
          {ContactSolverKind::kAdmm, "admm"},
          {ContactSolverKind::kPgs, "pgs"},
          {ContactSolverKind::kDual, "dual"},
          {ContactSolverKind::kDualCcp, "dual-ccp"},
      }};
};
inline std::string ToString(ContactSolverKind kind) {
  return std::string(EnumName(kind));
}

// What every solve reports. Fields a solver does not compute stay 0.
struct ContactSolverStatistics {
  ContactSolverKind solver = ContactSolverKind::kSap;
  SolverStatus status = SolverStatus::kMaxIterationsReached;
  // Newton iterations (SAP), outer iterations (CANAL), ADMM iterations
  // (SubADMM), sweeps (PGS).
  int iterations = 0;
  int inner_iterations = 0;        // CANAL: Newton iterations of its inner solves
  int inner_solves = 0;            // CANAL: inner solves (one per outer iteration)
  int inner_failures = 0;          // CANAL: inner solves that missed their tolerance
  int fallback_iterations = 0;     // CANAL: its ADMM fallback's iterations
  int line_search_iterations = 0;  // SAP
  // SAP: the Newton iterations each clique went through, averaged over the
  // cliques (SapSolverStatistics::clique_updates); at most `iterations`, the
  // slowest island's.
  double clique_iterations = 0.0;
  // SAP: e_m (SAP eq. 32) and e_μ (eq. 33). The NCP solvers return
  // v = v* + A⁻¹Jᵀλ, which balances momentum exactly: e_m = 0.
  double momentum_error = 0.0;
  double complementarity_error = 0.0;
  // NCP solvers: the normalized natural-map residual of their NCP.
  double ncp_residual = 0.0;
  double primal_residual = 0.0;  // CANAL, SubADMM: ‖J v − z‖ at the end
  double dual_gap = 0.0;         // dual: SAP's ℓ_p(v) + f(λ) ≥ 0 (0 at the solution)
  double cost = 0.0;             // SAP: ℓ_p at the returned v
  int num_islands = 0;           // SAP
  int working_set_rounds = 0;    // SAP: sub-problems of its working set solved
  bool symbolic_analysis = false;  // SAP: the symbolic factorization was redone
  double factorization_time_s = 0.0;
  double total_time_s = 0.0;
  // Per iteration, for the solver that ran (the other stays empty; both stay
  // empty unless the options keep history).
  std::vector<SapIterationRecord> sap_history;
  std::vector<NcpIterationRecord> ncp_history;

  bool converged() const { return status == SolverStatus::kConverged; }
};

// A solution: generalized velocities v and the impulses γ per constraint,
// stacked like the problem's constraint velocities v_c (3 per contact, order
// [t1, t2, n]; 1 per joint limit or controller).
struct ContactSolution {
  Eigen::VectorXd v;
  ReusableVector impulses;  // keeps its storage from step to step
};

// How the solver will be used, which fixes what its defaults are:
// * kSingleProblem: one problem solved to the tolerance (FCLIB, benchmarks);
//   NCP solvers stop at their standalone iteration limits, residuals use
//   FCLIB's normalization, histories are kept.
// * kTimeStepping: one problem per simulation step. SAP measures momentum
//   against the step's change (SapSolverParameters::momentum_relative_to_guess);
//   NCP solvers have a fixed per-step budget, whose end is not a failure
//   (AL §VII-C), and the contact-point speed normalization; no history, so a
//   step allocates nothing.
enum class SolverUse { kSingleProblem, kTimeStepping };

struct ContactSolverOptions {
  ContactSolverKind kind = ContactSolverKind::kSap;
  SapSolverParameters sap;
  // max_iterations 0: the solver's own limit for the use (CanalSolver,
  // SubAdmmSolver, PgsSolver: kMaxIterations standalone, kStepBudget per step).
  NcpSolverParameters ncp;
  // Worker threads (the calling one included) of SubADMM and of SAP's
  // per-island line searches; results do not depend on it.
  int threads = 1;
};

// Throws std::invalid_argument naming the field (threads < 1, a tolerance out
// of range, …).
void ValidateContactSolverOptions(const ContactSolverOptions& options);

// One interface for every contact solver. A solver object keeps its storage
// (factorizations, workspaces, threads) between solves: reuse it.
class ContactSolver {
 public:
  virtual ~ContactSolver() = default;
  virtual ContactSolverKind kind() const = 0;

  // Solves a finalized problem. v_guess: the initial velocities (empty: v*;
  // SAP's warm start). impulse_guess: the initial impulses stacked like v_c
  // (empty: 0; the NCP solvers' warm start). Never throws for a well-formed
  // problem: a failure is the status. NCP solvers throw
  // std::invalid_argument when a constraint states no rigid law.
  virtual ContactSolverStatistics Solve(const ContactProblem& problem,
                                        Eigen::Ref<const Eigen::VectorXd> v_guess,
                                        Eigen::Ref<const Eigen::VectorXd> impulse_guess,
                                        ContactSolution* solution) = 0;
};

std::unique_ptr<ContactSolver> MakeContactSolver(const ContactSolverOptions& options,
                                                 SolverUse use);

// The iterations an NCP solver may take in one simulation step
// (SolverUse::kTimeStepping): options.ncp.max_iterations, or when that is 0
// the solver's own budget (CanalSolver::kStepBudget, …). A step that ends
// there above the tolerance is accepted, not solved (AL §VII-C). 0 for SAP,
// which has no budget: a step it does not converge fails.
int NcpStepBudget(const ContactSolverOptions& options);

}  // namespace coulomb
