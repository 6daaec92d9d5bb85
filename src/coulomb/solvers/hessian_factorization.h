#pragma once

#include <memory>
#include <vector>

#include <Eigen/Dense>

#include "coulomb/contact/clique_graph.h"
#include "coulomb/contact/contact_problem.h"
#include "coulomb/solvers/sap_solver_parameters.h"

namespace coulomb {

// Factorization of the Newton matrix H = A + Jᵀ G J (SAP §IV-A, math.md §2.3),
// with A = blockdiag(A_t) and G = blockdiag(G_i) ⪰ 0, so H ≻ 0.
//
// Built once per problem pattern (cliques and constraint–clique incidence),
// it keeps its storage and symbolic analysis; Factor() may be called for any
// problem with that pattern and any G.
class HessianFactorization {
 public:
  virtual ~HessianFactorization() = default;

  // Assembles and factors H. Returns false if H is not numerically SPD.
  virtual bool Factor(const ContactProblem& problem,
                      const std::vector<ConstraintMatrix>& hessians) = 0;
  // Solves H x = b in place.
  virtual void Solve(Eigen::Ref<Eigen::VectorXd> b) const = 0;

 protected:
  explicit HessianFactorization(const ContactProblem& problem);

  // Refreshes, per clique t, the stacked rows J_t of every Jacobian block on t
  // and G J_t (block by block), so that the clique's diagonal term
  // Σ_i J_itᵀ G_i J_it = J_tᵀ (G J_t) is one matrix product.
  void UpdateStackedJacobians(const ContactProblem& problem,
                              const std::vector<ConstraintMatrix>& hessians);
  const Eigen::MatrixXd& stacked_jacobian(int clique) const { return stacked_j_[clique]; }
  const Eigen::MatrixXd& stacked_hessian_times_jacobian(int clique) const {
    return stacked_gj_[clique];
  }
  // G_i J_it for block `block` of constraint `constraint`.
  auto hessian_times_jacobian(const ContactProblem& problem, int constraint,
                              int block) const {
    const JacobianBlock& jacobian = problem.constraint(constraint).jacobian[block];
    return stacked_gj_[jacobian.clique].middleRows(stacked_row_[constraint][block],
                                                   jacobian.matrix.rows());
  }

 private:
  std::vector<Eigen::MatrixXd> stacked_j_;     // per clique: m_t × n_t
  std::vector<Eigen::MatrixXd> stacked_gj_;    // per clique: m_t × n_t
  std::vector<std::vector<int>> stacked_row_;  // per constraint and block
};

std::unique_ptr<HessianFactorization> MakeHessianFactorization(
    LinearSolverType type, const ContactProblem& problem, const CliqueGraph& graph);

}  // namespace coulomb
