#pragma once
// Host-side bit-level handling of the MMA operand formats: exact encoding of a value into a
// format (refusing values that are not representable), decoding, and the exact widening to FP32
// bit patterns that the tc-golden files hold.
#include <cstdint>
#include <optional>
#include <string>

namespace tcv {

enum class Fmt { f16, bf16, tf32, e4m3, e5m2, f32, f64, s8, u8, s4, u4, s32 };

const char* fmt_name(Fmt f);          // tc-golden names: fp16 bf16 tf32 e4m3 e5m2 fp32 fp64 s8 u8 s4 u4 s32
int fmt_bits(Fmt f);                  // storage bits: tf32 is stored as 32 bits
bool fmt_is_int(Fmt f);
bool fmt_is_signed_int(Fmt f);

struct FloatSpec {
  int ebits, mbits, bias;
  bool has_inf;          // e4m3: false
  int pad;               // tf32: 13 low zero bits below the mantissa in storage
};
const FloatSpec& float_spec(Fmt f);   // float formats only

// Exact encoding; nullopt when v is not representable (or is NaN: use nan_bits()).
std::optional<std::uint64_t> encode(Fmt f, double v);
std::optional<std::uint64_t> encode_int(Fmt f, std::int64_t v);
double decode(Fmt f, std::uint64_t bits);            // NaN for NaN encodings; ints exact
std::int64_t decode_int(Fmt f, std::uint64_t bits);

std::uint64_t inf_bits(Fmt f, bool neg);             // e4m3: the NaN encoding (no infinity)
std::uint64_t qnan_bits(Fmt f);                      // quiet NaN, positive, payload 0 (canonical-ish)
std::uint64_t snan_bits(Fmt f);                      // signalling NaN (quiet bit clear), e4m3: the NaN
std::uint64_t max_finite_bits(Fmt f, bool neg);
std::uint64_t min_subnormal_bits(Fmt f, bool neg);
std::uint64_t max_subnormal_bits(Fmt f, bool neg);
std::uint64_t min_normal_bits(Fmt f, bool neg);
bool is_nan_bits(Fmt f, std::uint64_t bits);

// The FP32 bit pattern written to the a/b files: exact for every finite value and infinity;
// NaN keeps its sign and payload (payload shifted to the top of the FP32 fraction, no quieting).
// Integers: the FP32 pattern of the integer value (exact for 8-bit and 4-bit formats).
// tf32/f32: the stored 32 bits unchanged (raw, including tf32's ignored low 13 bits).
std::uint32_t widen_to_f32_bits(Fmt f, std::uint64_t bits);
// Inverse for reading tc-golden input files: nullopt when the FP32 pattern is not exactly a value
// of f (for f16/bf16/fp8 NaN: the top payload bits are kept).
std::optional<std::uint64_t> narrow_from_f32_bits(Fmt f, std::uint32_t bits);

std::uint32_t f32_bits(float x);
float f32_from_bits(std::uint32_t b);
std::uint64_t f64_bits(double x);

}  // namespace tcv
