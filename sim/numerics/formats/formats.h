#pragma once
// Bit layouts of the floating-point and integer formats of FormatId, and helpers to classify and
// build bit patterns. Every bit pattern travels as std::uint64_t holding the format's storage bits
// in its low bits (fp16 0x3c00, fp32 0x3f800000, s8 -1 = 0xff, tf32 = an fp32 pattern whose low 13
// bits are zero).
#include <cstdint>
#include <string>

#include "numerics/formats/format_id.h"

namespace tcsim::num {

using Bits = std::uint64_t;

// A binary floating-point layout: value = (-1)^s * 1.f * 2^(E - bias) for normal encodings,
// (-1)^s * 0.f * 2^(1 - bias) for subnormals. `pad_bits` low zero bits follow the mantissa field
// in storage (13 for tf32, which is stored as an fp32 pattern).
struct FloatLayout {
  int exp_bits = 0;
  int man_bits = 0;       // stored fraction bits (precision p = man_bits + 1)
  int bias = 0;
  int pad_bits = 0;       // tf32: 13
  bool has_inf = true;    // e4m3: false
  bool ieee_nan = true;   // NaN = all-ones exponent, fraction != 0. e4m3: only S.1111.111
  int storage_bits() const { return 1 + exp_bits + man_bits + pad_bits; }
  int precision() const { return man_bits + 1; }
  int emin() const { return 1 - bias; }                 // exponent of the smallest normal
  int emax() const;                                     // exponent of the largest finite
  Bits sign_mask() const { return Bits{1} << (storage_bits() - 1); }
  Bits storage_mask() const;                            // all storage bits set
};

bool is_float(FormatId f);        // fp64 fp32 tf32 bf16 fp16 e4m3 e5m2
// The layout of a float format; throws std::invalid_argument for an integer format.
const FloatLayout& layout(FormatId f);
// fp32 storage with 14 significant bits (the H100 FP8 "e8m13" accumulator output).
const FloatLayout& layout_e8m13();

enum class FpClass { zero, subnormal, normal, infinite, nan };
FpClass classify(Bits bits, const FloatLayout& l);
FpClass classify(Bits bits, FormatId f);
inline bool is_nan(Bits b, FormatId f) { return classify(b, f) == FpClass::nan; }
inline bool is_inf(Bits b, FormatId f) { return classify(b, f) == FpClass::infinite; }
bool sign_bit(Bits bits, FormatId f);

// Canonical NaN (NVIDIA's): fp32 0x7FFFFFFF, fp16 0x7FFF, bf16 0x7FFF, tf32 0x7FFFE000,
// e4m3 0x7F, e5m2 0x7F, fp64 0x7FFFFFFFFFFFFFFF.
Bits canonical_nan(FormatId f);
Bits canonical_nan(const FloatLayout& l);
Bits inf_bits(FormatId f, bool negative);               // throws for e4m3 (no infinity)
Bits max_finite_bits(FormatId f, bool negative);         // e4m3 448, e5m2 57344, fp16 65504, ...
Bits zero_bits(FormatId f, bool negative);

// Integer formats (s32 s8 u8 s4 u4): range and two's complement in storage bits.
bool is_signed_int(FormatId f);
std::int64_t int_min(FormatId f);
std::int64_t int_max(FormatId f);
std::int64_t int_value(Bits bits, FormatId f);           // sign-extends signed formats
Bits int_bits(std::int64_t v, FormatId f);               // wraps to the storage width

// Checks that bits fit the storage width of f. tf32 accepts any fp32 pattern (an MMA operand is
// fed through MmaOptions::tf32_feed; a proper tf32 value has its low 13 bits zero).
bool fits_storage(Bits bits, FormatId f);

}  // namespace tcsim::num
