#pragma once
// Internal: the T-FDPA block of spec section 2 (generic, on bit patterns) and the pieces the fast
// GEMM kernel shares with it (the final rounding of a block sum, the s32 finish).
#include <bit>
#include <climits>
#include <cstdint>

#include "numerics/formats/convert.h"
#include "numerics/mma/mma.h"
#include "numerics/formats/round_core.h"

namespace tcsim::num::detail {

inline Bits finish_int32(std::int64_t s, bool saturate) {
  if (saturate) {
    if (s > INT32_MAX) s = INT32_MAX;
    if (s < INT32_MIN) s = INT32_MIN;
  }
  return static_cast<std::uint32_t>(static_cast<std::uint64_t>(s));
}

// Step 6: v = S * 2^u rounded into the accumulator. S == 0 gives +0.
inline Bits finish_fdpa(OutMode out, std::int64_t S, int u) {
  if (S == 0) return 0;
  const bool neg = S < 0;
  const std::uint64_t mag = neg ? static_cast<std::uint64_t>(-S) : static_cast<std::uint64_t>(S);
  bool inexact;
  switch (out) {
    case OutMode::rz_fp32: {
      // Inline RZ into fp32 (the hot path of the GEMM kernel); same result as round_pack.
      const int n = 64 - std::countl_zero(mag);
      const int top = u + n - 1;
      const std::uint32_t sign = neg ? 0x80000000u : 0u;
      if (top >= 128) return sign | 0x7F800000u;  // |v| >= 2^128: inf
      if (top >= -126) {
        const int sh = n - 24;
        const std::uint64_t m = sh >= 0 ? mag >> sh : mag << -sh;
        return sign | (static_cast<std::uint32_t>(top + 127) << 23) | (static_cast<std::uint32_t>(m) & 0x7FFFFFu);
      }
      const int sh = -149 - u;  // subnormal: quantum 2^-149
      const std::uint64_t m = sh >= 64 ? 0 : sh >= 0 ? mag >> sh : mag << -sh;
      return sign | static_cast<std::uint32_t>(m);
    }
    case OutMode::rz_e8m13: {
      const int top = u + (63 - std::countl_zero(mag));
      if (top >= 128) return neg ? 0xFF800000u : 0x7F800000u;  // |v| >= 2^128: inf
      const FloatLayout& l = out == OutMode::rz_fp32 ? layout(FormatId::fp32) : layout_e8m13();
      return round_pack(l, neg, mag, u, false, Rounding::rz, false, inexact);
    }
    case OutMode::rne_fp16:
      return round_pack(layout(FormatId::fp16), neg, mag, u, false, Rounding::rne, false, inexact);
    case OutMode::rz_fp32_rne_fp16:
      return convert(finish_fdpa(OutMode::rz_fp32, S, u), FormatId::fp32, FormatId::fp16, ConvertOptions{});
    default: return 0;
  }
}

inline Bits acc_inf(FormatId acc, bool neg) {
  return acc == FormatId::fp16 ? (neg ? 0xFC00u : 0x7C00u) : (neg ? 0xFF800000u : 0x7F800000u);
}

// One block (spec section 2, tfdpa()): a, b as they reach the core (tf32 already fed).
inline Bits tfdpa_generic(const FdpaParams& p, const Bits* a, const Bits* b, int n, Bits c) {
  // n <= 64 always (L <= 32 in every table entry); the arrays below are sized for it.
  const FloatLayout& la = layout(p.in_a);
  const FloatLayout& lb = layout(p.in_b);
  const FloatLayout& lc = layout(p.acc);
  // 1. Special values, checked first on the inputs.
  bool any_nan = false, pos_inf = false, neg_inf = false;
  const Decoded dc = decode(c, lc);
  if (dc.cls == FpClass::nan) any_nan = true;
  if (dc.cls == FpClass::infinite) (dc.neg ? neg_inf : pos_inf) = true;
  Decoded da[64], db[64];
  for (int i = 0; i < n; ++i) {
    da[i] = decode(a[i], la);
    db[i] = decode(b[i], lb);
    const bool ia = da[i].cls == FpClass::infinite, ib = db[i].cls == FpClass::infinite;
    if (da[i].cls == FpClass::nan || db[i].cls == FpClass::nan) any_nan = true;
    else if (ia || ib) {
      if ((ia && db[i].cls == FpClass::zero) || (ib && da[i].cls == FpClass::zero)) any_nan = true;
      else ((da[i].neg != db[i].neg) ? neg_inf : pos_inf) = true;
    }
  }
  if (any_nan || (pos_inf && neg_inf)) return canonical_nan(lc);
  if (pos_inf || neg_inf) return acc_inf(p.acc, neg_inf);
  // 2-3. Exact products with alignment exponent E = e_a + e_b; zero terms get e_zero.
  const int fs = la.man_bits + lb.man_bits;
  std::uint64_t pm[64];
  int pe[64];
  const int Ec = dc.m == 0 ? p.e_zero : dc.e;
  int Emax = Ec;
  for (int i = 0; i < n; ++i) {
    pm[i] = da[i].m * db[i].m;
    pe[i] = pm[i] == 0 ? p.e_zero : da[i].e + db[i].e;
    if (pe[i] > Emax) Emax = pe[i];
  }
  const int u = Emax - p.F;  // unit = 2^u
  // 4-5. Truncate each magnitude to a multiple of the unit, add exactly.
  auto truncated = [u](std::uint64_t m, int E, int frac_bits) -> std::int64_t {
    const int sh = E - frac_bits - u;  // value = m * 2^(E - frac_bits)
    if (sh >= 0) return static_cast<std::int64_t>(m << sh);
    return -sh >= 64 ? 0 : static_cast<std::int64_t>(m >> -sh);
  };
  std::int64_t S = 0;
  for (int i = 0; i < n; ++i) {
    const std::int64_t t = truncated(pm[i], pe[i], fs);
    S += (da[i].neg != db[i].neg) ? -t : t;
  }
  const std::int64_t tc = truncated(dc.m, Ec, lc.man_bits);
  S += dc.neg ? -tc : tc;
  // 6. One rounding into the accumulator.
  return finish_fdpa(p.out, S, u);
}

}  // namespace tcsim::num::detail
