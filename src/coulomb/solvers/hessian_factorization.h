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

  // G_i J_it for every Jacobian block, recomputed by UpdateHessianTimesJacobian.
  void UpdateHessianTimesJacobian(const ContactProblem& problem,
                                  const std::vector<ConstraintMatrix>& hessians);
  const Eigen::MatrixXd& hessian_times_jacobian(int constraint, int block) const {
    return g_times_j_[constraint][block];
  }

 private:
  std::vector<std::vector<Eigen::MatrixXd>> g_times_j_;
};

std::unique_ptr<HessianFactorization> MakeHessianFactorization(LinearSolverType type,
                                                               const ContactProblem& problem,
                                                               const CliqueGraph& graph);

}  // namespace coulomb
