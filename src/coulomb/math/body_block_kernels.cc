#include "coulomb/math/body_block_kernels.h"

#include <Eigen/Dense>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define COULOMB_HAS_AVX2_KERNELS 1
#endif

namespace coulomb {

using Block6 = Eigen::Matrix<double, 6, 6>;

void SubtractOuterProduct6Portable(double* t, const double* a, const double* b) {
  Eigen::Map<Block6> target(t);
  const Eigen::Map<const Block6> left(a), right(b);
  for (int j = 0; j < 6; ++j) target.col(j).noalias() -= left * right.row(j).transpose();
}

#ifdef COULOMB_HAS_AVX2_KERNELS
namespace {

// A's six columns in registers (rows 0–3 in one 256-bit register, rows 4–5
// in one 128-bit register); T's column j −= Σ_k A(:, k) B(j, k).
__attribute__((target("avx2,fma"))) void SubtractOuterProduct6Fma(double* t,
                                                                   const double* a,
                                                                   const double* b) {
  __m256d a_top[6];
  __m128d a_bottom[6];
  for (int k = 0; k < 6; ++k) {
    a_top[k] = _mm256_loadu_pd(a + 6 * k);
    a_bottom[k] = _mm_loadu_pd(a + 6 * k + 4);
  }
  for (int j = 0; j < 6; ++j) {
    __m256d top = _mm256_loadu_pd(t + 6 * j);
    __m128d bottom = _mm_loadu_pd(t + 6 * j + 4);
    for (int k = 0; k < 6; ++k) {
      const double b_jk = b[j + 6 * k];
      top = _mm256_fnmadd_pd(a_top[k], _mm256_set1_pd(b_jk), top);
      bottom = _mm_fnmadd_pd(a_bottom[k], _mm_set1_pd(b_jk), bottom);
    }
    _mm256_storeu_pd(t + 6 * j, top);
    _mm_storeu_pd(t + 6 * j + 4, bottom);
  }
}

}  // namespace

OuterProduct6Kernel SubtractOuterProduct6Avx2() {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    return &SubtractOuterProduct6Fma;
  return nullptr;
}
#else
OuterProduct6Kernel SubtractOuterProduct6Avx2() { return nullptr; }
#endif

}  // namespace coulomb
