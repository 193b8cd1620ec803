// The AVX2 form of the fast kernel's block (gemm_kernel.cpp fast_block): 8 products per vector
// in 32-bit lanes. Compiled for AVX2 with a target attribute and chosen at run time
// (avx2_available()), so the binary still runs on any x86-64; elsewhere it is absent and the
// plain path runs. Same integer operations as the plain path, so the same bits (tests compare).
#include <climits>

#include "numerics/gemm_kernel.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define TCSIM_HAVE_AVX2_KERNEL 1
#endif

namespace tcsim::num::detail {

#ifdef TCSIM_HAVE_AVX2_KERNEL
bool avx2_available() {
  static const bool has = __builtin_cpu_supports("avx2");
  return has;
}

__attribute__((target("avx2"))) void avx2_block_terms(const std::int32_t* am, const std::int32_t* ae,
                                                      const std::int32_t* bm, const std::int32_t* be, int L,
                                                      int e_zero, int Ec, int pre, std::int64_t& S, int& Emax) {
  // pass 1: products and alignment exponents (zero products get e_zero), their maximum
  __m256i P[4], E[4];
  const int nv = L / 8;
  const __m256i ez = _mm256_set1_epi32(e_zero), zero = _mm256_setzero_si256();
  __m256i emax = _mm256_set1_epi32(Ec);
  for (int v = 0; v < nv; ++v) {
    const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(am + 8 * v));
    const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(bm + 8 * v));
    const __m256i ea = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(ae + 8 * v));
    const __m256i eb = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(be + 8 * v));
    P[v] = _mm256_mullo_epi32(a, b);  // |a b| < 2^(31 - pre): checked by the caller
    E[v] = _mm256_blendv_epi8(_mm256_add_epi32(ea, eb), ez, _mm256_cmpeq_epi32(P[v], zero));
    emax = _mm256_max_epi32(emax, E[v]);
  }
  __m256i m = _mm256_max_epi32(emax, _mm256_permute2x128_si256(emax, emax, 1));
  m = _mm256_max_epi32(m, _mm256_shuffle_epi32(m, 0x4E));
  m = _mm256_max_epi32(m, _mm256_shuffle_epi32(m, 0xB1));
  Emax = _mm256_cvtsi256_si32(m);
  const __m256i vmax = _mm256_set1_epi32(Emax);
  const __m128i vpre = _mm_cvtsi32_si128(pre);
  // pass 2: |p| << pre truncated by (Emax - E) (a shift of 32 or more gives 0), sign restored,
  // summed: each lane sum of at most 4 terms < 2^31, the lanes then added in 64 bits
  __m256i acc = zero;
  for (int v = 0; v < nv; ++v) {
    const __m256i mag = _mm256_sll_epi32(_mm256_abs_epi32(P[v]), vpre);
    const __m256i t = _mm256_srlv_epi32(mag, _mm256_sub_epi32(vmax, E[v]));
    const __m256i st = _mm256_sign_epi32(t, P[v]);
    // widen to 64 bits before adding across vectors
    acc = _mm256_add_epi64(acc, _mm256_cvtepi32_epi64(_mm256_castsi256_si128(st)));
    acc = _mm256_add_epi64(acc, _mm256_cvtepi32_epi64(_mm256_extracti128_si256(st, 1)));
  }
  const __m128i s2 = _mm_add_epi64(_mm256_castsi256_si128(acc), _mm256_extracti128_si256(acc, 1));
  S = _mm_cvtsi128_si64(s2) + _mm_extract_epi64(s2, 1);
}
#else
bool avx2_available() { return false; }
void avx2_block_terms(const std::int32_t*, const std::int32_t*, const std::int32_t*, const std::int32_t*, int, int, int,
                      int, std::int64_t&, int&) {}
#endif

}  // namespace tcsim::num::detail
