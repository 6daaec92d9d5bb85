#include "coulomb/math/body_block_kernels.h"

#include <algorithm>
#include <cmath>
#include <cstddef>

#include <Eigen/Dense>

#include "coulomb/math/small_block_products.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define COULOMB_HAS_AVX2_KERNELS 1
#endif

namespace coulomb {

using Block6 = Eigen::Matrix<double, 6, 6>;

void SubtractOuterProducts6Portable(double* values, const BodyBlockUpdate* updates,
                                    std::size_t count) {
  for (std::size_t u = 0; u < count; ++u) {
    Eigen::Map<Block6> target(values + updates[u].target);
    const Eigen::Map<const Block6> left(values + updates[u].left),
        right(values + updates[u].right);
    for (int j = 0; j < 6; ++j)
      target.col(j).noalias() -= left * right.row(j).transpose();
  }
}

bool FactorPivot6Portable(double* h, double* inverse_diagonal) {
  Eigen::Map<Block6> a(h);
  for (int j = 0; j < 6; ++j) {
    double d = a(j, j);
    for (int k = 0; k < j; ++k) d -= a(j, k) * a(j, k);
    if (!(d > 0.0)) return false;
    d = std::sqrt(d);
    a(j, j) = d;
    const double inverse = 1.0 / d;
    inverse_diagonal[j] = inverse;
    for (int i = j + 1; i < 6; ++i) {
      double sum = a(i, j);
      for (int k = 0; k < j; ++k) sum -= a(i, k) * a(j, k);
      a(i, j) = sum * inverse;
    }
  }
  return true;
}

void SolveAgainstPivot6Portable(const double* l, const double* inverse_diagonal,
                                double* x, std::size_t count) {
  const Eigen::Map<const Block6> pivot(l);
  for (std::size_t b = 0; b < count; ++b) {
    Eigen::Map<Block6> block(x + 36 * b);
    for (int j = 0; j < 6; ++j) {
      for (int k = 0; k < j; ++k) block.col(j) -= pivot(j, k) * block.col(k);
      block.col(j) *= inverse_diagonal[j];
    }
  }
}

// c − a b, fused (one rounding) or not.
template <bool kFused>
__attribute__((always_inline)) inline double MinusProduct(double a, double b, double c) {
  if constexpr (kFused) {
    return std::fma(-a, b, c);
  } else {
    return c - a * b;
  }
}

// L y = x by columns: y_j = x_j / L(j, j), then x_i −= L(i, j) y_j below it.
template <bool kFused>
__attribute__((always_inline)) inline void SolveLower6(const double* l,
                                                       const double* inverse_diagonal,
                                                       double* x) {
  double y[6];
  for (int i = 0; i < 6; ++i) y[i] = x[i];
#pragma GCC unroll 6
  for (int j = 0; j < 6; ++j) {
    y[j] *= inverse_diagonal[j];
#pragma GCC unroll 6
    for (int i = j + 1; i < 6; ++i) y[i] = MinusProduct<kFused>(l[i + 6 * j], y[j], y[i]);
  }
  for (int i = 0; i < 6; ++i) x[i] = y[i];
}

// Lᵀ y = x from the last row up: y_j = (x_j − Σ_{i>j} L(i, j) y_i) / L(j, j),
// the sum taken from i = 5 down, so that y_{j+1}, found last, enters last.
template <bool kFused>
__attribute__((always_inline)) inline void SolveLowerTranspose6(
    const double* l, const double* inverse_diagonal, double* x) {
  double y[6];
  for (int i = 0; i < 6; ++i) y[i] = x[i];
#pragma GCC unroll 6
  for (int j = 5; j >= 0; --j) {
#pragma GCC unroll 6
    for (int i = 5; i > j; --i) y[j] = MinusProduct<kFused>(l[i + 6 * j], y[i], y[j]);
    y[j] *= inverse_diagonal[j];
  }
  for (int i = 0; i < 6; ++i) x[i] = y[i];
}

void SolveLower6Portable(const double* l, const double* inverse_diagonal, double* x) {
  SolveLower6<false>(l, inverse_diagonal, x);
}

void SolveLowerTranspose6Portable(const double* l, const double* inverse_diagonal,
                                  double* x) {
  SolveLowerTranspose6<false>(l, inverse_diagonal, x);
}

void SubtractColumnTimes6Portable(const double* l, const double* x, double* b,
                                  const int* offsets, std::size_t count) {
  for (std::size_t r = 0; r < count; ++r)
    AddBlockTimes(l + 36 * r, 6, 6, x, b + offsets[r], -1.0);
}

void Times6Portable(const double* a, const double* x, double* y) {
  std::fill(y, y + 6, 0.0);
  AddBlockTimes(a, 6, 6, x, y);
}

void SubtractColumnTransposeTimes6Portable(const double* l, const double* b,
                                           const int* offsets, std::size_t count,
                                           double* x) {
  for (std::size_t r = 0; r < count; ++r)
    AddBlockTransposeTimes(l + 36 * r, 6, 6, b + offsets[r], x, -1.0);
}

void AddTimes3x6Portable(const double* j, const double* x, double* y) {
  AddBlockTimes(j, 3, 6, x, y);
}

void AddTransposeTimes3x6Portable(const double* j, const double* x, double* y) {
  AddBlockTransposeTimes(j, 3, 6, x, y);
}

namespace {

// The loops of the contact-row kernels over one 3 × 6 block product, the
// same for the portable and the AVX2 kernels (inlined into each).
template <void (*kAddTimes)(const double*, const double*, double*)>
__attribute__((always_inline)) inline std::size_t ContactRowsTimesWith(
    const ContactRows* rows, const int* list, std::size_t begin, std::size_t end,
    const double* x, bool with_bias, double* y) {
  for (std::size_t k = begin; k < end; ++k) {
    const ContactRows& contact = rows[list != nullptr ? list[k] : k];
    if (contact.jacobian[0] == nullptr) return k;
    double* y_i = y + contact.row_offset;
    for (int r = 0; r < 3; ++r) y_i[r] = with_bias ? contact.bias[r] : 0.0;
    kAddTimes(contact.jacobian[0], x + contact.velocity_offset[0], y_i);
    if (contact.jacobian[1] != nullptr)
      kAddTimes(contact.jacobian[1], x + contact.velocity_offset[1], y_i);
  }
  return end;
}

template <void (*kAddTransposeTimes)(const double*, const double*, double*)>
__attribute__((always_inline)) inline std::size_t ContactRowsTransposeTimesWith(
    const ContactRows* rows, const int* list, std::size_t begin, std::size_t end,
    const double* gamma, double* generalized) {
  for (std::size_t k = begin; k < end; ++k) {
    const ContactRows& contact = rows[list != nullptr ? list[k] : k];
    if (contact.jacobian[0] == nullptr) return k;
    const double* gamma_i = gamma + contact.row_offset;
    kAddTransposeTimes(contact.jacobian[0], gamma_i,
                       generalized + contact.velocity_offset[0]);
    if (contact.jacobian[1] != nullptr) {
      kAddTransposeTimes(contact.jacobian[1], gamma_i,
                         generalized + contact.velocity_offset[1]);
    }
  }
  return end;
}

}  // namespace

std::size_t ContactRowsTimesPortable(const ContactRows* rows, const int* list,
                                     std::size_t begin, std::size_t end, const double* x,
                                     bool with_bias, double* y) {
  return ContactRowsTimesWith<AddTimes3x6Portable>(rows, list, begin, end, x, with_bias,
                                                   y);
}

std::size_t ContactRowsTransposeTimesPortable(const ContactRows* rows, const int* list,
                                              std::size_t begin, std::size_t end,
                                              const double* gamma, double* generalized) {
  return ContactRowsTransposeTimesWith<AddTransposeTimes3x6Portable>(
      rows, list, begin, end, gamma, generalized);
}

void Times3x3By3x6Portable(const double* g, const double* j, int j_stride, double* y,
                           int y_stride) {
  using Rows = Eigen::Map<const Eigen::Matrix<double, 3, 6>, 0, Eigen::OuterStride<>>;
  Eigen::Map<Eigen::Matrix<double, 3, 6>, 0, Eigen::OuterStride<>>(
      y, Eigen::OuterStride<>(y_stride))
      .noalias() =
      Eigen::Map<const Eigen::Matrix3d>(g) * Rows(j, Eigen::OuterStride<>(j_stride));
}

void AddTransposeProduct3x6Portable(double* t, const double* a, int a_stride,
                                    const double* b, int b_stride) {
  using Rows = Eigen::Map<const Eigen::Matrix<double, 3, 6>, 0, Eigen::OuterStride<>>;
  Eigen::Map<Block6>(t).noalias() += Rows(a, Eigen::OuterStride<>(a_stride)).transpose() *
                                     Rows(b, Eigen::OuterStride<>(b_stride));
}

void AddCongruence3x6Portable(double* w, const double* j, const double* s) {
  const Eigen::Map<const Eigen::Matrix<double, 3, 6>> jacobian(j);
  const Eigen::Matrix<double, 6, 3> x =
      Eigen::Map<const Block6>(s) * jacobian.transpose();  // S Jᵀ
  Eigen::Map<Eigen::Matrix3d> target(w);
  for (int r = 0; r < 3; ++r) {
    for (int q = 0; q <= r; ++q) {
      const double entry = jacobian.row(q).dot(x.col(r));
      target(q, r) += entry;
      if (q != r) target(r, q) += entry;
    }
  }
}

void AddDiagonalCongruence3x6Portable(double* w, const double* j, const double* d) {
  for (int r = 0; r < 3; ++r) {
    for (int q = 0; q <= r; ++q) {
      double entry = 0.0;
      for (int k = 0; k < 6; ++k) entry += d[k] * j[q + 3 * k] * j[r + 3 * k];
      w[q + 3 * r] += entry;
      if (q != r) w[r + 3 * q] += entry;
    }
  }
}

#ifdef COULOMB_HAS_AVX2_KERNELS
namespace {

bool HasAvx2AndFma() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}

// Column j of X into top[j], bottom[j], minus Σ_{k<j} (top[k], bottom[k])
// times coefficients[j + 6 k] (row j of column k of a 6 × 6 block).
template <int j>
__attribute__((target("avx2,fma"), always_inline)) inline void ReduceColumn(
    const double* coefficients, const double* x, __m256d* top, __m128d* bottom) {
  top[j] = _mm256_loadu_pd(x + 6 * j);
  bottom[j] = _mm_loadu_pd(x + 6 * j + 4);
#pragma GCC unroll 6
  for (int k = 0; k < j; ++k) {
    const __m256d coefficient = _mm256_broadcast_sd(coefficients + j + 6 * k);
    top[j] = _mm256_fnmadd_pd(top[k], coefficient, top[j]);
    bottom[j] = _mm_fnmadd_pd(bottom[k], _mm256_castpd256_pd128(coefficient), bottom[j]);
  }
}

// X ← X L⁻ᵀ from column j on: column j of X minus Σ_{k<j} X(:, k) L(j, k),
// then times inverse_diagonal[j] = 1 / L(j, j), the finished columns kept in
// registers.
template <int j = 0>
__attribute__((target("avx2,fma"), always_inline)) inline void SolveColumnsFrom(
    const double* l, double* x, const double* inverse_diagonal, __m256d* top,
    __m128d* bottom) {
  if constexpr (j < 6) {
    ReduceColumn<j>(l, x, top, bottom);
    const __m256d scales = _mm256_set1_pd(inverse_diagonal[j]);
    top[j] = _mm256_mul_pd(top[j], scales);
    bottom[j] = _mm_mul_pd(bottom[j], _mm256_castpd256_pd128(scales));
    _mm256_storeu_pd(x + 6 * j, top[j]);
    _mm_storeu_pd(x + 6 * j + 4, bottom[j]);
    SolveColumnsFrom<j + 1>(l, x, inverse_diagonal, top, bottom);
  }
}

// −a b + c, rounded once: one lane of _mm256_fnmadd_pd. (Through
// __builtin_fma, not _mm_fnmadd_sd on _mm_set_sd: that moves each operand
// with a VEX vmovq, which Valgrind's callgrind cannot decode.)
__attribute__((target("avx2,fma"), always_inline)) inline double NegatedProductPlus(
    double a, double b, double c) {
  return __builtin_fma(-a, b, c);
}

// L Lᵀ = H as L D Lᵀ on the way: column j of H minus Σ_{k<j} c_k w_k(j),
// with c_k column k so reduced and w_k = c_k / d_k (d_k = c_k(k), the
// pivot), so that the chain from one column to the next holds a division
// but no square root; L(:, k) = c_k / √d_k at the end. The columns c_k are
// reduced in registers (rows 0–3 and 4–5). What bounds the kernel is the
// chain d_j → 1/d_j → w_j(j+1) → d_{j+1}, so the two entries of each column
// on it, c_j(j) = d_j and c_j(j+1), are also reduced as scalars, by the
// same fused operations in the same order as their lanes (the same values
// to the bit), and the coefficients w_k(j) are scalars: the chain then
// runs through no vector lane, store or load (in a micro-benchmark of
// back-to-back pivots, 40 ns a pivot against 60 ns when it ran through the
// columns' lanes and their stores).
__attribute__((target("avx2,fma"))) bool FactorPivot6Fma(double* h,
                                                         double* inverse_diagonal) {
  __m256d top[6];
  __m128d bottom[6];
  alignas(32) double reduced[6][8];  // c_k(i) at [k][i], read as scalars
  double w[6][6];                    // w_k(j) at [k][j], j > k
  double inverse_pivot[6];
  double below_pivot = 0.0;  // c_{j−1}(j), the chain's scalar
#pragma GCC unroll 6
  for (int j = 0; j < 6; ++j) {
    top[j] = _mm256_loadu_pd(h + 6 * j);
    bottom[j] = _mm_loadu_pd(h + 6 * j + 4);
    double pivot = h[7 * j];                       // c_j(j)
    double next_below = j < 5 ? h[7 * j + 1] : 0;  // c_j(j + 1)
#pragma GCC unroll 6
    for (int k = 0; k < j; ++k) {
      const __m256d coefficient = _mm256_set1_pd(w[k][j]);
      top[j] = _mm256_fnmadd_pd(top[k], coefficient, top[j]);
      bottom[j] =
          _mm_fnmadd_pd(bottom[k], _mm256_castpd256_pd128(coefficient), bottom[j]);
      pivot =
          NegatedProductPlus(k == j - 1 ? below_pivot : reduced[k][j], w[k][j], pivot);
      if (j < 5) next_below = NegatedProductPlus(reduced[k][j + 1], w[k][j], next_below);
    }
    _mm256_store_pd(reduced[j], top[j]);
    _mm_store_pd(reduced[j] + 4, bottom[j]);
    if (!(pivot > 0.0)) return false;
    inverse_pivot[j] = 1.0 / pivot;
#pragma GCC unroll 6
    for (int i = j + 1; i < 6; ++i)
      w[j][i] = (i == j + 1 ? next_below : reduced[j][i]) * inverse_pivot[j];
    below_pivot = next_below;
  }
#pragma GCC unroll 6
  for (int j = 0; j < 6; ++j) {
    const double scale = std::sqrt(inverse_pivot[j]);  // 1 / √d_j
    inverse_diagonal[j] = scale;
    const __m256d scales = _mm256_set1_pd(scale);
    _mm256_storeu_pd(h + 6 * j, _mm256_mul_pd(top[j], scales));
    _mm_storeu_pd(h + 6 * j + 4, _mm_mul_pd(bottom[j], _mm256_castpd256_pd128(scales)));
  }
  return true;
}

// One block of SolveAgainstPivot6Fma, out of line: inlined in the loop over
// the blocks, GCC hoists L's broadcasts out of it and spills them.
__attribute__((target("avx2,fma"), noinline)) void SolveBlockAgainstPivot6Fma(
    const double* l, double* x, const double* inverse_diagonal) {
  __m256d top[6];
  __m128d bottom[6];
  SolveColumnsFrom(l, x, inverse_diagonal, top, bottom);
}

__attribute__((target("avx2,fma"))) void SolveAgainstPivot6Fma(
    const double* l, const double* inverse_diagonal, double* x, std::size_t count) {
  for (std::size_t block = 0; block < count; ++block)
    SolveBlockAgainstPivot6Fma(l, x + 36 * block, inverse_diagonal);
}

__attribute__((target("avx2,fma"))) void SolveLower6Fma(const double* l,
                                                        const double* inverse_diagonal,
                                                        double* x) {
  SolveLower6<true>(l, inverse_diagonal, x);
}

__attribute__((target("avx2,fma"))) void SolveLowerTranspose6Fma(
    const double* l, const double* inverse_diagonal, double* x) {
  SolveLowerTranspose6<true>(l, inverse_diagonal, x);
}

// A 6 × 6 block's columns: rows 0–3 in one 256-bit register, rows 4–5 in
// one 128-bit register.
__attribute__((target("avx2,fma"), always_inline)) inline void LoadColumns6(
    const double* a, __m256d* top, __m128d* bottom) {
#pragma GCC unroll 6
  for (int k = 0; k < 6; ++k) {
    top[k] = _mm256_loadu_pd(a + 6 * k);
    bottom[k] = _mm_loadu_pd(a + 6 * k + 4);
  }
}

// A's six columns in registers, loaded again only when the left block changes;
// T's column j −= Σ_k A(:, k) B(j, k).
__attribute__((target("avx2,fma"))) void SubtractOuterProducts6Fma(
    double* values, const BodyBlockUpdate* updates, std::size_t count) {
  if (count == 0) return;
  __m256d a_top[6];
  __m128d a_bottom[6];
  LoadColumns6(values + updates[0].left, a_top, a_bottom);
  for (std::size_t u = 0; u < count; ++u) {
    if (u > 0 && updates[u].left != updates[u - 1].left)
      LoadColumns6(values + updates[u].left, a_top, a_bottom);
    double* t = values + updates[u].target;
    const double* b = values + updates[u].right;
#pragma GCC unroll 6
    for (int j = 0; j < 6; ++j) {
      __m256d top = _mm256_loadu_pd(t + 6 * j);
      __m128d bottom = _mm_loadu_pd(t + 6 * j + 4);
#pragma GCC unroll 6
      for (int k = 0; k < 6; ++k) {
        const __m256d b_jk = _mm256_broadcast_sd(b + j + 6 * k);
        top = _mm256_fnmadd_pd(a_top[k], b_jk, top);
        bottom = _mm_fnmadd_pd(a_bottom[k], _mm256_castpd256_pd128(b_jk), bottom);
      }
      _mm256_storeu_pd(t + 6 * j, top);
      _mm_storeu_pd(t + 6 * j + 4, bottom);
    }
  }
}

// Aᵀ's three columns (A's rows, gathered across its columns) in registers;
// T's column j += Σ_r Aᵀ(:, r) B(r, j).
__attribute__((target("avx2,fma"))) void AddTransposeProduct3x6Fma(
    double* t, const double* a, int a_stride, const double* b, int b_stride) {
  // The columns' addresses in 64-bit arithmetic, each computed once.
  const double* a_column[6];
  const double* b_column[6];
#pragma GCC unroll 6
  for (int k = 0; k < 6; ++k) {
    a_column[k] = a + static_cast<std::ptrdiff_t>(k) * a_stride;
    b_column[k] = b + static_cast<std::ptrdiff_t>(k) * b_stride;
  }
  __m256d a_top[3];
  __m128d a_bottom[3];
#pragma GCC unroll 6
  for (int r = 0; r < 3; ++r) {
    a_top[r] =
        _mm256_setr_pd(a_column[0][r], a_column[1][r], a_column[2][r], a_column[3][r]);
    a_bottom[r] = _mm_setr_pd(a_column[4][r], a_column[5][r]);
  }
#pragma GCC unroll 6
  for (int j = 0; j < 6; ++j) {
    __m256d top = _mm256_loadu_pd(t + 6 * j);
    __m128d bottom = _mm_loadu_pd(t + 6 * j + 4);
#pragma GCC unroll 6
    for (int r = 0; r < 3; ++r) {
      const __m256d b_rj = _mm256_broadcast_sd(b_column[j] + r);
      top = _mm256_fmadd_pd(a_top[r], b_rj, top);
      bottom = _mm_fmadd_pd(a_bottom[r], _mm256_castpd256_pd128(b_rj), bottom);
    }
    _mm256_storeu_pd(t + 6 * j, top);
    _mm_storeu_pd(t + 6 * j + 4, bottom);
  }
}

// Σ_k (d_k c_k) c_kᵀ over J's columns c_k, each in a register's low three
// lanes (the fourth holds the next column's first entry, unused), the sum's
// columns in three registers; its upper triangle is added to W and
// mirrored.
__attribute__((target("avx2,fma"))) void AddDiagonalCongruence3x6Fma(double* w,
                                                                     const double* j,
                                                                     const double* d) {
  __m256d sum[3] = {_mm256_setzero_pd(), _mm256_setzero_pd(), _mm256_setzero_pd()};
#pragma GCC unroll 6
  for (int k = 0; k < 6; ++k) {
    const __m256d column =
        k < 5 ? _mm256_loadu_pd(j + 3 * k) : _mm256_setr_pd(j[15], j[16], j[17], 0.0);
    const __m256d scaled = _mm256_mul_pd(column, _mm256_broadcast_sd(d + k));
#pragma GCC unroll 3
    for (int r = 0; r < 3; ++r)
      sum[r] = _mm256_fmadd_pd(scaled, _mm256_broadcast_sd(j + r + 3 * k), sum[r]);
  }
  alignas(32) double entries[3][4];
#pragma GCC unroll 3
  for (int r = 0; r < 3; ++r) _mm256_store_pd(entries[r], sum[r]);
  for (int r = 0; r < 3; ++r) {
    for (int q = 0; q <= r; ++q) {
      w[q + 3 * r] += entries[r][q];
      if (q != r) w[r + 3 * q] += entries[r][q];
    }
  }
}

// X = S Jᵀ with its three columns in registers (rows 0–3 in a 256-bit
// register, rows 4–5 in a 128-bit one), then W(q, r) += J's row q · X(:, r).
__attribute__((target("avx2,fma"))) void AddCongruence3x6Fma(double* w, const double* j,
                                                             const double* s) {
  __m256d x_top[3];
  __m128d x_bottom[3];
#pragma GCC unroll 6
  for (int r = 0; r < 3; ++r) {
    x_top[r] = _mm256_setzero_pd();
    x_bottom[r] = _mm_setzero_pd();
  }
#pragma GCC unroll 6
  for (int k = 0; k < 6; ++k) {
    const __m256d s_top = _mm256_loadu_pd(s + 6 * k);
    const __m128d s_bottom = _mm_loadu_pd(s + 6 * k + 4);
#pragma GCC unroll 6
    for (int r = 0; r < 3; ++r) {
      const __m256d j_rk = _mm256_broadcast_sd(j + r + 3 * k);
      x_top[r] = _mm256_fmadd_pd(s_top, j_rk, x_top[r]);
      x_bottom[r] = _mm_fmadd_pd(s_bottom, _mm256_castpd256_pd128(j_rk), x_bottom[r]);
    }
  }
#pragma GCC unroll 6
  for (int q = 0; q < 3; ++q) {
    const __m256d j_top = _mm256_setr_pd(j[q], j[q + 3], j[q + 6], j[q + 9]);
    const __m128d j_bottom = _mm_setr_pd(j[q + 12], j[q + 15]);
#pragma GCC unroll 6
    for (int r = q; r < 3; ++r) {
      const __m256d product = _mm256_mul_pd(j_top, x_top[r]);
      __m128d sum =
          _mm_add_pd(_mm256_castpd256_pd128(product), _mm256_extractf128_pd(product, 1));
      sum = _mm_fmadd_pd(j_bottom, x_bottom[r], sum);
      const double entry = _mm_cvtsd_f64(_mm_add_sd(sum, _mm_unpackhi_pd(sum, sum)));
      w[q + 3 * r] += entry;
      if (q != r) w[r + 3 * q] += entry;
    }
  }
}

// y −= Σ_k L(:, k) x_k (or y = Σ_k L(:, k) x_k), x_k broadcast in x_k[k],
// the even and odd k in two accumulators (shorter dependency chains), rows
// 0–3 and 4–5 in a 256- and a 128-bit register.
template <bool kAssign>
__attribute__((target("avx2,fma"), always_inline)) inline void BlockTimes6(
    const double* l, const __m256d* x_k, double* y) {
  __m256d top[2] = {kAssign ? _mm256_setzero_pd() : _mm256_loadu_pd(y),
                    _mm256_setzero_pd()};
  __m128d bottom[2] = {kAssign ? _mm_setzero_pd() : _mm_loadu_pd(y + 4),
                       _mm_setzero_pd()};
#pragma GCC unroll 6
  for (int k = 0; k < 6; ++k) {
    const __m256d l_top = _mm256_loadu_pd(l + 6 * k);
    const __m128d l_bottom = _mm_loadu_pd(l + 6 * k + 4);
    const __m128d x_k_low = _mm256_castpd256_pd128(x_k[k]);
    if constexpr (kAssign) {
      top[k % 2] = _mm256_fmadd_pd(l_top, x_k[k], top[k % 2]);
      bottom[k % 2] = _mm_fmadd_pd(l_bottom, x_k_low, bottom[k % 2]);
    } else {
      top[k % 2] = _mm256_fnmadd_pd(l_top, x_k[k], top[k % 2]);
      bottom[k % 2] = _mm_fnmadd_pd(l_bottom, x_k_low, bottom[k % 2]);
    }
  }
  _mm256_storeu_pd(y, _mm256_add_pd(top[0], top[1]));
  _mm_storeu_pd(y + 4, _mm_add_pd(bottom[0], bottom[1]));
}

__attribute__((target("avx2,fma"), always_inline)) inline void Broadcast6(const double* x,
                                                                          __m256d* x_k) {
#pragma GCC unroll 6
  for (int k = 0; k < 6; ++k) x_k[k] = _mm256_broadcast_sd(x + k);
}

__attribute__((target("avx2,fma"))) void Times6Fma(const double* a, const double* x,
                                                   double* y) {
  __m256d x_k[6];
  Broadcast6(x, x_k);
  BlockTimes6<true>(a, x_k, y);
}

// x's entries broadcast once for all the blocks.
__attribute__((target("avx2,fma"))) void SubtractColumnTimes6Fma(
    const double* l, const double* x, double* b, const int* offsets, std::size_t count) {
  __m256d x_k[6];
  Broadcast6(x, x_k);
  for (std::size_t r = 0; r < count; ++r)
    BlockTimes6<false>(l + 36 * r, x_k, b + offsets[r]);
}

// The entries L(:, k)·x of four columns k at once: each column's products in
// one register, then two horizontal adds and a swap of halves sum them.
__attribute__((target("avx2,fma"))) __m256d ColumnDots4(const double* l, __m256d x_top,
                                                        __m128d x_bottom) {
  __m256d products[4];
#pragma GCC unroll 6
  for (int k = 0; k < 4; ++k) {
    const __m128d bottom = _mm_mul_pd(_mm_loadu_pd(l + 6 * k + 4), x_bottom);
    products[k] = _mm256_fmadd_pd(_mm256_loadu_pd(l + 6 * k), x_top,
                                  _mm256_set_m128d(_mm_setzero_pd(), bottom));
  }
  // (p0[0]+p0[1], p1[0]+p1[1], p0[2]+p0[3], p1[2]+p1[3]) and the same for 2, 3.
  const __m256d sums01 = _mm256_hadd_pd(products[0], products[1]);
  const __m256d sums23 = _mm256_hadd_pd(products[2], products[3]);
  return _mm256_add_pd(_mm256_permute2f128_pd(sums01, sums23, 0x20),
                       _mm256_permute2f128_pd(sums01, sums23, 0x31));
}

// x_k −= L_r(:, k)·b_r for each block in turn: columns 0–3 by ColumnDots4,
// columns 4–5 likewise in 128-bit halves, x kept in registers throughout.
__attribute__((target("avx2,fma"))) void SubtractColumnTransposeTimes6Fma(
    const double* l, const double* b, const int* offsets, std::size_t count, double* x) {
  __m256d x_top = _mm256_loadu_pd(x);
  __m128d x_bottom = _mm_loadu_pd(x + 4);
  for (std::size_t r = 0; r < count; ++r) {
    const double* l_r = l + 36 * r;
    const __m256d b_top = _mm256_loadu_pd(b + offsets[r]);
    const __m128d b_bottom = _mm_loadu_pd(b + offsets[r] + 4);
    x_top = _mm256_sub_pd(x_top, ColumnDots4(l_r, b_top, b_bottom));
    __m128d pair[2];
#pragma GCC unroll 6
    for (int k = 0; k < 2; ++k) {
      const __m256d product = _mm256_mul_pd(_mm256_loadu_pd(l_r + 24 + 6 * k), b_top);
      const __m128d folded =
          _mm_add_pd(_mm256_castpd256_pd128(product), _mm256_extractf128_pd(product, 1));
      pair[k] = _mm_fmadd_pd(_mm_loadu_pd(l_r + 28 + 6 * k), b_bottom, folded);
    }
    x_bottom = _mm_sub_pd(x_bottom, _mm_hadd_pd(pair[0], pair[1]));
  }
  _mm256_storeu_pd(x, x_top);
  _mm_storeu_pd(x + 4, x_bottom);
}

// J's 18 entries read in column pairs: rows 0–2 of column k and row 0 of
// column k + 1 in a 256-bit register, rows 1–2 of column k + 1 in a 128-bit
// one, each times its entries of x; the lanes are then summed by row.
__attribute__((target("avx2,fma"))) void AddTimes3x6Fma(const double* j, const double* x,
                                                        double* y) {
  const __m256d x_low = _mm256_loadu_pd(x);       // x0 x1 x2 x3
  const __m256d x_high = _mm256_loadu_pd(x + 2);  // x2 x3 x4 x5
  constexpr int kFirstThreeThenFourth = 0x40;     // lanes (0, 0, 0, 1)
  constexpr int kThirdThreeThenFourth = 0xEA;     // lanes (2, 2, 2, 3)
  __m256d wide = _mm256_mul_pd(_mm256_loadu_pd(j),
                               _mm256_permute4x64_pd(x_low, kFirstThreeThenFourth));
  __m128d narrow = _mm_mul_pd(_mm_loadu_pd(j + 4), _mm_set1_pd(x[1]));
  wide = _mm256_fmadd_pd(_mm256_loadu_pd(j + 6),
                         _mm256_permute4x64_pd(x_low, kThirdThreeThenFourth), wide);
  narrow = _mm_fmadd_pd(_mm_loadu_pd(j + 10), _mm_set1_pd(x[3]), narrow);
  wide = _mm256_fmadd_pd(_mm256_loadu_pd(j + 12),
                         _mm256_permute4x64_pd(x_high, kThirdThreeThenFourth), wide);
  narrow = _mm_fmadd_pd(_mm_loadu_pd(j + 16), _mm_set1_pd(x[5]), narrow);
  // wide: rows (0, 1, 2) of the even columns and row 0 of the odd ones;
  // narrow: rows (1, 2) of the odd columns.
  const __m128d low = _mm256_castpd256_pd128(wide);
  const __m128d high = _mm256_extractf128_pd(wide, 1);
  const __m128d rows01 = _mm_add_pd(low, _mm_shuffle_pd(high, narrow, 0b01));
  const __m128d row2 = _mm_add_sd(high, _mm_unpackhi_pd(narrow, narrow));
  _mm_storeu_pd(y, _mm_add_pd(_mm_loadu_pd(y), rows01));
  y[2] += _mm_cvtsd_f64(row2);
}

// Column k of J times x's three entries, four columns at once as in
// ColumnDots4: each column read with the next column's first entry, which
// the zero in x's fourth lane removes (the last column by a masked load,
// which reads nothing past J).
__attribute__((target("avx2,fma"))) void AddTransposeTimes3x6Fma(const double* j,
                                                                 const double* x,
                                                                 double* y) {
  const __m256i first_three = _mm256_setr_epi64x(-1, -1, -1, 0);
  const __m256d x3 = _mm256_maskload_pd(x, first_three);  // x0 x1 x2 0
  __m256d products[4];
#pragma GCC unroll 4
  for (int k = 0; k < 4; ++k) products[k] = _mm256_mul_pd(_mm256_loadu_pd(j + 3 * k), x3);
  const __m256d sums01 = _mm256_hadd_pd(products[0], products[1]);
  const __m256d sums23 = _mm256_hadd_pd(products[2], products[3]);
  const __m256d dots = _mm256_add_pd(_mm256_permute2f128_pd(sums01, sums23, 0x20),
                                     _mm256_permute2f128_pd(sums01, sums23, 0x31));
  _mm256_storeu_pd(y, _mm256_add_pd(_mm256_loadu_pd(y), dots));
  const __m256d product4 = _mm256_mul_pd(_mm256_loadu_pd(j + 12), x3);
  const __m256d product5 = _mm256_mul_pd(_mm256_maskload_pd(j + 15, first_three), x3);
  const __m256d sums45 = _mm256_hadd_pd(product4, product5);
  const __m128d dots45 =
      _mm_add_pd(_mm256_castpd256_pd128(sums45), _mm256_extractf128_pd(sums45, 1));
  _mm_storeu_pd(y + 4, _mm_add_pd(_mm_loadu_pd(y + 4), dots45));
}

// G's columns in three registers (the last read by a masked load: nothing
// past G), Y's column c = Σ_r G(:, r) J(r, c) in the first three lanes.
__attribute__((target("avx2,fma"))) void Times3x3By3x6Fma(const double* g,
                                                          const double* j, int j_stride,
                                                          double* y, int y_stride) {
  const __m256d g0 = _mm256_loadu_pd(g);
  const __m256d g1 = _mm256_loadu_pd(g + 3);
  const __m256d g2 = _mm256_maskload_pd(g + 6, _mm256_setr_epi64x(-1, -1, -1, 0));
#pragma GCC unroll 6
  for (int c = 0; c < 6; ++c) {
    const double* j_c = j + c * j_stride;
    __m256d column = _mm256_mul_pd(g0, _mm256_broadcast_sd(j_c));
    column = _mm256_fmadd_pd(g1, _mm256_broadcast_sd(j_c + 1), column);
    column = _mm256_fmadd_pd(g2, _mm256_broadcast_sd(j_c + 2), column);
    double* y_c = y + c * y_stride;
    _mm_storeu_pd(y_c, _mm256_castpd256_pd128(column));
    _mm_store_sd(y_c + 2, _mm256_extractf128_pd(column, 1));
  }
}

__attribute__((target("avx2,fma"))) std::size_t ContactRowsTimesFma(
    const ContactRows* rows, const int* list, std::size_t begin, std::size_t end,
    const double* x, bool with_bias, double* y) {
  return ContactRowsTimesWith<AddTimes3x6Fma>(rows, list, begin, end, x, with_bias, y);
}

__attribute__((target("avx2,fma"))) std::size_t ContactRowsTransposeTimesFma(
    const ContactRows* rows, const int* list, std::size_t begin, std::size_t end,
    const double* gamma, double* generalized) {
  return ContactRowsTransposeTimesWith<AddTransposeTimes3x6Fma>(rows, list, begin, end,
                                                                gamma, generalized);
}

}  // namespace

