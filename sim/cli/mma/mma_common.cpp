#include "cli/mma/mma_common.h"

#include <cstdio>
#include <stdexcept>

#include "common/error.h"
#include "common/text/strings.h"
#include "numerics/formats/formats.h"

namespace tcsim::cli::mma {
namespace {

std::string ordinal_value(std::size_t index) { return index ? "value " + std::to_string(index) + " " : "value "; }

// "M*2^E" / "2^E" -> an exact hex float "0x<m>p<e>" that num::parse_value reads; empty when the
// text is not of that form. M itself must be exact in fp64.
std::string pow2_to_hexfloat(std::string_view text) {
  std::size_t p = text.find("2^");
  if (p == std::string_view::npos) return "";
  std::string_view mant = text.substr(0, p);
  std::string_view exp = text.substr(p + 2);
  bool negative = false;
  if (!mant.empty() && mant.back() == '*') {
    mant.remove_suffix(1);
  } else if (!mant.empty() && mant != "-" && mant != "+") {
    throw ParseError("expected a power of two written M*2^E or 2^E");
  }
  if (mant == "-" || mant == "+") {
    negative = mant == "-";
    mant = "1";
  }
  if (mant.empty()) mant = "1";
  if (exp.empty()) throw ParseError("missing exponent after 2^");
  std::size_t used = 0;
  long e = 0;
  try {
    e = std::stol(std::string(exp), &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != exp.size()) throw ParseError("the exponent after 2^ must be an integer, got '" + std::string(exp) + "'");
  if (e < -2000 || e > 2000) throw ParseError("exponent out of range");
  num::Bits m = num::parse_value(mant, FormatId::fp64);  // exact or ParseError
  num::FpClass cls = num::classify(m, FormatId::fp64);
  if (cls == num::FpClass::nan || cls == num::FpClass::infinite) throw ParseError("M in M*2^E must be finite");
  num::ExactValue ev = num::exact_value(m, FormatId::fp64);
  if (ev.negative) negative = !negative;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%s0x%llxp%ld", negative ? "-" : "", static_cast<unsigned long long>(ev.mantissa),
                static_cast<long>(ev.exponent) + e);
  return buf;
}

}  // namespace

num::Bits parse_value(std::string_view text, FormatId f, const std::string& where, std::size_t index,
                      bool allow_inexact) {
  std::string_view t = trim(text);
  if (t.empty()) throw InputError(where, ordinal_value(index) + "is empty; expected a number or a hex bit pattern");
  // A bit pattern spells every hex digit of its format (0x3c00 for fp16, 0x38 for e4m3): a short
  // one (0x1) is more likely a mistyped value than the smallest subnormal.
  if (t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X') && t.find_first_of(".pP") == std::string_view::npos) {
    const std::size_t digits = (static_cast<std::size_t>(format_bits(f)) + 3) / 4;
    if (t.size() - 2 != digits)
      throw InputError(where, ordinal_value(index) + "'" + std::string(t) + "': a " + std::string(format_name(f)) +
                                  " bit pattern has " + std::to_string(digits) + " hex digits (write them all, e.g. 0x" +
                                  std::string(digits, '0') + "), got " + std::to_string(t.size() - 2));
  }
  num::ParseOptions opt;
  opt.allow_inexact = allow_inexact;
  try {
    std::string hexfloat = pow2_to_hexfloat(t);
    return num::parse_value(hexfloat.empty() ? t : std::string_view(hexfloat), f, opt);
  } catch (const std::invalid_argument& e) {  // ParseError and friends
    throw InputError(where, ordinal_value(index) + "'" + std::string(t) + "' as " + std::string(format_name(f)) +
                                ": " + e.what());
  }
}

std::vector<num::Bits> parse_value_list(const std::string& text, FormatId f, const std::string& where) {
  std::vector<num::Bits> out;
  auto parts = split(text, ',');
  for (std::size_t i = 0; i < parts.size(); ++i) {
    std::string_view item = trim(parts[i]);
    // "VALUExN" repeats VALUE N times (the spec writes "2^-9 x15"); an x that is the 0x of a hex
    // number is not a repeat.
    std::size_t repeat = 1;
    std::size_t x = item.rfind('x');
    if (x != std::string_view::npos && x + 1 < item.size() && x > 0 && item.substr(0, x) != "0" &&
        item.substr(0, x) != "-0" && item.substr(0, x) != "+0" &&
        item.find_first_not_of("0123456789", x + 1) == std::string_view::npos) {
      const std::string_view count = item.substr(x + 1);
      repeat = count.size() > 4 ? 0 : std::stoul(std::string(count));  // more digits: > 4096 (and stoul's range)
      if (repeat == 0 || repeat > 4096)
        throw InputError(where, "value " + std::to_string(i + 1) + " '" + std::string(item) +
                                    "': the repeat count after x must be 1..4096");
      item = item.substr(0, x);
    }
    num::Bits v = parse_value(item, f, where, i + 1);
    out.insert(out.end(), repeat, v);
  }
  return out;
}

FormatId parse_input_format(const std::string& text, const std::string& where) {
  auto f = parse_format(text);
  if (!f || *f == FormatId::fp32 || *f == FormatId::int32)
    throw InputError(where, "unknown input format '" + text + "'; expected fp16, bf16, tf32, e4m3, e5m2, s8, u8, s4, u4, b1 or fp64");
  return *f;
}

num::Fp8F16Rule parse_fp8_f16_option(const std::string& text, const std::string& where) {
  if (auto r = num::parse_fp8_f16_rule(text)) return *r;
  throw InputError(where, "expected model (B200TC.m: FP32 block result rounded to fp16) or ptx (direct RNE to the "
                          ".f16 accumulator), got '" + text + "'");
}

FormatId parse_acc_format(const std::string& text, const std::string& where) {
  auto f = parse_format(text);
  if (!f || (*f != FormatId::fp32 && *f != FormatId::fp16 && *f != FormatId::int32 && *f != FormatId::fp64))
    throw InputError(where, "unknown accumulator format '" + text + "'; expected fp32, fp16, s32 or fp64");
  return *f;
}

std::vector<num::Arch> parse_arch_list(const std::string& text, const std::string& where) {
  if (to_lower(trim(text)) == "all") return num::all_archs();
  std::vector<num::Arch> out;
  for (const auto& part : split(text, ',')) out.push_back(num::parse_arch_or_throw(trim(part), where));
  return out;
}

const num::Instruction& default_dot_instruction(num::Arch arch, FormatId a, FormatId b, FormatId acc,
                                                const std::string& where) {
  for (const auto& ins : num::instructions(arch))
    if (ins.family == num::InstrFamily::wmma && ins.a_fmt == a && ins.b_fmt == b && ins.acc_fmt == acc) return ins;
  const num::Instruction& d = num::default_instruction(arch, a, acc, where);
  if (d.b_fmt == b) return d;
  return num::find_instruction(arch, d.name, a, b, acc, where);  // mixed fp8 operands
}

const num::Instruction& choose_instruction(num::Arch arch, const std::string& name, FormatId a, FormatId b,
                                           FormatId acc, const std::string& where) {
  if (name.empty()) return default_dot_instruction(arch, a, b, acc, where);
  return num::find_instruction(arch, name, a, b, acc, where);
}

std::string bits_text(num::Bits bits, FormatId f) { return num::format_bits(bits, f); }
std::string value_text(num::Bits bits, FormatId f) { return num::format_value(bits, f); }

std::string pow2_text(num::Bits bits, FormatId f) {
  if (format_is_integer(f)) return "";
  num::FpClass c = num::classify(bits, f);
  if (c != num::FpClass::normal && c != num::FpClass::subnormal) return "";
  num::ExactValue ev = num::exact_value(bits, f);
  if (ev.mantissa >= (1u << 16)) return "";  // not short: the decimal says it better
  if (ev.exponent >= 0 && ev.exponent + 16 < 24) return "";  // a small integer: the decimal is exact
  std::string s = ev.negative ? "-" : "";
  if (ev.exponent == 0) return s + std::to_string(ev.mantissa);
  if (ev.mantissa != 1) s += std::to_string(ev.mantissa) + "*";
  return s + "2^" + std::to_string(ev.exponent);
}

std::string bits_and_value(num::Bits bits, FormatId f) {
  std::string v = value_text(bits, f), p = pow2_text(bits, f);
  return bits_text(bits, f) + " (" + v + (p.empty() || p == v ? "" : " = " + p) + ")";
}

std::string pad(std::string s, std::size_t width) {
  if (s.size() < width) s.append(width - s.size(), ' ');
  return s;
}

std::string rpad(std::string s, std::size_t width) {
  if (s.size() < width) s.insert(0, width - s.size(), ' ');
  return s;
}

}  // namespace tcsim::cli::mma
