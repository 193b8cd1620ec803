#pragma once
// Conversions between formats, decoding to exact values and parsing/printing user values.
// All roundings are done on integer bit patterns; host floating point never decides one.
#include <cstdint>
#include <string>
#include <string_view>

#include "numerics/formats/formats.h"

namespace tcsim::num {

// rne: to nearest, ties to even; rz: toward zero; rna: to nearest, ties away from zero
// (cvt.rna); ru: toward +inf; rd: toward -inf.
enum class Rounding { rne, rz, rna, ru, rd };
std::string_view rounding_name(Rounding r);                 // "rne" "rz" "rna" "ru" "rd"
bool parse_rounding(std::string_view name, Rounding& out);  // also "rn" = rne

struct ConvertOptions {
  Rounding rounding = Rounding::rne;
  // CUDA .satfinite: a result that would overflow to inf (or, in e4m3, to NaN) becomes +-max
  // finite; an infinite input becomes +-max finite too; NaN stays NaN.
  bool satfinite = false;
  // NaN result: false = keep the sign and the payload (widening shifts it up unchanged;
  // narrowing keeps its top bits, and sets the top fraction bit only if nothing would be left),
  // so widening then narrowing gives every NaN back unchanged; true = the format's canonical NaN
  // (what the GPU's cvt produces). e4m3 has a single NaN per sign either way.
  bool canonical_nan = false;
};

// Converts a bit pattern of format `from` into format `to` (float <-> float, int <-> float,
// int <-> int). Exact when the value is representable. Without satfinite, float overflow follows
// the rounding mode (rne/rna -> inf, rz -> max finite, ru/rd by sign); e4m3 has no inf, so its
// overflow gives NaN. Float -> int: rounds with the mode, out of range or NaN saturates
// (NaN -> 0), like cvt.rni.sat. tf32 as a target rounds fp32 to 10 fraction bits (rz = clear the
// low 13 bits for finite values; NaN stays NaN — for the tensor-core raw feed use
// tf32_truncate()).
Bits convert(Bits bits, FormatId from, FormatId to, const ConvertOptions& opt = {});
// Same, reporting whether the result is exact.
Bits convert(Bits bits, FormatId from, FormatId to, const ConvertOptions& opt, bool& inexact);

// Tensor-core raw tf32 feed: clear the low 13 bits of an fp32 pattern, even for NaN/inf
// (a NaN whose payload sits only in the low 13 bits becomes inf, as on the hardware).
inline std::uint32_t tf32_truncate(std::uint32_t fp32_bits) { return fp32_bits & 0xFFFFE000u; }

// Shorthands with fp32 / fp64 bit patterns.
Bits from_fp32(std::uint32_t fp32_bits, FormatId to, const ConvertOptions& opt = {});
std::uint32_t to_fp32(Bits bits, FormatId from, const ConvertOptions& opt = {});
Bits from_fp64(std::uint64_t fp64_bits, FormatId to, const ConvertOptions& opt = {});
std::uint64_t to_fp64(Bits bits, FormatId from, const ConvertOptions& opt = {});

// Exact value as a double (every format here except fp64 itself is a subset of fp64, so this
// never rounds). NaN gives a quiet NaN, inf gives +-inf; integers give their value.
double to_double(Bits bits, FormatId f);
// Rounds the exact value of a double into f (the double's bits are decoded as integers).
Bits from_double(double v, FormatId f, const ConvertOptions& opt = {});

// The exact value of a finite float as (-1)^negative * mantissa * 2^exponent, with mantissa
// odd or zero. For integers too (exponent 0 .. ). Throws std::invalid_argument for inf/NaN.
struct ExactValue {
  bool negative = false;
  std::uint64_t mantissa = 0;
  int exponent = 0;
};
ExactValue exact_value(Bits bits, FormatId f);

// Parses a user value into format f:
//   decimal "1.5", "-2.5e-3", "65504"; hex float "-0x1p-24", "0x1.8p1"; "inf", "-inf", "+inf",
//   "infinity", "nan" (canonical NaN); a hex bit pattern without 'p' ("0x3c00", "0xff" for s8 =
//   -1) which must fit the storage width; for integer formats a decimal integer in range.
// Decimal and hex-float values are converted exactly (big-integer arithmetic). When the value is
// not exactly representable, ParseError says so and names the nearest values, unless
// opt.allow_inexact, in which case it is rounded with opt.rounding (and opt.satfinite).
// Throws tcsim::ParseError (common/error.h) with a message that does not include the location;
// callers wrap it into InputError with where.
struct ParseOptions {
  Rounding rounding = Rounding::rne;
  bool satfinite = false;
  bool allow_inexact = false;
};
Bits parse_value(std::string_view text, FormatId f, const ParseOptions& opt = {});

// Printing. format_bits: "0x3c00" with the storage width in hex digits (s4/u4/e4m3: 1-2 digits).
// format_value: the shortest decimal that parse_value (rounding to nearest) reads back as the same
// bits ("1.5", "1.001" for fp16 0x3c01, "-5.96e-08" for fp16 0x8001, "inf", "nan"); not always
// the exact value (use format_hexfloat for that); integers in decimal. format_hexfloat:
// "0x1.8p+0" (exact).
std::string format_bits(Bits bits, FormatId f);
std::string format_value(Bits bits, FormatId f);
std::string format_hexfloat(Bits bits, FormatId f);

}  // namespace tcsim::num