ContactRowsProductKernel ContactRowsTimesAvx2() {
  return HasAvx2AndFma() ? &ContactRowsTimesFma : nullptr;
}

ContactRowsTransposeProductKernel ContactRowsTransposeTimesAvx2() {
  return HasAvx2AndFma() ? &ContactRowsTransposeTimesFma : nullptr;
}

Product3x3By3x6Kernel Times3x3By3x6Avx2() {
  return HasAvx2AndFma() ? &Times3x3By3x6Fma : nullptr;
}

Times3x6Kernel AddTimes3x6Avx2() { return HasAvx2AndFma() ? &AddTimes3x6Fma : nullptr; }

Times3x6Kernel AddTransposeTimes3x6Avx2() {
  return HasAvx2AndFma() ? &AddTransposeTimes3x6Fma : nullptr;
}

ColumnTimes6Kernel SubtractColumnTimes6Avx2() {
  return HasAvx2AndFma() ? &SubtractColumnTimes6Fma : nullptr;
}

BlockTimes6Kernel Times6Avx2() { return HasAvx2AndFma() ? &Times6Fma : nullptr; }

ColumnTransposeTimes6Kernel SubtractColumnTransposeTimes6Avx2() {
  return HasAvx2AndFma() ? &SubtractColumnTransposeTimes6Fma : nullptr;
}

