// parse_value(): user text -> bit pattern, exactly (big-integer arithmetic, no host floats).
#include <cctype>
#include <string>

#include "common/error.h"
#include "common/text/strings.h"
#include "numerics/formats/big_uint.h"
#include "numerics/formats/convert.h"
#include "numerics/formats/round_core.h"

namespace tcsim::num {
namespace {
using detail::BigUint;

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

// Rounds num/den (num != 0) into l. Returns the bits and sets inexact.
Bits round_rational(const FloatLayout& l, bool neg, BigUint num, BigUint den, Rounding r,
                    bool satfinite, bool& inexact) {
  int e = num.bit_length() - den.bit_length();
  {
    BigUint a = num, b = den;
    if (e >= 0) b.shift_left(e);
    else a.shift_left(-e);
    if (compare(a, b) < 0) --e;  // now 2^e <= num/den < 2^(e+1)
  }
  const int p = l.precision();
  const int qexp = (e < l.emin() ? l.emin() : e) - (p - 1) - 2;
  if (qexp <= 0) num.shift_left(-qexp);
  else den.shift_left(qexp);
  bool rem = false;
  const std::uint64_t q = detail::divide_small_quotient(std::move(num), std::move(den), rem);
  return detail::round_pack(l, neg, q, qexp, rem, r, satfinite, inexact);
}

[[noreturn]] void fail(std::string_view text, FormatId f, const std::string& why) {
  throw ParseError("'" + std::string(text) + "' " + why + " (format " +
                   std::string(format_name(f)) + ")");
}

Bits parse_integer_value(std::string_view text, std::string_view body, bool neg, FormatId f) {
  if (body.empty()) fail(text, f, "is not a number");
  std::uint64_t v = 0;
  for (char c : body) {
    if (!std::isdigit(static_cast<unsigned char>(c)))
      fail(text, f, "is not an integer: expected decimal digits or a 0x bit pattern");
    if (v > (std::uint64_t{1} << 40)) fail(text, f, "is out of range");
    v = v * 10 + static_cast<std::uint64_t>(c - '0');
  }
  const std::int64_t sv = neg ? -static_cast<std::int64_t>(v) : static_cast<std::int64_t>(v);
  if (sv < int_min(f) || sv > int_max(f))
    fail(text, f, "is out of range: expected " + std::to_string(int_min(f)) + " to " +
                      std::to_string(int_max(f)));
  return int_bits(sv, f);
}
}  // namespace

Bits parse_value(std::string_view text_in, FormatId f, const ParseOptions& opt) {
  const std::string text = to_lower(trim(text_in));
  if (text.empty()) throw ParseError("empty value (format " + std::string(format_name(f)) + ")");
  std::string_view s = text;
  bool neg = false, signed_ = false;
  if (s[0] == '+' || s[0] == '-') {
    neg = s[0] == '-';
    signed_ = true;
    s.remove_prefix(1);
  }
  const bool is_hex = s.size() > 2 && s[0] == '0' && s[1] == 'x';
  // A hex bit pattern: 0x followed by hex digits only.
  if (is_hex && s.find_first_of(".p") == std::string_view::npos) {
    if (signed_) fail(text_in, f, "is a bit pattern and takes no sign");
    std::string_view h = s.substr(2);
    while (h.size() > 1 && h[0] == '0') h.remove_prefix(1);
    if (h.size() > 16) fail(text_in, f, "has more bits than the format");
    Bits v = 0;
    for (char c : h) {
      const int d = hex_digit(c);
      if (d < 0) fail(text_in, f, "is not a valid hex bit pattern");
      v = (v << 4) | static_cast<Bits>(d);
    }
    if (!fits_storage(v, f))
      fail(text_in, f, "does not fit in " + std::to_string(format_bits(f)) + " bits");
    return v;
  }
  if (format_is_integer(f)) return parse_integer_value(text_in, s, neg, f);

  const FloatLayout& l = layout(f);
  if (s == "inf" || s == "infinity") {
    if (opt.satfinite) return detail::max_finite(l, neg);
    if (!l.has_inf) fail(text_in, f, "is not representable: e4m3 has no infinity");
    return detail::inf_or_nan(l, neg);
  }
  if (s == "nan") return canonical_nan(l) | (neg ? l.sign_mask() : 0);

  // Mantissa digits and the exponent: value = N * base^frac_scale * radix^exp.
  BigUint num(0);
  long exp_adjust = 0;  // hex: binary exponent; decimal: power of ten
  bool any_digit = false;
  std::size_t i = is_hex ? 2 : 0;
  const int base = is_hex ? 16 : 10;
  bool seen_point = false;
  bool nonzero = false;
  for (; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '.') {
      if (seen_point) fail(text_in, f, "is not a number");
      seen_point = true;
      continue;
    }
    const int d = is_hex ? hex_digit(c) : (std::isdigit(static_cast<unsigned char>(c)) ? c - '0' : -1);
    if (d < 0) break;
    any_digit = true;
    if (d != 0) nonzero = true;
    if (nonzero) {
      if (num.bit_length() > 4000) fail(text_in, f, "has too many digits");
      num.mul_small(static_cast<std::uint32_t>(base));
      num.add_small(static_cast<std::uint32_t>(d));
    }
    if (seen_point) exp_adjust -= is_hex ? 4 : 1;
  }
  if (!any_digit) fail(text_in, f, "is not a number: expected e.g. 1.5, -2.5e-3, 0x1p-24, 0x3c00, inf or nan");
  long exp_val = 0;
  if (i < s.size()) {
    const char marker = s[i];
    if ((is_hex && marker != 'p') || (!is_hex && marker != 'e'))
      fail(text_in, f, "is not a number");
    ++i;
    bool eneg = false;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) eneg = s[i++] == '-';
    if (i >= s.size()) fail(text_in, f, "has an empty exponent");
    for (; i < s.size(); ++i) {
      if (!std::isdigit(static_cast<unsigned char>(s[i]))) fail(text_in, f, "is not a number");
      if (exp_val < 100000) exp_val = exp_val * 10 + (s[i] - '0');
    }
    if (eneg) exp_val = -exp_val;
  } else if (is_hex) {
    fail(text_in, f, "is a hex float without an exponent: write 0x1.8p0");
  }
  if (!nonzero) return neg ? l.sign_mask() : 0;
  long e = exp_val + exp_adjust;
  BigUint den(1);
  bool inexact = false;
  Bits out;
  // Clamp absurd exponents: anything beyond these overflows or underflows every format.
  const long limit = is_hex ? 20000 : 6000;
  if (e > limit) e = limit;
  if (e < -limit) e = -limit;
  if (is_hex) {
    if (e >= 0) num.shift_left(static_cast<int>(e));
    else den.shift_left(static_cast<int>(-e));
  } else {
    for (long k = 0; k < (e < 0 ? -e : e); ++k) (e >= 0 ? num : den).mul_small(10);
  }
  out = round_rational(l, neg, num, den, opt.rounding, opt.satfinite, inexact);
  if (inexact && !opt.allow_inexact) {
    bool dummy;
    const Bits lo = round_rational(l, neg, num, den, neg ? Rounding::ru : Rounding::rd, false, dummy);
    const Bits hi = round_rational(l, neg, num, den, neg ? Rounding::rd : Rounding::ru, false, dummy);
    fail(text_in, f, "is not exactly representable; the nearest values are " +
                         format_value(lo, f) + " (" + format_bits(lo, f) + ") and " +
                         format_value(hi, f) + " (" + format_bits(hi, f) + ")");
  }
  return out;
}

}  // namespace tcsim::num
