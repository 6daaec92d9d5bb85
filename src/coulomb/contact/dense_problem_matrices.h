#pragma once

#include <Eigen/Dense>

#include "coulomb/contact/contact_problem.h"

namespace coulomb {

// The contact problem's operators as dense matrices, for the dense paths of
// small problems (CANAL's semismooth inner solvers, tests):
//   A = blockdiag(A_t)                  n_v × n_v,
//   J = [J_it] stacked per constraint   m × n_v (m = num_constraint_equations),
// with the velocities ordered as in the problem (clique_offset) and the
// constraint rows as in v_c (constraint_offset). O(n_v² + m n_v) storage.
void AssembleDenseA(const ContactProblem& problem, Eigen::MatrixXd* a);
void AssembleDenseJacobian(const ContactProblem& problem, Eigen::MatrixXd* jacobian);

}  // namespace coulomb