Congruence3x6Kernel AddCongruence3x6Avx2() {
  return HasAvx2AndFma() ? &AddCongruence3x6Fma : nullptr;
}

DiagonalCongruence3x6Kernel AddDiagonalCongruence3x6Avx2() {
  return HasAvx2AndFma() ? &AddDiagonalCongruence3x6Fma : nullptr;
}

TransposeProduct3x6Kernel AddTransposeProduct3x6Avx2() {
  return HasAvx2AndFma() ? &AddTransposeProduct3x6Fma : nullptr;
}

OuterProducts6Kernel SubtractOuterProducts6Avx2() {
  return HasAvx2AndFma() ? &SubtractOuterProducts6Fma : nullptr;
}
PivotSolve6Kernel SolveAgainstPivot6Avx2() {
  return HasAvx2AndFma() ? &SolveAgainstPivot6Fma : nullptr;
}
PivotFactor6Kernel FactorPivot6Avx2() {
  return HasAvx2AndFma() ? &FactorPivot6Fma : nullptr;
}
TriangularSolve6Kernel SolveLower6Avx2() {
  return HasAvx2AndFma() ? &SolveLower6Fma : nullptr;
}
TriangularSolve6Kernel SolveLowerTranspose6Avx2() {
  return HasAvx2AndFma() ? &SolveLowerTranspose6Fma : nullptr;
}
#else
Congruence3x6Kernel AddCongruence3x6Avx2() { return nullptr; }
DiagonalCongruence3x6Kernel AddDiagonalCongruence3x6Avx2() { return nullptr; }
TransposeProduct3x6Kernel AddTransposeProduct3x6Avx2() { return nullptr; }
OuterProducts6Kernel SubtractOuterProducts6Avx2() { return nullptr; }
PivotSolve6Kernel SolveAgainstPivot6Avx2() { return nullptr; }
PivotFactor6Kernel FactorPivot6Avx2() { return nullptr; }
TriangularSolve6Kernel SolveLower6Avx2() { return nullptr; }
TriangularSolve6Kernel SolveLowerTranspose6Avx2() { return nullptr; }
ColumnTimes6Kernel SubtractColumnTimes6Avx2() { return nullptr; }
BlockTimes6Kernel Times6Avx2() { return nullptr; }
Times3x6Kernel AddTimes3x6Avx2() { return nullptr; }
Product3x3By3x6Kernel Times3x3By3x6Avx2() { return nullptr; }
Times3x6Kernel AddTransposeTimes3x6Avx2() { return nullptr; }
ContactRowsProductKernel ContactRowsTimesAvx2() { return nullptr; }
ContactRowsTransposeProductKernel ContactRowsTransposeTimesAvx2() { return nullptr; }
ColumnTransposeTimes6Kernel SubtractColumnTransposeTimes6Avx2() { return nullptr; }
#endif

