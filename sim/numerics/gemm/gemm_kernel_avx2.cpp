// The AVX2 form of the fast kernel's block (gemm_kernel.cpp fast_block): 8 products per vector
// in 32-bit lanes. Compiled for AVX2 with a target attribute and chosen at run time
// (avx2_available()), so the binary still runs on any x86-64; elsewhere it is absent and the
// plain path runs. Same integer operations as the plain path, so the same bits (tests compare).
#include <climits>

#include "numerics/gemm/gemm_kernel.h"

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

namespace tcsim::num::detail {

#ifdef TCSIM_HAVE_AVX2_KERNEL
namespace {
// floor(log2 x) for 0 < x < 2^31 per lane: the float conversion may round up to the next power of
// two, which the shift test corrects.
__attribute__((target("avx2"))) inline __m256i ilog2_epi32(__m256i x) {
  const __m256i f = _mm256_castps_si256(_mm256_cvtepi32_ps(x));
  __m256i e = _mm256_sub_epi32(_mm256_srli_epi32(f, 23), _mm256_set1_epi32(127));
  const __m256i over = _mm256_cmpeq_epi32(_mm256_srlv_epi32(x, e), _mm256_setzero_si256());
  return _mm256_add_epi32(e, over);  // over is -1 where x >> e == 0
}
}  // namespace

__attribute__((target("avx2"))) std::uint32_t avx2_vertical8(const VerticalArgs& v, int j0, std::uint32_t* d) {
  const __m256i zero = _mm256_setzero_si256(), ez = _mm256_set1_epi32(v.e_zero);
  const __m256i one = _mm256_set1_epi32(1);
  const __m128i vpre = _mm_cvtsi32_si128(v.pre);
  __m256i c = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(d));
  __m256i bad = zero;  // lanes whose accumulator became inf (handled by the caller's plain path)
  for (int s = 0; s < v.T; ++s) {
    const int t = v.decreasing ? v.T - 1 - s : s;
    for (int k0 = t * v.k; k0 < (t + 1) * v.k; k0 += v.L) {
      // the accumulator: fp32 / fp16 bits -> integer mantissa, exponent (zero: e_zero), sign
      const int fb = v.fp16 ? 10 : 23, emask = v.fp16 ? 0x1F : 0xFF, bias = v.fp16 ? 15 : 127;
      const __m256i ef = _mm256_and_si256(_mm256_srl_epi32(c, _mm_cvtsi32_si128(fb)), _mm256_set1_epi32(emask));
      bad = _mm256_or_si256(bad, _mm256_cmpeq_epi32(ef, _mm256_set1_epi32(emask)));
      const __m256i normal = _mm256_cmpgt_epi32(ef, zero);
      const __m256i cm = _mm256_or_si256(_mm256_and_si256(c, _mm256_set1_epi32((1 << fb) - 1)),
                                         _mm256_and_si256(normal, _mm256_set1_epi32(1 << fb)));
      const __m256i ce = _mm256_blendv_epi8(_mm256_set1_epi32(1 - bias), _mm256_sub_epi32(ef, _mm256_set1_epi32(bias)), normal);
      const __m256i Ec = _mm256_blendv_epi8(ce, ez, _mm256_cmpeq_epi32(cm, zero));
      const __m256i cneg = _mm256_sub_epi32(zero, _mm256_srl_epi32(c, _mm_cvtsi32_si128(v.fp16 ? 15 : 31)));  // 0 or -1
      // products: a broadcast from the row, b from 8 columns
      __m256i P[32], E[32];
      __m256i emax = Ec;
      for (int i = 0; i < v.L; ++i) {
        const int k = k0 + i;
        const __m256i am = _mm256_set1_epi32(v.am[k]), ae = _mm256_set1_epi32(v.ae[k]);
        const __m256i bm = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(v.bmT + static_cast<std::size_t>(k) * v.N + j0));
        const __m256i be = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(v.beT + static_cast<std::size_t>(k) * v.N + j0));
        P[i] = _mm256_mullo_epi32(am, bm);
        E[i] = _mm256_blendv_epi8(_mm256_add_epi32(ae, be), ez, _mm256_cmpeq_epi32(P[i], zero));
        emax = _mm256_max_epi32(emax, E[i]);
      }
      // truncated aligned terms, summed exactly (int32 is enough: checked by the caller)
      __m256i S = zero;
      for (int i = 0; i < v.L; ++i) {
        const __m256i mag = _mm256_sll_epi32(_mm256_abs_epi32(P[i]), vpre);
        const __m256i tt = _mm256_srlv_epi32(mag, _mm256_sub_epi32(emax, E[i]));
        S = _mm256_add_epi32(S, _mm256_sign_epi32(tt, P[i]));
      }
      const __m256i u = _mm256_sub_epi32(emax, _mm256_set1_epi32(v.F));
      const __m256i sh = _mm256_sub_epi32(_mm256_sub_epi32(Ec, _mm256_set1_epi32(fb)), u);
      const __m256i left = _mm256_max_epi32(sh, zero), right = _mm256_max_epi32(_mm256_sub_epi32(zero, sh), zero);
      const __m256i tc = _mm256_srlv_epi32(_mm256_sllv_epi32(cm, left), right);
      S = _mm256_add_epi32(S, _mm256_sub_epi32(_mm256_xor_si256(tc, cneg), cneg));  // -tc where c < 0
      const __m256i sneg = _mm256_srai_epi32(S, 31);
      const __m256i mag = _mm256_abs_epi32(S);
      const __m256i e = ilog2_epi32(_mm256_max_epi32(mag, one));
      const __m256i top = _mm256_add_epi32(u, e);
      __m256i r;
      if (!v.fp16) {
        // RZ into fp32 (finish_fdpa rz_fp32): |v| >= 2^128 -> inf; subnormal quantum 2^-149
        const __m256i sign = _mm256_slli_epi32(sneg, 31);
        const __m256i e23 = _mm256_sub_epi32(e, _mm256_set1_epi32(23));
        const __m256i mn = _mm256_srlv_epi32(_mm256_sllv_epi32(mag, _mm256_max_epi32(_mm256_sub_epi32(zero, e23), zero)),
                                             _mm256_max_epi32(e23, zero));
        const __m256i normal_out = _mm256_or_si256(
            sign, _mm256_or_si256(_mm256_slli_epi32(_mm256_add_epi32(top, _mm256_set1_epi32(127)), 23),
                                  _mm256_and_si256(mn, _mm256_set1_epi32(0x7FFFFF))));
        const __m256i s149 = _mm256_sub_epi32(_mm256_set1_epi32(-149), u);
        const __m256i ms = _mm256_srlv_epi32(_mm256_sllv_epi32(mag, _mm256_max_epi32(_mm256_sub_epi32(zero, s149), zero)),
                                             _mm256_max_epi32(s149, zero));
        const __m256i sub_out = _mm256_or_si256(sign, ms);
        const __m256i inf_out = _mm256_or_si256(sign, _mm256_set1_epi32(0x7F800000));
        r = _mm256_blendv_epi8(sub_out, normal_out, _mm256_cmpgt_epi32(top, _mm256_set1_epi32(-127)));
        r = _mm256_blendv_epi8(r, inf_out, _mm256_cmpgt_epi32(top, _mm256_set1_epi32(127)));
      } else {
        // RNE into fp16 (finish_fdpa rne_fp16): 11 bits, or quantum 2^-24 below 2^-14; a carry may
        // reach the next binade (the encoding absorbs it); >= 2^16 after rounding -> inf
        const __m256i sign = _mm256_and_si256(_mm256_slli_epi32(sneg, 15), _mm256_set1_epi32(0x8000));
        const __m256i is_normal = _mm256_cmpgt_epi32(top, _mm256_set1_epi32(-15));
        // drop = bits below the kept quantum: e - 10 (normal) or -24 - u (subnormal)
        const __m256i drop = _mm256_blendv_epi8(_mm256_sub_epi32(_mm256_set1_epi32(-24), u),
                                                _mm256_sub_epi32(e, _mm256_set1_epi32(10)), is_normal);
        const __m256i dr = _mm256_max_epi32(drop, zero), dl = _mm256_max_epi32(_mm256_sub_epi32(zero, drop), zero);
        __m256i q = _mm256_sllv_epi32(_mm256_srlv_epi32(mag, dr), dl);
        // the dropped bits and half a quantum; from 32 dropped bits on, half (>= 2^31) exceeds any
        // |S| < 2^31, so nothing rounds up there
        const __m256i low = _mm256_sub_epi32(_mm256_sllv_epi32(one, dr), one);  // dr >= 32: all ones
        const __m256i dr_big = _mm256_cmpgt_epi32(dr, _mm256_set1_epi32(31));
        const __m256i rem = _mm256_blendv_epi8(_mm256_and_si256(mag, low), mag, dr_big);
        const __m256i half = _mm256_blendv_epi8(_mm256_sllv_epi32(one, _mm256_sub_epi32(dr, one)), _mm256_set1_epi32(INT_MAX),
                                                _mm256_cmpgt_epi32(dr, _mm256_set1_epi32(32)));
        const __m256i dr32 = _mm256_cmpeq_epi32(dr, _mm256_set1_epi32(32));
        const __m256i half2 = _mm256_blendv_epi8(half, _mm256_set1_epi32(INT_MAX), dr32);
        const __m256i has_drop = _mm256_cmpgt_epi32(dr, zero);
        const __m256i gt = _mm256_cmpgt_epi32(rem, half2);
        const __m256i tie = _mm256_andnot_si256(_mm256_or_si256(dr32, _mm256_cmpgt_epi32(dr, _mm256_set1_epi32(32))),
                                                _mm256_cmpeq_epi32(rem, half2));
        const __m256i odd = _mm256_cmpeq_epi32(_mm256_and_si256(q, one), one);
        const __m256i up = _mm256_and_si256(has_drop, _mm256_or_si256(gt, _mm256_and_si256(tie, odd)));
        q = _mm256_sub_epi32(q, up);  // up is -1 where rounding up
        // encode: subnormal q (< 2^10, or 2^10 = the smallest normal) is the bit pattern itself;
        // normal: (top + 15) << 10 plus q - 2^10 (a carry q = 2^11 moves into the exponent)
        const __m256i enc_normal = _mm256_add_epi32(_mm256_slli_epi32(_mm256_add_epi32(top, _mm256_set1_epi32(14)), 10), q);
        r = _mm256_blendv_epi8(q, enc_normal, is_normal);
        r = _mm256_min_epi32(r, _mm256_set1_epi32(0x7C00));  // past the largest finite: inf
        r = _mm256_or_si256(r, sign);
      }
      c = _mm256_blendv_epi8(r, zero, _mm256_cmpeq_epi32(S, zero));
    }
  }
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(d), c);
  return static_cast<std::uint32_t>(_mm256_movemask_ps(_mm256_castsi256_ps(bad)));
}
#else
std::uint32_t avx2_vertical8(const VerticalArgs&, int, std::uint32_t*) { return 0xFF; }
#endif

}  // namespace tcsim::num::detail

namespace tcsim::num::detail {

#ifdef TCSIM_HAVE_AVX2_KERNEL
bool fma_available() {
  static const bool has = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return has;
}

// DMMA (chain of IEEE fp64 FMAs): 4 output columns per vector, each lane the same fma sequence as
// the scalar path (padding included), so the same bits.
__attribute__((target("avx2,fma"))) void fma_chain4(const double* arow, const double* bT, int N, int Kp,
                                                   const int* korder, double* d) {
  __m256d acc = _mm256_loadu_pd(d);
  for (int q = 0; q < Kp; ++q) {
    const int k = korder[q];
    acc = _mm256_fmadd_pd(_mm256_set1_pd(arow[k]), _mm256_loadu_pd(bT + static_cast<std::size_t>(k) * N), acc);
  }
  _mm256_storeu_pd(d, acc);
}
#else
bool fma_available() { return false; }
void fma_chain4(const double*, const double*, int, int, const int*, double*) {}
#endif

}  // namespace tcsim::num::detail
