// Conversions: exhaustive 16/8-bit round trips, fp32 -> fp16 against g++ _Float16 (RNE) and an
// exact neighbour oracle (other modes), fp32 -> bf16/tf32 by bit-level reasoning, fp32 -> fp8
// against a table of every representable value, satfinite, RNA ties.
#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <ios>
#include <ostream>
#include <vector>

#include "numerics/formats/convert.h"
#include "numerics/formats/formats.h"

using namespace tcsim;
using namespace tcsim::num;

namespace {
const Rounding kModes[] = {Rounding::rne, Rounding::rz, Rounding::rna, Rounding::ru, Rounding::rd};

#ifdef TCSIM_SANITIZED
constexpr std::uint64_t kRandomFp16 = 200'000;
constexpr std::uint64_t kRandomOther = 10'000;
#else
constexpr std::uint64_t kRandomFp16 = 10'000'000;  // the issue asks for >= 10^7
constexpr std::uint64_t kRandomOther = 100'000;    // per format, plus every boundary
#endif

std::uint64_t splitmix(std::uint64_t& s) {
  std::uint64_t z = (s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

float f32(std::uint32_t b) { return std::bit_cast<float>(b); }

// The compiler's own _Float16 is the oracle where it has one: g++ (the Release build) does;
// clang 14 (the sanitizer build, scripts/test) has no _Float16 on x86-64, and skips those checks.
#ifdef __FLT16_MAX__
#define TCSIM_HAVE_FLOAT16 1
std::uint16_t half_bits(_Float16 h) {
  std::uint16_t b;
  std::memcpy(&b, &h, 2);
  return b;
}
#endif

// Oracle for rounding a finite, non-NaN double x into a format whose non-negative finite values
// (ascending, exact in double) are `mags`; `overflow_value` is the value of the first step past
// the largest (where a rounded result becomes inf/NaN). Returns the index into mags, or -1 for
// "overflow" (inf, or NaN in e4m3), and the sign.
struct Pick {
  int index;  // -1: overflow
};
// overflow_even: whether the overflow step's significand is even (2^(emax+1) = 1.000 is even; in
// e4m3 the step past 448 = 1.110b x 2^8 is 480 = 1.111b x 2^8, odd, so 464 ties to 448).
Pick oracle_round(const std::vector<double>& mags, double overflow_value, bool overflow_even,
                  double x, Rounding r) {
  const double ax = std::fabs(x);
  const bool neg = std::signbit(x);
  auto it = std::lower_bound(mags.begin(), mags.end(), ax);
  if (it != mags.end() && *it == ax) return {static_cast<int>(it - mags.begin())};
  // ax strictly between lo and hi (hi may be the overflow step)
  const int lo_i = static_cast<int>(it - mags.begin()) - 1;
  const int hi_i = it == mags.end() ? -1 : static_cast<int>(it - mags.begin());
  const double lo = mags[static_cast<std::size_t>(lo_i)];
  const double hi = hi_i < 0 ? overflow_value : mags[static_cast<std::size_t>(hi_i)];
  const double dlo = ax - lo, dhi = hi - ax;  // exact for the formats tested
  bool up = false;
  switch (r) {
    case Rounding::rz: up = false; break;
    case Rounding::ru: up = !neg; break;
    case Rounding::rd: up = neg; break;
    case Rounding::rna: up = dhi <= dlo; break;
    case Rounding::rne: {
      // tie: the even one (index parity = parity of the last significand bit)
      if (dhi != dlo) up = dhi < dlo;
      else up = hi_i < 0 ? overflow_even : (hi_i % 2 == 0);
      break;
    }
  }
  return {up ? hi_i : lo_i};
}

std::vector<double> magnitudes(FormatId f) {
  const FloatLayout& l = layout(f);
  std::vector<double> v;
  const Bits n = Bits{1} << (l.storage_bits() - 1);
  for (Bits b = 0; b < n; ++b) {
    const FpClass c = classify(b, l);
    if (c == FpClass::nan || c == FpClass::infinite) continue;
    v.push_back(to_double(b, f));
  }
  return v;  // ascending, because positive floats order like their bit patterns
}
}  // namespace

TEST_CASE("every fp16, bf16, e4m3, e5m2 encoding -> fp32 -> back is exact (NaNs included)") {
  for (FormatId f : {FormatId::fp16, FormatId::bf16, FormatId::e4m3, FormatId::e5m2}) {
    CAPTURE(format_name(f));
    const Bits n = Bits{1} << format_bits(f);
    int bad = 0;
    for (Bits b = 0; b < n; ++b) {
      const std::uint32_t w = to_fp32(b, f);
      for (Rounding r : kModes) {
        const Bits back = from_fp32(w, f, {r});
        if (back != b && ++bad < 5) FAIL_CHECK(format_bits(b, f) << " -> " << w << " -> " << back);
      }
      // via fp64 as well
      if (from_fp64(to_fp64(b, f), f) != b && ++bad < 5) FAIL_CHECK("fp64 round trip " << format_bits(b, f));
    }
    CHECK(bad == 0);
  }
}

TEST_CASE("16/8-bit -> fp32 against independent decodings") {
#ifdef TCSIM_HAVE_FLOAT16
  // fp16 against g++ _Float16 (values; NaN stays NaN).
  for (std::uint32_t b = 0; b < 0x10000; ++b) {
    _Float16 h;
    const auto hb = static_cast<std::uint16_t>(b);
    std::memcpy(&h, &hb, 2);
    const float ref = static_cast<float>(h);
    const float got = f32(to_fp32(b, FormatId::fp16));
    if (std::isnan(ref)) REQUIRE(std::isnan(got));
    else REQUIRE(std::bit_cast<std::uint32_t>(ref) == std::bit_cast<std::uint32_t>(got));
  }
#else
  MESSAGE("no _Float16 in this compiler: the fp16 decoding oracle is checked by the g++ build");
#endif
  // bf16 is the top half of fp32; e5m2 is the top byte of fp16 (bit-exact, NaN payloads too).
  for (std::uint32_t b = 0; b < 0x10000; ++b) REQUIRE(to_fp32(b, FormatId::bf16) == b << 16);
  for (std::uint32_t b = 0; b < 0x100; ++b) REQUIRE(convert(b, FormatId::e5m2, FormatId::fp16) == b << 8);
  // e4m3 from its definition: bias 7, no inf, NaN only S.1111.111.
  for (std::uint32_t b = 0; b < 0x100; ++b) {
    const int s = static_cast<int>(b >> 7), e = static_cast<int>((b >> 3) & 15), m = static_cast<int>(b & 7);
    const float got = f32(to_fp32(b, FormatId::e4m3));
    if (e == 15 && m == 7) {
      REQUIRE(std::isnan(got));
      continue;
    }
    const double mag = e == 0 ? std::ldexp(m, -9) : std::ldexp(8 + m, e - 10);
    REQUIRE(static_cast<double>(got) == (s ? -mag : mag));
    REQUIRE(std::signbit(got) == (s == 1));
  }
  CHECK(to_double(0x7E, FormatId::e4m3) == 448);
  CHECK(to_double(0x7B, FormatId::e5m2) == 57344);
  CHECK(classify(0x7C, FormatId::e5m2) == FpClass::infinite);
  CHECK(classify(0x7F, FormatId::e4m3) == FpClass::nan);
  CHECK(classify(0x78, FormatId::e4m3) == FpClass::normal);  // 256, not inf
}

#ifdef TCSIM_HAVE_FLOAT16
TEST_CASE("fp32 -> fp16 RNE against g++ _Float16: random patterns and boundaries") {
  std::uint64_t seed = 12345;
  std::uint64_t mismatches = 0;
  auto check = [&](std::uint32_t w) {
    const std::uint16_t ref = half_bits(static_cast<_Float16>(f32(w)));
    const auto got = static_cast<std::uint16_t>(from_fp32(w, FormatId::fp16));
    if (std::isnan(f32(w))) {
      if ((got & 0x7C00) != 0x7C00 || (got & 0x3FF) == 0) ++mismatches;
      return;
    }
    if (got != ref && ++mismatches < 5)
      FAIL_CHECK("fp32 0x" << w << ": got 0x" << got << ", _Float16 0x" << ref);
  };
  for (std::uint64_t i = 0; i < kRandomFp16; ++i) check(static_cast<std::uint32_t>(splitmix(seed)));
  // Boundaries: every fp16 value and its midpoints to both neighbours, +-1 ulp of fp32 around
  // each, for both signs: overflow threshold 65520, subnormal boundaries, ties.
  for (std::uint32_t h = 0; h < 0x7C00; ++h) {
    const std::uint32_t w = to_fp32(h, FormatId::fp16);
    const std::uint32_t next = to_fp32(h + 1, FormatId::fp16);  // 0x7C00 -> inf: 65536 midpoint below
    const double mid = h + 1 == 0x7C00 ? 65520.0 : (to_double(h, FormatId::fp16) + f32(next)) / 2;
    const auto mw = std::bit_cast<std::uint32_t>(static_cast<float>(mid));  // exact: 12 bits
    for (std::uint32_t sign : {0u, 0x80000000u})
      for (std::uint32_t base : {w, mw})
        for (int d = -2; d <= 2; ++d) check((base + static_cast<std::uint32_t>(d)) ^ sign);
  }
  for (std::uint32_t w : {0x477FF000u, 0x477FEFFFu, 0x477FE000u, 0x7F7FFFFFu, 0x7F800000u, 0x33000000u,
                          0x33000001u, 0x32FFFFFFu, 0x387FC000u, 0x387FE000u, 0x38800000u})
    for (std::uint32_t sign : {0u, 0x80000000u}) check(w ^ sign);
  CHECK(mismatches == 0);
  CHECK(from_fp32(0x477FF000u, FormatId::fp16) == 0x7C00);  // 65520 -> inf
  CHECK(from_fp32(0x477FEFFFu, FormatId::fp16) == 0x7BFF);  // just below -> 65504
}
#endif  // TCSIM_HAVE_FLOAT16

TEST_CASE("fp32 -> fp16/bf16/e4m3/e5m2 in every mode against a table of representable values") {
  struct Target {
    FormatId f;
    double overflow_step;  // the value one step past the largest finite
  };
  const Target targets[] = {{FormatId::fp16, 65536}, {FormatId::bf16, 0x1p128},
                            {FormatId::e4m3, 480}, {FormatId::e5m2, 65536}};
  std::uint64_t seed = 777;
  for (const Target& t : targets) {
    CAPTURE(format_name(t.f));
    const std::vector<double> mags = magnitudes(t.f);
    const FloatLayout& l = layout(t.f);
    std::vector<std::uint32_t> inputs;
    for (std::uint64_t i = 0; i < kRandomOther; ++i) {
      // Mix: full-range patterns and patterns near the format's range.
      std::uint32_t w = static_cast<std::uint32_t>(splitmix(seed));
      if (i % 2) {
        const int e = static_cast<int>(splitmix(seed) % static_cast<std::uint64_t>(l.emax() - l.emin() + l.man_bits + 6)) +
                      l.emin() - l.man_bits - 3;
        w = (w & 0x807FFFFFu) | (static_cast<std::uint32_t>(e + 127) << 23);
      }
      inputs.push_back(w);
    }
    for (double m : mags) {  // every value and the midpoints around it, +-1 fp32 ulp
      const auto w = std::bit_cast<std::uint32_t>(static_cast<float>(m));
      for (int d = -1; d <= 1; ++d) inputs.push_back(w + static_cast<std::uint32_t>(d));
    }
    for (std::size_t i = 0; i + 1 < mags.size(); ++i) {
      const auto w = std::bit_cast<std::uint32_t>(static_cast<float>((mags[i] + mags[i + 1]) / 2));
      for (int d = -1; d <= 1; ++d) inputs.push_back(w + static_cast<std::uint32_t>(d));
    }
    const double omid = (mags.back() + t.overflow_step) / 2;
    const auto ow = std::bit_cast<std::uint32_t>(static_cast<float>(omid));
    for (int d = -1; d <= 1; ++d) inputs.push_back(ow + static_cast<std::uint32_t>(d));
    std::uint64_t bad = 0;
    for (std::uint32_t w0 : inputs)
      for (std::uint32_t w : {w0 & 0x7FFFFFFFu, w0 | 0x80000000u}) {
        const float x = f32(w);
        if (std::isnan(x) || std::isinf(x)) continue;
        const bool neg = std::signbit(x);
        for (Rounding r : kModes)
          for (bool sat : {false, true}) {
            const Pick p = oracle_round(mags, t.overflow_step, t.f != FormatId::e4m3, static_cast<double>(x), r);
            Bits want;
            if (p.index >= 0) {
              want = from_double(neg ? -mags[static_cast<std::size_t>(p.index)] : mags[static_cast<std::size_t>(p.index)], t.f);
              if (mags[static_cast<std::size_t>(p.index)] == 0) want = zero_bits(t.f, neg);
            } else if (sat) {
              want = max_finite_bits(t.f, neg);
            } else {
              want = l.has_inf ? inf_bits(t.f, neg) : (canonical_nan(t.f) | (neg ? l.sign_mask() : 0));
            }
            const Bits got = from_fp32(w, t.f, {r, sat});
            if (got != want && ++bad < 6)
              FAIL_CHECK("0x" << w << " " << rounding_name(r) << (sat ? " satfinite" : "")
                                  << ": got " << got << ", want " << want);
          }
      }
    CHECK(bad == 0);
  }
}

TEST_CASE("fp32 -> bf16 and tf32 by bit-level reasoning, every mode") {
  std::uint64_t seed = 99;
  std::uint64_t bad = 0;
  for (std::uint64_t i = 0; i < kRandomOther * 2; ++i) {
    std::uint32_t w = static_cast<std::uint32_t>(splitmix(seed));
    if (i % 4 == 0) w = (w & 0xFFFF0000u) | 0x8000u;            // exact ties for bf16
    if (i % 4 == 1) w = (w & 0xFFFFE000u) | 0x1000u;            // exact ties for tf32
    if (std::isnan(f32(w))) continue;
    const bool neg = (w >> 31) != 0;
    for (int which = 0; which < 2; ++which) {
      const int drop = which == 0 ? 16 : 13;
      const FormatId f = which == 0 ? FormatId::bf16 : FormatId::tf32;
      const std::uint32_t keep = w >> drop, rem = w & ((1u << drop) - 1), half = 1u << (drop - 1);
      const bool inf_in = (w & 0x7FFFFFFFu) == 0x7F800000u;
      for (Rounding r : kModes) {
        bool up = false;
        if (!inf_in && rem) switch (r) {
            case Rounding::rne: up = rem > half || (rem == half && (keep & 1)); break;
            case Rounding::rna: up = rem >= half; break;
            case Rounding::rz: break;
            case Rounding::ru: up = !neg; break;
            case Rounding::rd: up = neg; break;
          }
        std::uint32_t want = (keep + (up ? 1 : 0)) << drop;
        // Directed modes never cross to inf away from their direction: max finite instead.
        const bool to_inf = (want & 0x7FFFFFFFu) == 0x7F800000u && !inf_in;
        if (to_inf && (r == Rounding::rz || (r == Rounding::ru && neg) || (r == Rounding::rd && !neg)))
          want = (want & 0x80000000u) | ((0x7F800000u - (1u << drop)));
        Bits expect = which == 0 ? want >> 16 : want;
        if (which == 0 && to_inf && r == Rounding::rz) expect = (want >> 16);
        const Bits got = from_fp32(w, f, {r});
        if (got != expect && ++bad < 6)
          FAIL_CHECK(format_name(f) << " 0x" << w << " " << rounding_name(r) << ": got " << got
                              << " want " << expect);
        // satfinite: overflow becomes max finite.
        if (to_inf || inf_in) {
          const Bits sat = from_fp32(w, f, {r, true});
          if (sat != max_finite_bits(f, neg) && ++bad < 6) FAIL_CHECK("satfinite " << w);
        }
      }
    }
  }
  CHECK(bad == 0);
}

TEST_CASE("RNA breaks ties away from zero, RNE to even") {
  // fp32 -> tf32: 1 + 2^-11 is half a tf32 ulp above 1.
  const auto tie = std::bit_cast<std::uint32_t>(1.0f + 0x1p-11f);
  CHECK(from_fp32(tie, FormatId::tf32, {Rounding::rna}) == std::bit_cast<std::uint32_t>(1.0f + 0x1p-10f));
  CHECK(from_fp32(tie, FormatId::tf32, {Rounding::rne}) == std::bit_cast<std::uint32_t>(1.0f));
  CHECK(from_fp32(tie | 0x80000000u, FormatId::tf32, {Rounding::rna}) ==
        std::bit_cast<std::uint32_t>(-(1.0f + 0x1p-10f)));
  // fp32 -> fp16: 2049 is a tie between 2048 and 2050: RNE 2048, RNA 2050.
  const auto t2 = std::bit_cast<std::uint32_t>(2049.0f);
  CHECK(from_fp32(t2, FormatId::fp16, {Rounding::rne}) == 0x6800);
  CHECK(from_fp32(t2, FormatId::fp16, {Rounding::rna}) == 0x6801);
  // the smallest fp16 subnormal: half of it ties to 0 (RNE) or to 2^-24 (RNA)
  const auto t3 = std::bit_cast<std::uint32_t>(0x1p-25f);
  CHECK(from_fp32(t3, FormatId::fp16, {Rounding::rne}) == 0x0000);
  CHECK(from_fp32(t3, FormatId::fp16, {Rounding::rna}) == 0x0001);
  // 65520 is the tie between 65504 and the overflow step: RNE and RNA give inf, RZ 65504.
  const auto t4 = std::bit_cast<std::uint32_t>(65520.0f);
  CHECK(from_fp32(t4, FormatId::fp16, {Rounding::rne}) == 0x7C00);
  CHECK(from_fp32(t4, FormatId::fp16, {Rounding::rna}) == 0x7C00);
  CHECK(from_fp32(t4, FormatId::fp16, {Rounding::rz}) == 0x7BFF);
  CHECK(from_fp32(t4, FormatId::fp16, {Rounding::rne, true}) == 0x7BFF);
}

TEST_CASE("special values in conversions") {
  const std::uint32_t inf = 0x7F800000u, nan = 0x7FC00000u;
  // e4m3 has no inf: inf and overflow give NaN, or 448 with satfinite.
  CHECK(from_fp32(inf, FormatId::e4m3) == 0x7F);
  CHECK(from_fp32(inf | 0x80000000u, FormatId::e4m3) == 0xFF);
  CHECK(from_fp32(inf, FormatId::e4m3, {Rounding::rne, true}) == 0x7E);
  // 464 is the tie between 448 (1.110b x 2^8, even) and the step 480 (odd): RNE gives 448; above
  // it the result would be 480, the NaN encoding.
  CHECK(from_fp32(std::bit_cast<std::uint32_t>(464.0f), FormatId::e4m3) == 0x7E);
  CHECK(from_fp32(std::bit_cast<std::uint32_t>(464.5f), FormatId::e4m3) == 0x7F);
  CHECK(from_fp32(std::bit_cast<std::uint32_t>(464.0f), FormatId::e4m3, {Rounding::rna}) == 0x7F);
  CHECK(from_fp32(std::bit_cast<std::uint32_t>(1e9f), FormatId::e4m3, {Rounding::rz}) == 0x7E);
  // e5m2 keeps inf; satfinite turns inf into 57344.
  CHECK(from_fp32(inf, FormatId::e5m2) == 0x7C);
  CHECK(from_fp32(inf, FormatId::e5m2, {Rounding::rne, true}) == 0x7B);
  CHECK(from_fp32(std::bit_cast<std::uint32_t>(61440.0f), FormatId::e5m2) == 0x7C);
  CHECK(from_fp32(std::bit_cast<std::uint32_t>(61439.0f), FormatId::e5m2) == 0x7B);
  // NaN stays NaN, also with satfinite; canonical on request.
  for (FormatId f : {FormatId::fp16, FormatId::bf16, FormatId::e4m3, FormatId::e5m2, FormatId::tf32}) {
    CAPTURE(format_name(f));
    CHECK(is_nan(from_fp32(nan, f), f));
    CHECK(is_nan(from_fp32(nan, f, {Rounding::rne, true}), f));
    CHECK(is_nan(from_fp32(0x7F800001u, f), f));  // payload only in low bits: still NaN
    CHECK(from_fp32(nan, f, {Rounding::rne, false, true}) == canonical_nan(f));
  }
  CHECK(canonical_nan(FormatId::fp32) == 0x7FFFFFFFu);
  CHECK(canonical_nan(FormatId::fp16) == 0x7FFF);
  CHECK(canonical_nan(FormatId::tf32) == 0x7FFFE000u);
  // the tensor-core tf32 feed differs: a low-bit payload becomes inf
  CHECK(tf32_truncate(0x7F800001u) == 0x7F800000u);
  // signed zeros survive every conversion
  CHECK(from_fp32(0x80000000u, FormatId::e4m3) == 0x80);
  CHECK(from_fp32(0x80000000u, FormatId::fp16) == 0x8000);
  // fp64 -> fp32 underflow and directed rounding of tiny values
  CHECK(from_double(1e-300, FormatId::fp32) == 0);
  CHECK(from_double(1e-300, FormatId::fp32, {Rounding::ru}) == 1);
  CHECK(from_double(-1e-300, FormatId::fp32, {Rounding::rd}) == 0x80000001u);
}

TEST_CASE("integer formats") {
  CHECK(int_value(0xFF, FormatId::int8) == -1);
  CHECK(int_value(0x8, FormatId::int4) == -8);
  CHECK(int_value(0xF, FormatId::uint4) == 15);
  CHECK(int_bits(-1, FormatId::int4) == 0xF);
  CHECK(to_double(0x80, FormatId::int8) == -128);
  CHECK(from_double(2.5, FormatId::int8) == 2);                    // RNE
  CHECK(from_double(2.5, FormatId::int8, {Rounding::rna}) == 3);
  CHECK(from_double(-2.5, FormatId::int8, {Rounding::rd}) == int_bits(-3, FormatId::int8));
  CHECK(from_double(300, FormatId::int8) == 0x7F);                 // saturates
  CHECK(from_double(-300, FormatId::uint8) == 0);
  CHECK(from_double(std::nan(""), FormatId::int32) == 0);
  CHECK(convert(0x7F, FormatId::int8, FormatId::int4) == 0x7);     // int -> int saturates
  CHECK(convert(int_bits(-100000, FormatId::int32), FormatId::int32, FormatId::fp16) ==
        from_double(-100000, FormatId::fp16));
}