OuterProducts6Kernel SubtractOuterProducts6Kernel() {
  const OuterProducts6Kernel avx2 = SubtractOuterProducts6Avx2();
  return avx2 != nullptr ? avx2 : &SubtractOuterProducts6Portable;
}

Congruence3x6Kernel AddCongruence3x6Kernel() {
  const Congruence3x6Kernel avx2 = AddCongruence3x6Avx2();
  return avx2 != nullptr ? avx2 : &AddCongruence3x6Portable;
}

DiagonalCongruence3x6Kernel AddDiagonalCongruence3x6Kernel() {
  const DiagonalCongruence3x6Kernel avx2 = AddDiagonalCongruence3x6Avx2();
  return avx2 != nullptr ? avx2 : &AddDiagonalCongruence3x6Portable;
}

TransposeProduct3x6Kernel AddTransposeProduct3x6Kernel() {
  const TransposeProduct3x6Kernel avx2 = AddTransposeProduct3x6Avx2();
  return avx2 != nullptr ? avx2 : &AddTransposeProduct3x6Portable;
}

PivotSolve6Kernel SolveAgainstPivot6Kernel() {
  const PivotSolve6Kernel avx2 = SolveAgainstPivot6Avx2();
  return avx2 != nullptr ? avx2 : &SolveAgainstPivot6Portable;
}

