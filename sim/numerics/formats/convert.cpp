#include "numerics/formats/convert.h"

#include <bit>
#include <charconv>
#include <cstdio>
#include <stdexcept>

#include "common/text/strings.h"
#include "numerics/formats/round_core.h"

namespace tcsim::num {
namespace {
using detail::Decoded;

// NaN into layout `to` from a NaN with `payload` in a field of `from_bits` fraction bits.
Bits nan_into(const FloatLayout& to, bool neg, Bits payload, int from_bits, bool canonical) {
  const Bits sign = neg ? to.sign_mask() : 0;
  if (canonical || !to.ieee_nan) return canonical_nan(to) | sign;
  Bits p = from_bits >= to.man_bits ? payload >> (from_bits - to.man_bits)
                                    : payload << (to.man_bits - from_bits);
  if (p == 0) p = Bits{1} << (to.man_bits - 1);
  return detail::pack_fields(to, neg, (Bits{1} << to.exp_bits) - 1, p);
}

Bits float_to_float(Bits bits, const FloatLayout& from, const FloatLayout& to,
                    const ConvertOptions& opt, bool& inexact) {
  inexact = false;
  const Decoded d = detail::decode(bits, from);
  switch (d.cls) {
    case FpClass::nan: return nan_into(to, d.neg, d.payload, from.man_bits, opt.canonical_nan);
    case FpClass::infinite:
      if (opt.satfinite) {
        inexact = true;
        return detail::max_finite(to, d.neg);
      }
      if (!to.has_inf) inexact = true;
      return detail::inf_or_nan(to, d.neg);
    case FpClass::zero: return d.neg ? to.sign_mask() : 0;
    default:
      return detail::round_pack(to, d.neg, d.m, d.e - from.man_bits, false, opt.rounding,
                                opt.satfinite, inexact);
  }
}

// Rounds m * 2^exp (m != 0 or exp irrelevant) to an integer with the mode; saturates into f.
Bits float_to_int(Bits bits, const FloatLayout& from, FormatId to, const ConvertOptions& opt,
                  bool& inexact) {
  inexact = false;
  const Decoded d = detail::decode(bits, from);
  const std::int64_t lo = int_min(to), hi = int_max(to);
  if (d.cls == FpClass::nan) {
    inexact = true;
    return 0;
  }
  if (d.cls == FpClass::infinite) {
    inexact = true;
    return int_bits(d.neg ? lo : hi, to);
  }
  if (d.cls == FpClass::zero) return 0;
  const int exp = d.e - from.man_bits;
  std::uint64_t q;
  bool up = false;
  if (exp >= 0) {
    if (exp >= 40 || (64 - std::countl_zero(d.m)) + exp > 40) {  // far outside every int range
      inexact = true;
      return int_bits(d.neg ? lo : hi, to);
    }
    q = d.m << exp;
  } else {
    const int s = -exp;
    std::uint64_t rem, half;
    if (s >= 64) {
      q = 0;
      rem = d.m;
      half = ~std::uint64_t{0};  // value < 1/2 (m < 2^53, s >= 64)
    } else {
      q = d.m >> s;
      rem = d.m & ((std::uint64_t{1} << s) - 1);
      half = std::uint64_t{1} << (s - 1);
    }
    inexact = rem != 0;
    if (inexact) {
      switch (opt.rounding) {
        case Rounding::rz: break;
        case Rounding::ru: up = !d.neg; break;
        case Rounding::rd: up = d.neg; break;
        case Rounding::rne: up = rem > half || (rem == half && (q & 1)); break;
        case Rounding::rna: up = rem >= half; break;
      }
    }
  }
  std::int64_t v = static_cast<std::int64_t>(q + (up ? 1 : 0));
  if (d.neg) v = -v;
  if (v < lo || v > hi) {
    inexact = true;
    v = v < lo ? lo : hi;
  }
  return int_bits(v, to);
}

Bits int_to_float(Bits bits, FormatId from, const FloatLayout& to, const ConvertOptions& opt,
                  bool& inexact) {
  const std::int64_t v = int_value(bits, from);
  const bool neg = v < 0;
  const std::uint64_t mag = neg ? static_cast<std::uint64_t>(-v) : static_cast<std::uint64_t>(v);
  return detail::round_pack(to, neg, mag, 0, false, opt.rounding, opt.satfinite, inexact);
}
}  // namespace

std::string_view rounding_name(Rounding r) {
  switch (r) {
    case Rounding::rne: return "rne";
    case Rounding::rz: return "rz";
    case Rounding::rna: return "rna";
    case Rounding::ru: return "ru";
    case Rounding::rd: return "rd";
  }
  return "?";
}

bool parse_rounding(std::string_view name, Rounding& out) {
  const std::string n = to_lower(trim(name));
  if (n == "rne" || n == "rn") out = Rounding::rne;
  else if (n == "rz") out = Rounding::rz;
  else if (n == "rna") out = Rounding::rna;
  else if (n == "ru" || n == "rp") out = Rounding::ru;
  else if (n == "rd" || n == "rm") out = Rounding::rd;
  else return false;
  return true;
}

Bits convert(Bits bits, FormatId from, FormatId to, const ConvertOptions& opt, bool& inexact) {
  inexact = false;
  const bool fi = is_float(from), ti = is_float(to);
  if (fi && ti) return float_to_float(bits, layout(from), layout(to), opt, inexact);
  if (fi) return float_to_int(bits, layout(from), to, opt, inexact);
  if (ti) return int_to_float(bits, from, layout(to), opt, inexact);
  std::int64_t v = int_value(bits, from);
  if (v < int_min(to) || v > int_max(to)) {
    inexact = true;
    v = v < int_min(to) ? int_min(to) : int_max(to);
  }
  return int_bits(v, to);
}

Bits convert(Bits bits, FormatId from, FormatId to, const ConvertOptions& opt) {
  bool inexact;
  return convert(bits, from, to, opt, inexact);
}

Bits from_fp32(std::uint32_t fp32_bits, FormatId to, const ConvertOptions& opt) {
  return convert(fp32_bits, FormatId::fp32, to, opt);
}
std::uint32_t to_fp32(Bits bits, FormatId from, const ConvertOptions& opt) {
  return static_cast<std::uint32_t>(convert(bits, from, FormatId::fp32, opt));
}
Bits from_fp64(std::uint64_t fp64_bits, FormatId to, const ConvertOptions& opt) {
  return convert(fp64_bits, FormatId::fp64, to, opt);
}
std::uint64_t to_fp64(Bits bits, FormatId from, const ConvertOptions& opt) {
  return convert(bits, from, FormatId::fp64, opt);
}

double to_double(Bits bits, FormatId f) {
  if (!is_float(f)) return static_cast<double>(int_value(bits, f));
  return std::bit_cast<double>(to_fp64(bits, f));
}

Bits from_double(double v, FormatId f, const ConvertOptions& opt) {
  return from_fp64(std::bit_cast<std::uint64_t>(v), f, opt);
}

ExactValue exact_value(Bits bits, FormatId f) {
  ExactValue x;
  if (!is_float(f)) {
    const std::int64_t v = int_value(bits, f);
    x.negative = v < 0;
    x.mantissa = x.negative ? static_cast<std::uint64_t>(-v) : static_cast<std::uint64_t>(v);
  } else {
    const FloatLayout& l = layout(f);
    const Decoded d = detail::decode(bits, l);
    if (d.cls == FpClass::nan || d.cls == FpClass::infinite)
      throw std::invalid_argument("exact_value(): not a finite value");
    x.negative = d.neg;
    x.mantissa = d.m;
    x.exponent = d.e - l.man_bits;
  }
  if (x.mantissa == 0) {
    x.exponent = 0;
    return x;
  }
  const int tz = std::countr_zero(x.mantissa);
  x.mantissa >>= tz;
  x.exponent += tz;
  return x;
}

std::string format_bits(Bits bits, FormatId f) {
  const int digits = (format_bits(f) + 3) / 4;
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%0*llx", digits, static_cast<unsigned long long>(bits));
  return buf;
}

std::string format_value(Bits bits, FormatId f) {
  if (!is_float(f)) return std::to_string(int_value(bits, f));
  const FpClass c = classify(bits, f);
  const bool neg = sign_bit(bits, f);
  if (c == FpClass::nan) return neg ? "-nan" : "nan";
  if (c == FpClass::infinite) return neg ? "-inf" : "inf";
  const double v = to_double(bits, f);
  char buf[64];
  if (f != FormatId::fp64) {
    // The shortest %g text that reads back (exactly, rounding to nearest) as the same bits.
    ParseOptions po;
    po.allow_inexact = true;
    for (int digits = 1; digits <= 17; ++digits) {
      std::snprintf(buf, sizeof buf, "%.*g", digits, v);
      if (parse_value(buf, f, po) == bits) return buf;
    }
  }
  const auto res = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, res.ptr);
}

std::string format_hexfloat(Bits bits, FormatId f) {
  if (!is_float(f)) return format_value(bits, f);
  const FpClass c = classify(bits, f);
  if (c == FpClass::nan || c == FpClass::infinite) return format_value(bits, f);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%a", to_double(bits, f));
  return buf;
}

}  // namespace tcsim::num
