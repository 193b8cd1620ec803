#include "numerics/formats/formats.h"

#include <stdexcept>
#include <string>

namespace tcsim::num {
namespace {
// exp, man, bias, pad, has_inf, ieee_nan
const FloatLayout kFp64{11, 52, 1023, 0, true, true};
const FloatLayout kFp32{8, 23, 127, 0, true, true};
const FloatLayout kTf32{8, 10, 127, 13, true, true};
const FloatLayout kBf16{8, 7, 127, 0, true, true};
const FloatLayout kFp16{5, 10, 15, 0, true, true};
const FloatLayout kE4m3{4, 3, 7, 0, false, false};
const FloatLayout kE5m2{5, 2, 15, 0, true, true};
const FloatLayout kE8m13{8, 13, 127, 10, true, true};
}  // namespace

int FloatLayout::emax() const {
  // IEEE: the all-ones exponent is reserved. e4m3: it holds finite values (all but S.1111.111).
  return ieee_nan ? (1 << exp_bits) - 2 - bias : (1 << exp_bits) - 1 - bias;
}

Bits FloatLayout::storage_mask() const {
  const int n = storage_bits();
  return n >= 64 ? ~Bits{0} : (Bits{1} << n) - 1;
}

bool is_float(FormatId f) { return !format_is_integer(f); }

const FloatLayout& layout(FormatId f) {
  switch (f) {
    case FormatId::fp64: return kFp64;
    case FormatId::fp32: return kFp32;
    case FormatId::tf32: return kTf32;
    case FormatId::bf16: return kBf16;
    case FormatId::fp16: return kFp16;
    case FormatId::e4m3: return kE4m3;
    case FormatId::e5m2: return kE5m2;
    default:
      throw std::invalid_argument("layout(): " + std::string(format_name(f)) +
                                  " is an integer format");
  }
}

const FloatLayout& layout_e8m13() { return kE8m13; }

FpClass classify(Bits bits, const FloatLayout& l) {
  const Bits frac = (bits >> l.pad_bits) & ((Bits{1} << l.man_bits) - 1);
  const Bits expf = (bits >> (l.pad_bits + l.man_bits)) & ((Bits{1} << l.exp_bits) - 1);
  const Bits exp_ones = (Bits{1} << l.exp_bits) - 1;
  if (expf == 0) return frac == 0 ? FpClass::zero : FpClass::subnormal;
  if (expf == exp_ones) {
    if (l.ieee_nan) return frac == 0 ? FpClass::infinite : FpClass::nan;
    if (frac == (Bits{1} << l.man_bits) - 1) return FpClass::nan;
  }
  return FpClass::normal;
}

FpClass classify(Bits bits, FormatId f) { return classify(bits, layout(f)); }

bool sign_bit(Bits bits, FormatId f) {
  if (is_float(f)) return (bits & layout(f).sign_mask()) != 0;
  return is_signed_int(f) && int_value(bits, f) < 0;
}

Bits canonical_nan(const FloatLayout& l) {
  // All ones except the sign: 0x7FFFFFFF, 0x7FFF, 0x7F (e4m3 S.1111.111, e5m2 S.11111.11).
  // The pad bits stay zero (tf32 0x7FFFE000).
  const Bits all = l.storage_mask() & ~l.sign_mask();
  return all & ~((Bits{1} << l.pad_bits) - 1);
}
Bits canonical_nan(FormatId f) { return canonical_nan(layout(f)); }

Bits inf_bits(FormatId f, bool negative) {
  const FloatLayout& l = layout(f);
  if (!l.has_inf) throw std::invalid_argument(std::string(format_name(f)) + " has no infinity");
  const Bits exp_ones = (Bits{1} << l.exp_bits) - 1;
  return (negative ? l.sign_mask() : 0) | (exp_ones << (l.man_bits + l.pad_bits));
}

Bits max_finite_bits(FormatId f, bool negative) {
  const FloatLayout& l = layout(f);
  const Bits e = static_cast<Bits>(l.emax() + l.bias);
  Bits frac = (Bits{1} << l.man_bits) - 1;
  if (!l.ieee_nan) frac -= 1;  // e4m3: S.1111.110 = 448
  return (negative ? l.sign_mask() : 0) | (((e << l.man_bits) | frac) << l.pad_bits);
}

Bits zero_bits(FormatId f, bool negative) { return negative ? layout(f).sign_mask() : 0; }

bool is_signed_int(FormatId f) {
  return f == FormatId::int32 || f == FormatId::int8 || f == FormatId::int4;
}

std::int64_t int_min(FormatId f) {
  if (!format_is_integer(f)) throw std::invalid_argument("int_min(): not an integer format");
  const int n = format_bits(f);
  return is_signed_int(f) ? -(std::int64_t{1} << (n - 1)) : 0;
}

std::int64_t int_max(FormatId f) {
  if (!format_is_integer(f)) throw std::invalid_argument("int_max(): not an integer format");
  const int n = format_bits(f);
  return is_signed_int(f) ? (std::int64_t{1} << (n - 1)) - 1 : (std::int64_t{1} << n) - 1;
}

std::int64_t int_value(Bits bits, FormatId f) {
  const int n = format_bits(f);
  const Bits mask = (Bits{1} << n) - 1;
  bits &= mask;
  if (is_signed_int(f) && (bits >> (n - 1)) != 0) return static_cast<std::int64_t>(bits) - (std::int64_t{1} << n);
  return static_cast<std::int64_t>(bits);
}

Bits int_bits(std::int64_t v, FormatId f) {
  const int n = format_bits(f);
  return static_cast<Bits>(v) & ((Bits{1} << n) - 1);
}

bool fits_storage(Bits bits, FormatId f) {
  const int n = format_bits(f);
  return n >= 64 || (bits >> n) == 0;
}

}  // namespace tcsim::num