TriangularSolve6Kernel SolveLower6Kernel() {
  const TriangularSolve6Kernel avx2 = SolveLower6Avx2();
  return avx2 != nullptr ? avx2 : &SolveLower6Portable;
}

TriangularSolve6Kernel SolveLowerTranspose6Kernel() {
  const TriangularSolve6Kernel avx2 = SolveLowerTranspose6Avx2();
  return avx2 != nullptr ? avx2 : &SolveLowerTranspose6Portable;
}

ColumnTimes6Kernel SubtractColumnTimes6Kernel() {
  const ColumnTimes6Kernel avx2 = SubtractColumnTimes6Avx2();
  return avx2 != nullptr ? avx2 : &SubtractColumnTimes6Portable;
}

ColumnTransposeTimes6Kernel SubtractColumnTransposeTimes6Kernel() {
  const ColumnTransposeTimes6Kernel avx2 = SubtractColumnTransposeTimes6Avx2();
  return avx2 != nullptr ? avx2 : &SubtractColumnTransposeTimes6Portable;
}

Times3x6Kernel AddTimes3x6Kernel() {
  const Times3x6Kernel avx2 = AddTimes3x6Avx2();
  return avx2 != nullptr ? avx2 : &AddTimes3x6Portable;
}

Times3x6Kernel AddTransposeTimes3x6Kernel() {
  const Times3x6Kernel avx2 = AddTransposeTimes3x6Avx2();
  return avx2 != nullptr ? avx2 : &AddTransposeTimes3x6Portable;
}

ContactRowsProductKernel ContactRowsTimesKernel() {
  const ContactRowsProductKernel avx2 = ContactRowsTimesAvx2();
  return avx2 != nullptr ? avx2 : &ContactRowsTimesPortable;
}

ContactRowsTransposeProductKernel ContactRowsTransposeTimesKernel() {
  const ContactRowsTransposeProductKernel avx2 = ContactRowsTransposeTimesAvx2();
  return avx2 != nullptr ? avx2 : &ContactRowsTransposeTimesPortable;
}

Product3x3By3x6Kernel Times3x3By3x6Kernel() {
  const Product3x3By3x6Kernel avx2 = Times3x3By3x6Avx2();
  return avx2 != nullptr ? avx2 : &Times3x3By3x6Portable;
}

PivotFactor6Kernel FactorPivot6Kernel() {
  const PivotFactor6Kernel avx2 = FactorPivot6Avx2();
  return avx2 != nullptr ? avx2 : &FactorPivot6Portable;
}

BlockTimes6Kernel Times6Kernel() {
  const BlockTimes6Kernel avx2 = Times6Avx2();
  return avx2 != nullptr ? avx2 : &Times6Portable;
}

}  // namespace coulomb
