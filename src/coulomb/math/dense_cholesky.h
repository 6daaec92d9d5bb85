#pragma once

#include <Eigen/Dense>

namespace coulomb {

// Cholesky factorization A = L Lᵀ of a dense SPD matrix in place, and the
// triangular solves with its factor, for the dense A_t of a tree (its mass
// matrix and linearized forces: a few dozen dofs, factored every step).
//
// L replaces the lower triangle of A (the diagonal included); the strict
// upper triangle is left as it was, as Eigen's LLT leaves it. Up to
// kPlainLoopsMaxSize rows the factorization and the solves are plain loops
// over columns, whose cost is their n³/6 (n²/2 per right-hand side)
// multiply–adds and the loops' overhead: at 14 rows (callgrind, a 14-dof
// robot) a solve with a contact's three rows, taken in one pass over L,
// costs about 2 100 instructions, under half of Eigen's blocked triangular
// solve, and the factorization, two columns subtracted at a time, about
// 4 650, fewer than Eigen's LLT (about 4 900). Larger matrices go through
// Eigen's blocked kernels.
inline constexpr int kPlainLoopsMaxSize = 64;

// The n × n matrix at `a` (column-major, contiguous). False if a pivot is
// not positive (A not positive definite, or not finite); the matrix is then
// partly factored.
bool CholeskyInPlace(double* a, int n);
inline bool CholeskyInPlace(Eigen::MatrixXd* a) {
  return CholeskyInPlace(a->data(), static_cast<int>(a->rows()));
}

// X ← L⁻¹ X for the n × columns matrix X at x (column-major, n = L's rows).
void SolveLowerInPlace(const Eigen::MatrixXd& l, double* x, int columns);

// x ← L⁻ᵀ x for one column of n entries.
void SolveLowerTransposeInPlace(const Eigen::MatrixXd& l, double* x);

}  // namespace coulomb
