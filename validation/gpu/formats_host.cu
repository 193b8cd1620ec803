#include "formats_host.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>

namespace tcv {
namespace {
// f16 bf16 tf32 e4m3 e5m2 f32 f64 (tf32 stores its 10-bit fraction above 13 zero pad bits)
const FloatSpec kF16{5, 10, 15, true, 0}, kBF16{8, 7, 127, true, 0}, kTF32{8, 10, 127, true, 13},
    kE4M3{4, 3, 7, false, 0}, kE5M2{5, 2, 15, true, 0}, kF32{8, 23, 127, true, 0},
    kF64{11, 52, 1023, true, 0};

int total_bits(const FloatSpec& s) { return 1 + s.ebits + s.mbits + s.pad; }
std::uint64_t exp_mask(const FloatSpec& s) {
  return ((std::uint64_t{1} << s.ebits) - 1) << (s.mbits + s.pad);
}
std::uint64_t sign_bit(const FloatSpec& s, bool neg) {
  return neg ? std::uint64_t{1} << (total_bits(s) - 1) : 0;
}
// tf32 is decoded as the FP32 pattern it is stored in (the hardware ignores the low bits; the
// file keeps them).
const FloatSpec& decode_spec(Fmt f) { return f == Fmt::tf32 ? kF32 : float_spec(f); }
}  // namespace

const char* fmt_name(Fmt f) {
  switch (f) {
    case Fmt::f16: return "fp16";
    case Fmt::bf16: return "bf16";
    case Fmt::tf32: return "tf32";
    case Fmt::e4m3: return "e4m3";
    case Fmt::e5m2: return "e5m2";
    case Fmt::f32: return "fp32";
    case Fmt::f64: return "fp64";
    case Fmt::s8: return "s8";
    case Fmt::u8: return "u8";
    case Fmt::s4: return "s4";
    case Fmt::u4: return "u4";
    case Fmt::s32: return "s32";
  }
  return "?";
}

int fmt_bits(Fmt f) {
  switch (f) {
    case Fmt::f16: case Fmt::bf16: return 16;
    case Fmt::tf32: case Fmt::f32: case Fmt::s32: return 32;
    case Fmt::e4m3: case Fmt::e5m2: case Fmt::s8: case Fmt::u8: return 8;
    case Fmt::s4: case Fmt::u4: return 4;
    case Fmt::f64: return 64;
  }
  return 0;
}

bool fmt_is_int(Fmt f) {
  return f == Fmt::s8 || f == Fmt::u8 || f == Fmt::s4 || f == Fmt::u4 || f == Fmt::s32;
}
bool fmt_is_signed_int(Fmt f) { return f == Fmt::s8 || f == Fmt::s4 || f == Fmt::s32; }

const FloatSpec& float_spec(Fmt f) {
  switch (f) {
    case Fmt::f16: return kF16;
    case Fmt::bf16: return kBF16;
    case Fmt::tf32: return kTF32;
    case Fmt::e4m3: return kE4M3;
    case Fmt::e5m2: return kE5M2;
    case Fmt::f32: return kF32;
    case Fmt::f64: return kF64;
    default: throw std::logic_error("float_spec of an integer format");
  }
}

std::optional<std::uint64_t> encode_int(Fmt f, std::int64_t v) {
  std::int64_t lo = 0, hi = 0;
  switch (f) {
    case Fmt::s8: lo = -128; hi = 127; break;
    case Fmt::u8: lo = 0; hi = 255; break;
    case Fmt::s4: lo = -8; hi = 7; break;
    case Fmt::u4: lo = 0; hi = 15; break;
    case Fmt::s32: lo = INT32_MIN; hi = INT32_MAX; break;
    default: return std::nullopt;
  }
  if (v < lo || v > hi) return std::nullopt;
  std::uint64_t mask = (std::uint64_t{1} << fmt_bits(f)) - 1;
  return static_cast<std::uint64_t>(v) & mask;
}

std::int64_t decode_int(Fmt f, std::uint64_t bits) {
  int n = fmt_bits(f);
  std::uint64_t mask = (std::uint64_t{1} << n) - 1;
  bits &= mask;
  if (fmt_is_signed_int(f) && (bits >> (n - 1)) & 1) return static_cast<std::int64_t>(bits) - (std::int64_t{1} << n);
  return static_cast<std::int64_t>(bits);
}

std::optional<std::uint64_t> encode(Fmt f, double v) {
  if (fmt_is_int(f)) {
    if (!(v == std::floor(v)) || std::fabs(v) > 4e9) return std::nullopt;
    return encode_int(f, static_cast<std::int64_t>(v));
  }
  const FloatSpec& s = float_spec(f);
  if (std::isnan(v)) return std::nullopt;
  const bool neg = std::signbit(v);
  if (v == 0) return sign_bit(s, neg);
  if (std::isinf(v)) {
    if (!s.has_inf) return std::nullopt;
    return sign_bit(s, neg) | exp_mask(s);
  }
  const double a = std::fabs(v);
  int ex = 0;
  std::frexp(a, &ex);
  const int e = ex - 1;  // a = 1.f * 2^e
  const int emin = 1 - s.bias;
  std::uint64_t biased = 0, mant = 0;
  if (e < emin) {
    double q = std::ldexp(a, s.mbits - emin);
    if (q != std::floor(q) || q >= std::ldexp(1.0, s.mbits)) return std::nullopt;
    mant = static_cast<std::uint64_t>(q);
  } else {
    double q = std::ldexp(a, s.mbits - e);
    if (q != std::floor(q)) return std::nullopt;
    mant = static_cast<std::uint64_t>(q) - (std::uint64_t{1} << s.mbits);
    biased = static_cast<std::uint64_t>(e + s.bias);
    const std::uint64_t all_ones = (std::uint64_t{1} << s.ebits) - 1;
    if (s.has_inf) {
      if (biased >= all_ones) return std::nullopt;
    } else if (biased > all_ones || (biased == all_ones && mant == (std::uint64_t{1} << s.mbits) - 1)) {
      return std::nullopt;  // e4m3: S.1111.111 is NaN
    }
  }
  return sign_bit(s, neg) | (biased << (s.mbits + s.pad)) | (mant << s.pad);
}

bool is_nan_bits(Fmt f, std::uint64_t bits) {
  if (fmt_is_int(f)) return false;
  if (f == Fmt::e4m3) return (bits & 0x7F) == 0x7F;
  const FloatSpec& s = decode_spec(f);
  const std::uint64_t em = exp_mask(s);
  const std::uint64_t fm = (std::uint64_t{1} << (s.mbits + s.pad)) - 1;
  return (bits & em) == em && (bits & fm) != 0;
}

double decode(Fmt f, std::uint64_t bits) {
  if (fmt_is_int(f)) return static_cast<double>(decode_int(f, bits));
  if (is_nan_bits(f, bits)) return std::numeric_limits<double>::quiet_NaN();
  const FloatSpec& s = decode_spec(f);
  const bool neg = (bits >> (total_bits(s) - 1)) & 1;
  const std::uint64_t all_ones = (std::uint64_t{1} << s.ebits) - 1;
  const std::uint64_t biased = (bits >> (s.mbits + s.pad)) & all_ones;
  const std::uint64_t mant = (bits >> s.pad) & ((std::uint64_t{1} << s.mbits) - 1);
  double v;
  if (s.has_inf && biased == all_ones) v = std::numeric_limits<double>::infinity();
  else if (biased == 0) v = std::ldexp(static_cast<double>(mant), 1 - s.bias - s.mbits);
  else v = std::ldexp(static_cast<double>(mant + (std::uint64_t{1} << s.mbits)),
                      static_cast<int>(biased) - s.bias - s.mbits);
  return neg ? -v : v;
}

std::uint64_t inf_bits(Fmt f, bool neg) {
  const FloatSpec& s = float_spec(f);
  if (!s.has_inf) return sign_bit(s, neg) | 0x7F;
  return sign_bit(s, neg) | exp_mask(s);
}
std::uint64_t qnan_bits(Fmt f) {
  const FloatSpec& s = float_spec(f);
  if (f == Fmt::e4m3) return 0x7F;
  return exp_mask(s) | (std::uint64_t{1} << (s.mbits - 1 + s.pad));
}
std::uint64_t snan_bits(Fmt f) {
  const FloatSpec& s = float_spec(f);
  if (f == Fmt::e4m3) return 0x7F;
  return exp_mask(s) | (std::uint64_t{1} << s.pad);
}
std::uint64_t max_finite_bits(Fmt f, bool neg) {
  const FloatSpec& s = float_spec(f);
  const std::uint64_t mant_all = (std::uint64_t{1} << s.mbits) - 1;
  const std::uint64_t all_ones = (std::uint64_t{1} << s.ebits) - 1;
  if (!s.has_inf) return sign_bit(s, neg) | (all_ones << (s.mbits + s.pad)) | ((mant_all - 1) << s.pad);
  return sign_bit(s, neg) | ((all_ones - 1) << (s.mbits + s.pad)) | (mant_all << s.pad);
}
std::uint64_t min_subnormal_bits(Fmt f, bool neg) {
  const FloatSpec& s = float_spec(f);
  return sign_bit(s, neg) | (std::uint64_t{1} << s.pad);
}
std::uint64_t max_subnormal_bits(Fmt f, bool neg) {
  const FloatSpec& s = float_spec(f);
  return sign_bit(s, neg) | (((std::uint64_t{1} << s.mbits) - 1) << s.pad);
}
std::uint64_t min_normal_bits(Fmt f, bool neg) {
  const FloatSpec& s = float_spec(f);
  return sign_bit(s, neg) | (std::uint64_t{1} << (s.mbits + s.pad));
}

std::uint32_t f32_bits(float x) {
  std::uint32_t b;
  std::memcpy(&b, &x, 4);
  return b;
}
float f32_from_bits(std::uint32_t b) {
  float x;
  std::memcpy(&x, &b, 4);
  return x;
}
std::uint64_t f64_bits(double x) {
  std::uint64_t b;
  std::memcpy(&b, &x, 8);
  return b;
}

std::uint32_t widen_to_f32_bits(Fmt f, std::uint64_t bits) {
  if (f == Fmt::f32 || f == Fmt::tf32) return static_cast<std::uint32_t>(bits);
  if (fmt_is_int(f)) return f32_bits(static_cast<float>(decode_int(f, bits)));
  if (f == Fmt::f64) throw std::logic_error("fp64 has no FP32 widening");
  const FloatSpec& s = float_spec(f);
  const bool neg = (bits >> (total_bits(s) - 1)) & 1;
  const std::uint32_t sgn = neg ? 0x80000000u : 0u;
  if (is_nan_bits(f, bits)) {
    const std::uint32_t payload = static_cast<std::uint32_t>(bits & ((1u << s.mbits) - 1));
    return sgn | 0x7F800000u | (payload << (23 - s.mbits));
  }
  const double v = decode(f, bits);
  if (std::isinf(v)) return sgn | 0x7F800000u;
  return f32_bits(static_cast<float>(v));  // exact: every finite value of these formats is an FP32 value
}

std::optional<std::uint64_t> narrow_from_f32_bits(Fmt f, std::uint32_t b) {
  if (f == Fmt::f32 || f == Fmt::tf32) return b;
  if (f == Fmt::f64) return std::nullopt;
  const float x = f32_from_bits(b);
  if (fmt_is_int(f)) return encode(f, static_cast<double>(x));
  const FloatSpec& s = float_spec(f);
  const bool neg = b >> 31;
  if ((b & 0x7F800000u) == 0x7F800000u && (b & 0x7FFFFFu) != 0) {  // NaN
    const std::uint32_t frac = b & 0x7FFFFFu;
    const int drop = 23 - s.mbits;
    if (frac & ((1u << drop) - 1)) return std::nullopt;
    const std::uint64_t payload = frac >> drop;
    if (f == Fmt::e4m3) {
      if (payload != 7) return std::nullopt;
      return sign_bit(s, neg) | 0x7F;
    }
    return sign_bit(s, neg) | exp_mask(s) | (payload << s.pad);
  }
  return encode(f, static_cast<double>(x));
}

}  // namespace tcv
