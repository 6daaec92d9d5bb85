#include "coulomb/solvers/hessian_condition_number.h"

#include <limits>

namespace coulomb {

Eigen::MatrixXd AssembleDenseHessian(const ContactProblem& problem,
                                     const Eigen::VectorXd& v) {
  const int n = problem.num_dofs();
  Eigen::MatrixXd hessian = Eigen::MatrixXd::Zero(n, n);
  for (int clique = 0; clique < problem.num_cliques(); ++clique) {
    const int offset = problem.clique_offset(clique);
    const int size = problem.clique_size(clique);
    hessian.block(offset, offset, size, size) = problem.clique_matrix(clique);
  }
  Eigen::VectorXd v_c;
  problem.CalcConstraintVelocities(v, &v_c);
  for (int index = 0; index < problem.num_constraints(); ++index) {
    const ProblemConstraint& constraint = problem.constraint(index);
    const int size = constraint.potential->num_equations();
    ConstraintVector gamma;
    ConstraintMatrix g;
    constraint.potential->Evaluate(v_c.segment(problem.constraint_offset(index), size),
                                   &gamma, &g);
    // J_iᵀ G_i J_i, block by block of the cliques it touches.
    for (const JacobianBlock& a : constraint.jacobian) {
      for (const JacobianBlock& b : constraint.jacobian) {
        hessian.block(problem.clique_offset(a.clique), problem.clique_offset(b.clique),
                      a.matrix.cols(), b.matrix.cols()) +=
            a.matrix.transpose() * g * b.matrix;
      }
    }
  }
  return hessian;
}

double ScaledHessianConditionNumber(const ContactProblem& problem,
                                    const Eigen::VectorXd& v) {
  const Eigen::MatrixXd hessian = AssembleDenseHessian(problem, v);
  Eigen::VectorXd scale(problem.num_dofs());
  for (int clique = 0; clique < problem.num_cliques(); ++clique) {
    scale.segment(problem.clique_offset(clique), problem.clique_size(clique)) =
        problem.clique_matrix(clique).diagonal().cwiseSqrt().cwiseInverse();
  }
  const Eigen::MatrixXd scaled = scale.asDiagonal() * hessian * scale.asDiagonal();
  const Eigen::VectorXd eigenvalues =
      Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(scaled, Eigen::EigenvaluesOnly)
          .eigenvalues();
  if (!(eigenvalues.minCoeff() > 0.0)) return std::numeric_limits<double>::infinity();
  return eigenvalues.maxCoeff() / eigenvalues.minCoeff();
}

}  // namespace coulomb
