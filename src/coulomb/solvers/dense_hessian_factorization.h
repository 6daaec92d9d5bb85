#pragma once

#include "coulomb/solvers/hessian_factorization.h"

namespace coulomb {

// H = A + JᵀGJ assembled as a dense n_v × n_v matrix and factored by dense
// Cholesky, O(n_v³). The reference path; fine for small problems.
class DenseHessianFactorization final : public HessianFactorization {
 public:
  explicit DenseHessianFactorization(const ContactProblem& problem);

 private:
  bool AssembleAndFactor(const ContactProblem& problem,
                         const std::vector<ConstraintMatrix>& hessians) override;
  void SolvePermuted(Eigen::Ref<Eigen::VectorXd> b) const override;
  // H sized for the problem's dofs.
  void AnalyzePattern(const ContactProblem& problem) override;

  Eigen::MatrixXd h_;
  Eigen::LLT<Eigen::MatrixXd> llt_;
};

}  // namespace coulomb
