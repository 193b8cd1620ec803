#pragma once
// Internal: decoding a float bit pattern into integers and rounding an exact value m * 2^e into a
// layout. Shared by the conversions and the MMA emulation. Integers only.
#include <bit>
#include <cstdint>

#include "numerics/formats/convert.h"
#include "numerics/formats/formats.h"

namespace tcsim::num::detail {

// value = (-1)^neg * m * 2^(e - man_bits), e = max(unbiased exponent, emin); m includes the hidden
// bit for normals (spec section 2, step 2).
struct Decoded {
  FpClass cls = FpClass::zero;
  bool neg = false;
  std::uint64_t m = 0;
  int e = 0;
  std::uint64_t payload = 0;  // NaN: the fraction field
};

inline Decoded decode(Bits bits, const FloatLayout& l) {
  Decoded d;
  d.neg = (bits & l.sign_mask()) != 0;
  const Bits frac = (bits >> l.pad_bits) & ((Bits{1} << l.man_bits) - 1);
  const int expf = static_cast<int>((bits >> (l.pad_bits + l.man_bits)) & ((Bits{1} << l.exp_bits) - 1));
  const int ones = (1 << l.exp_bits) - 1;
  if (expf == 0) {
    d.cls = frac == 0 ? FpClass::zero : FpClass::subnormal;
    d.m = frac;
    d.e = l.emin();
    return d;
  }
  if (expf == ones) {
    if (l.ieee_nan) {
      d.cls = frac == 0 ? FpClass::infinite : FpClass::nan;
      d.payload = frac;
      return d;
    }
    if (frac == (Bits{1} << l.man_bits) - 1) {
      d.cls = FpClass::nan;
      d.payload = frac;
      return d;
    }
  }
  d.cls = FpClass::normal;
  d.m = frac | (Bits{1} << l.man_bits);
  d.e = expf - l.bias;
  return d;
}

inline Bits pack_fields(const FloatLayout& l, bool neg, Bits expf, Bits frac) {
  return (neg ? l.sign_mask() : 0) | (((expf << l.man_bits) | frac) << l.pad_bits);
}

inline Bits inf_or_nan(const FloatLayout& l, bool neg) {
  // e4m3 has no infinity: an overflow or an infinite input gives NaN.
  if (!l.has_inf) return canonical_nan(l) | (neg ? l.sign_mask() : 0);
  return pack_fields(l, neg, (Bits{1} << l.exp_bits) - 1, 0);
}

inline Bits max_finite(const FloatLayout& l, bool neg) {
  Bits frac = (Bits{1} << l.man_bits) - 1;
  if (!l.ieee_nan) frac -= 1;
  return pack_fields(l, neg, static_cast<Bits>(l.emax() + l.bias), frac);
}

// Rounds (-1)^neg * (mag + tail) * 2^exp into l, where tail is in [0, 1) and is nonzero exactly
// when `sticky` (callers with sticky=true keep at least 2 bits below the target precision, i.e. the
// rounding position is at least 2 bits above 2^exp; it is lifted here otherwise when mag allows).
// Sets inexact. Overflow: satfinite -> max finite; else by mode (rne/rna -> inf, rz -> max,
// ru/rd by sign); e4m3 has no infinity, so "inf" is NaN there.
inline Bits round_pack(const FloatLayout& l, bool neg, std::uint64_t mag, int exp, bool sticky,
                       Rounding r, bool satfinite, bool& inexact) {
  inexact = false;
  if (mag == 0 && !sticky) return neg ? l.sign_mask() : 0;
  const int p = l.precision();
  if (mag == 0) {  // only a tail (callers avoid this): some value far below 2^exp
    mag = 1;
    exp -= 64;
  }
  const int n = 64 - std::countl_zero(mag);
  const int top = exp + n - 1;  // exponent of the leading bit
  int qexp = (top < l.emin() ? l.emin() : top) - (p - 1);
  int shift = qexp - exp;
  if (sticky && shift < 2 && n + (2 - shift) <= 63) {
    // Lift mag so that the tail sits at least two bits below the rounding position.
    mag <<= (2 - shift);
    exp -= (2 - shift);
    shift = 2;
  }
  std::uint64_t q = 0;
  // Where the discarded part lies relative to half a quantum: -1 below, 0 exactly half, +1 above.
  int vs_half = -1;
  bool lost = sticky;
  if (shift <= 0) {
    q = mag << (-shift);
  } else if (shift > 64) {
    lost = true;  // mag * 2^exp < 2^(shift-2+exp): below half a quantum
  } else {
    const std::uint64_t rem = shift == 64 ? mag : mag & ((std::uint64_t{1} << shift) - 1);
    const std::uint64_t half = std::uint64_t{1} << (shift - 1);
    q = shift == 64 ? 0 : mag >> shift;
    lost = lost || rem != 0;
    vs_half = rem > half ? 1 : rem < half ? -1 : (sticky ? 1 : 0);
  }
  inexact = lost;
  bool up = false;
  if (lost) {
    switch (r) {
      case Rounding::rz: break;
      case Rounding::ru: up = !neg; break;
      case Rounding::rd: up = neg; break;
      case Rounding::rne: up = vs_half > 0 || (vs_half == 0 && (q & 1)); break;
      case Rounding::rna: up = vs_half >= 0; break;
    }
  }
  q += up ? 1 : 0;
  if (q >> p) {  // carried out to 2^p
    q >>= 1;
    ++qexp;
  }
  // Now value = q * 2^qexp with q < 2^p.
  const int e_res = qexp + p - 1;
  const std::uint64_t hidden = std::uint64_t{1} << (p - 1);
  const std::uint64_t max_frac = l.ieee_nan ? hidden - 1 : hidden - 2;
  if (q >= hidden && (e_res > l.emax() || (e_res == l.emax() && (q - hidden) > max_frac))) {
    inexact = true;
    if (satfinite) return max_finite(l, neg);
    switch (r) {
      case Rounding::rne:
      case Rounding::rna: return inf_or_nan(l, neg);
      case Rounding::rz: return max_finite(l, neg);
      case Rounding::ru: return neg ? max_finite(l, true) : inf_or_nan(l, false);
      case Rounding::rd: return neg ? inf_or_nan(l, true) : max_finite(l, false);
    }
  }
  if (q < hidden) return pack_fields(l, neg, 0, q);  // subnormal (or zero)
  return pack_fields(l, neg, static_cast<Bits>(e_res + l.bias), q - hidden);
}

}  // namespace tcsim::num::detail
