#include "coulomb/contact/dense_problem_matrices.h"

namespace coulomb {

void AssembleDenseA(const ContactProblem& problem, Eigen::MatrixXd* a) {
  a->setZero(problem.num_dofs(), problem.num_dofs());
  for (int clique = 0; clique < problem.num_cliques(); ++clique) {
    const int offset = problem.clique_offset(clique);
    const int size = problem.clique_size(clique);
    a->block(offset, offset, size, size) = problem.clique_matrix(clique);
  }
}

void AssembleDenseJacobian(const ContactProblem& problem, Eigen::MatrixXd* jacobian) {
  jacobian->setZero(problem.num_constraint_equations(), problem.num_dofs());
  for (int index = 0; index < problem.num_constraints(); ++index) {
    const int row = problem.constraint_offset(index);
    for (const JacobianBlock& block : problem.constraint(index).jacobian) {
      jacobian->block(row, problem.clique_offset(block.clique), block.matrix.rows(),
                      block.matrix.cols()) += block.matrix;
    }
  }
}

}  // namespace coulomb
