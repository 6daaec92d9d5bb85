#pragma once

#include <cstddef>
#include <cstdint>

namespace coulomb {

// T −= A Bᵀ for 6 × 6 blocks (column-major, contiguous): the block update of
// the supernodal Cholesky between rigid bodies (L_ij −= L_ik L_jkᵀ), which is
// most of a factorization of a large pile. A list of them, in order, the
// blocks of each given by their offsets into one array of values (a column's
// updates: one left block L_ik for several right ones in a row, which the
// kernels then read once). A target must not be the left block of a later
// update of the list.
//
// Two kernels with the same result up to rounding: a portable one (column j
// of T takes A times row j of B, 6 × 6 matrix–vector products on fixed-size
// maps) and, on x86-64 processors with AVX2 and FMA, one that keeps A in
// registers and applies fused multiply–adds. The build targets baseline
// x86-64, so the second is compiled for those instructions alone and chosen
// at run time.
struct BodyBlockUpdate {
  std::int64_t target, left, right;
};
void SubtractOuterProducts6Portable(double* values, const BodyBlockUpdate* updates,
                                    std::size_t count);
// Null where the processor (or compiler) lacks AVX2 and FMA.
using OuterProducts6Kernel = void (*)(double* values, const BodyBlockUpdate* updates,
                                      std::size_t count);
OuterProducts6Kernel SubtractOuterProducts6Avx2();

// The kernel for this processor.
OuterProducts6Kernel SubtractOuterProducts6Kernel();

// T += Aᵀ B for a 6 × 6 block T (column-major, contiguous) and 3 × 6 blocks
// A and B whose columns lie `a_stride` and `b_stride` apart: a contact's term
// J_iᵀ (G_i J_i) of the Hessian between two bodies (rows of larger stacked
// Jacobians). Kernels as above.
void AddTransposeProduct3x6Portable(double* t, const double* a, int a_stride,
                                    const double* b, int b_stride);
using TransposeProduct3x6Kernel = void (*)(double* t, const double* a, int a_stride,
                                           const double* b, int b_stride);
TransposeProduct3x6Kernel AddTransposeProduct3x6Avx2();
TransposeProduct3x6Kernel AddTransposeProduct3x6Kernel();

// W += J S Jᵀ for a 3 × 3 block W, a 3 × 6 block J and a symmetric 6 × 6 S
// (column-major, contiguous): a contact's Delassus block J A⁻¹ Jᵀ on a rigid
// body, assembled for every contact in every step. The six entries on and
// above W's diagonal are computed and mirrored, so W stays exactly
// symmetric. Kernels as above.
void AddCongruence3x6Portable(double* w, const double* j, const double* s);
using Congruence3x6Kernel = void (*)(double* w, const double* j, const double* s);
Congruence3x6Kernel AddCongruence3x6Avx2();
Congruence3x6Kernel AddCongruence3x6Kernel();

// The same for a diagonal S, given as its six diagonal entries d: W_qr +=
// Σ_k d_k J_qk J_rk, 36 multiply-adds where a dense S takes 162 (a free
// body's A⁻¹ in its principal axes). W stays exactly symmetric. Kernels as
// above.
void AddDiagonalCongruence3x6Portable(double* w, const double* j, const double* d);
using DiagonalCongruence3x6Kernel = void (*)(double* w, const double* j, const double* d);
DiagonalCongruence3x6Kernel AddDiagonalCongruence3x6Avx2();
DiagonalCongruence3x6Kernel AddDiagonalCongruence3x6Kernel();

// L Lᵀ = H in place for a 6 × 6 block (column-major; H's lower triangle is
// read, L written there; the upper triangle is left undefined), and
// inverse_diagonal[j] = 1 / L(j, j): a body's pivot in the Cholesky, and
// what the solves against it multiply by. False if a pivot is not positive
// (or not a number). Kernels as above.
bool FactorPivot6Portable(double* h, double* inverse_diagonal);
using PivotFactor6Kernel = bool (*)(double* h, double* inverse_diagonal);
PivotFactor6Kernel FactorPivot6Avx2();
PivotFactor6Kernel FactorPivot6Kernel();

// X ← X L⁻ᵀ for `count` 6 × 6 blocks X one after another (at x, x + 36, …),
// L lower triangular with a positive diagonal (column-major; the upper
// triangle of L is not read) and inverse_diagonal[j] = 1 / L(j, j): the
// blocks below a body's pivot in the Cholesky, L_ik = H_ik L_kk⁻ᵀ, stored in
// that order. Kernels as above.
void SolveAgainstPivot6Portable(const double* l, const double* inverse_diagonal,
                                double* x, std::size_t count);
using PivotSolve6Kernel = void (*)(const double* l, const double* inverse_diagonal,
                                   double* x, std::size_t count);
PivotSolve6Kernel SolveAgainstPivot6Avx2();
PivotSolve6Kernel SolveAgainstPivot6Kernel();

// x ← L⁻¹ x and x ← L⁻ᵀ x for a 6-vector x and a body's pivot L (as above,
// with inverse_diagonal[j] = 1 / L(j, j): multiplications, not divisions, on
// the substitutions' chain of dependences): the pivots' part of the forward
// and backward substitutions. Kernels as above.
void SolveLower6Portable(const double* l, const double* inverse_diagonal, double* x);
void SolveLowerTranspose6Portable(const double* l, const double* inverse_diagonal,
                                  double* x);
using TriangularSolve6Kernel = void (*)(const double* l, const double* inverse_diagonal,
                                        double* x);
TriangularSolve6Kernel SolveLower6Avx2();
TriangularSolve6Kernel SolveLower6Kernel();
TriangularSolve6Kernel SolveLowerTranspose6Avx2();
TriangularSolve6Kernel SolveLowerTranspose6Kernel();

// The forward and backward substitutions of every Newton iteration through
// the blocks L_r below a body's pivot (6 × 6, column-major, stored one after
// another: L_r at l + 36 r), the 6-vectors b_r at b + offsets[r]:
//   forward:  b_r −= L_r x for each r;
//   backward: x −= L_rᵀ b_r for r = 0, 1, … in turn.
// Kernels as above.
void SubtractColumnTimes6Portable(const double* l, const double* x, double* b,
                                  const int* offsets, std::size_t count);
void SubtractColumnTransposeTimes6Portable(const double* l, const double* b,
                                           const int* offsets, std::size_t count,
                                           double* x);
using ColumnTimes6Kernel = void (*)(const double* l, const double* x, double* b,
                                    const int* offsets, std::size_t count);
using ColumnTransposeTimes6Kernel = void (*)(const double* l, const double* b,
                                             const int* offsets, std::size_t count,
                                             double* x);
ColumnTimes6Kernel SubtractColumnTimes6Avx2();
ColumnTimes6Kernel SubtractColumnTimes6Kernel();
ColumnTransposeTimes6Kernel SubtractColumnTransposeTimes6Avx2();
ColumnTransposeTimes6Kernel SubtractColumnTransposeTimes6Kernel();
// y = A x for a 6 × 6 block A (a body's A_t in the products with A of
// every Newton iteration). Kernels as above.
using BlockTimes6Kernel = void (*)(const double* l, const double* x, double* y);
void Times6Portable(const double* a, const double* x, double* y);
BlockTimes6Kernel Times6Avx2();
BlockTimes6Kernel Times6Kernel();

// y += J x and y += Jᵀ x for a 3 × 6 block J (column-major, contiguous): a
// contact's rows on a rigid body, applied to velocities (v_c = J v) and to
// impulses (Jᵀγ) in every Newton iteration. Kernels as above.
void AddTimes3x6Portable(const double* j, const double* x, double* y);
void AddTransposeTimes3x6Portable(const double* j, const double* x, double* y);
using Times3x6Kernel = void (*)(const double* j, const double* x, double* y);
Times3x6Kernel AddTimes3x6Avx2();
Times3x6Kernel AddTimes3x6Kernel();
Times3x6Kernel AddTransposeTimes3x6Avx2();
Times3x6Kernel AddTransposeTimes3x6Kernel();

// A contact's rows on one or two rigid bodies, as the products of every
// Newton iteration read them (v_c = J v + b, Jᵀγ): its 3 × 6 Jacobian blocks
// (column-major, contiguous; the second null for a contact with a body that
// does not move), the offsets of the bodies' velocities in v, its bias b
// (3 entries) and the offset of its rows in the stacked v_c and γ. A record
// whose first block is null is another kind of constraint, which the
// kernels below leave to their caller.
struct ContactRows {
  const double* jacobian[2] = {nullptr, nullptr};
  const double* bias = nullptr;
  int velocity_offset[2] = {0, 0};
  int row_offset = 0;
};
// Over the records rows[list[k]] (rows[k] when list is null) for k = begin,
// …, end − 1, in order: y_i = J_i x (+ b_i when with_bias), or
// generalized += J_iᵀ γ_i, each block's product as AddTimes3x6 or
// AddTransposeTimes3x6 gives it, the first block first. Stops at the first
// record that is not a contact on rigid bodies and returns its k (end when
// there is none). One call per list, not per block. Kernels as above.
using ContactRowsProductKernel = std::size_t (*)(const ContactRows* rows, const int* list,
                                                 std::size_t begin, std::size_t end,
                                                 const double* x, bool with_bias,
                                                 double* y);
using ContactRowsTransposeProductKernel =
    std::size_t (*)(const ContactRows* rows, const int* list, std::size_t begin,
                    std::size_t end, const double* gamma, double* generalized);
std::size_t ContactRowsTimesPortable(const ContactRows* rows, const int* list,
                                     std::size_t begin, std::size_t end, const double* x,
                                     bool with_bias, double* y);
std::size_t ContactRowsTransposeTimesPortable(const ContactRows* rows, const int* list,
                                              std::size_t begin, std::size_t end,
                                              const double* gamma, double* generalized);
ContactRowsProductKernel ContactRowsTimesAvx2();
ContactRowsProductKernel ContactRowsTimesKernel();
ContactRowsTransposeProductKernel ContactRowsTransposeTimesAvx2();
ContactRowsTransposeProductKernel ContactRowsTransposeTimesKernel();

// Y = G J for a 3 × 3 block G (column-major, contiguous) and 3 × 6 blocks J
// and Y whose columns lie `j_stride` and `y_stride` apart: a contact's
// G_i J_i (or ΔG_i J_i) on a rigid body, formed for every contact whose G_i
// is new before the Hessian is assembled or updated. Kernels as above.
void Times3x3By3x6Portable(const double* g, const double* j, int j_stride, double* y,
                           int y_stride);
using Product3x3By3x6Kernel = void (*)(const double* g, const double* j, int j_stride,
                                       double* y, int y_stride);
Product3x3By3x6Kernel Times3x3By3x6Avx2();
Product3x3By3x6Kernel Times3x3By3x6Kernel();

}  // namespace coulomb
