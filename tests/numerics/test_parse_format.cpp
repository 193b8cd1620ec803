// parse_value / format_value / format_hexfloat: exact parsing of user values, clear errors.
#include <doctest/doctest.h>

#include <bit>
#include <string>

#include "common/error.h"
#include "numerics/formats/convert.h"

using namespace tcsim;
using namespace tcsim::num;

namespace {
std::string parse_error(const std::string& text, FormatId f) {
  try {
    parse_value(text, f);
  } catch (const ParseError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST_CASE("parse_value: decimals, hex floats, bit patterns, inf and nan") {
  CHECK(parse_value("1.5", FormatId::fp16) == 0x3e00);
  CHECK(parse_value("-0x1p-24", FormatId::fp16) == 0x8001);
  CHECK(parse_value("0x3c00", FormatId::fp16) == 0x3c00);
  CHECK(parse_value("0X3C00", FormatId::fp16) == 0x3c00);
  CHECK(parse_value("65504", FormatId::fp16) == 0x7bff);
  CHECK(parse_value("5.9604644775390625e-8", FormatId::fp16) == 0x0001);
  CHECK(parse_value("  -0 ", FormatId::fp16) == 0x8000);
  CHECK(parse_value("+inf", FormatId::bf16) == 0x7f80);
  CHECK(parse_value("-Infinity", FormatId::fp32) == 0xff800000u);
  CHECK(parse_value("nan", FormatId::fp32) == 0x7fffffffu);
  CHECK(parse_value("448", FormatId::e4m3) == 0x7e);
  CHECK(parse_value("0x1.cp8", FormatId::e4m3) == 0x7e);
  CHECK(parse_value("1e-45", FormatId::fp32, {Rounding::rne, false, true}) == 1);
  CHECK(parse_value("1.40129846432481707092372958328991613128026194187651577175706828388979108268586060148663818836212158203125e-45", FormatId::fp32) == 1);
  CHECK(parse_value("0x7F800001", FormatId::tf32) == 0x7F800001u);  // raw fp32 pattern for tf32
  CHECK(parse_value("1.00048828125", FormatId::fp32) == 0x3f801000u);  // 1 + 2^-11
  CHECK(parse_value("-1", FormatId::int8) == 0xff);
  CHECK(parse_value("0xff", FormatId::int8) == 0xff);
  CHECK(parse_value("-8", FormatId::int4) == 0x8);
  CHECK(parse_value("15", FormatId::uint4) == 0xf);
  CHECK(parse_value("1e308", FormatId::fp64, {Rounding::rne, false, true}) ==
        std::bit_cast<std::uint64_t>(1e308));
  CHECK(parse_value("0.1", FormatId::fp64, {Rounding::rne, false, true}) ==
        std::bit_cast<std::uint64_t>(0.1));
  // rounding on request
  CHECK(parse_value("1.1", FormatId::fp16, {Rounding::rne, false, true}) == 0x3c66);
  CHECK(parse_value("1.1", FormatId::fp16, {Rounding::ru, false, true}) == 0x3c67);
  CHECK(parse_value("1e6", FormatId::fp16, {Rounding::rne, true, true}) == 0x7bff);
  CHECK(parse_value("inf", FormatId::e4m3, {Rounding::rne, true, false}) == 0x7e);
}

TEST_CASE("parse_value: errors say what is wrong") {
  CHECK(parse_error("1.1", FormatId::fp16).find("not exactly representable") != std::string::npos);
  CHECK(parse_error("1.1", FormatId::fp16).find("0x3c66") != std::string::npos);
  CHECK(parse_error("65520", FormatId::fp16).find("not exactly representable") != std::string::npos);
  CHECK(parse_error("inf", FormatId::e4m3).find("no infinity") != std::string::npos);
  CHECK(parse_error("0x1ffff", FormatId::fp16).find("does not fit") != std::string::npos);
  CHECK(parse_error("0x3g00", FormatId::fp16).find("hex") != std::string::npos);
  CHECK(parse_error("-0x3c00", FormatId::fp16).find("no sign") != std::string::npos);
  CHECK(parse_error("abc", FormatId::fp16).find("not a number") != std::string::npos);
  CHECK(parse_error("1.5.2", FormatId::fp16) != "");
  CHECK(parse_error("1e", FormatId::fp16) != "");
  CHECK(parse_error("", FormatId::fp16) != "");
  CHECK(parse_error("0x1.8", FormatId::fp16).find("exponent") != std::string::npos);
  CHECK(parse_error("128", FormatId::int8).find("out of range") != std::string::npos);
  CHECK(parse_error("1.5", FormatId::int8).find("integer") != std::string::npos);
  CHECK(parse_error("1e400", FormatId::fp64).find("not exactly representable") != std::string::npos);
  CHECK(parse_error("1e-400", FormatId::fp64).find("not exactly representable") != std::string::npos);
}

TEST_CASE("format_value and format_hexfloat read back as the same bits, every 16/8-bit encoding") {
  ParseOptions nearest;
  nearest.allow_inexact = true;
#ifdef TCSIM_SANITIZED
  const std::uint32_t step = 61;
#else
  const std::uint32_t step = 1;
#endif
  for (FormatId f : {FormatId::fp16, FormatId::bf16, FormatId::e4m3, FormatId::e5m2}) {
    CAPTURE(format_name(f));
    int bad = 0;
    const std::uint32_t n = 1u << format_bits(f);
    for (std::uint32_t b = 0; b < n; b += (format_bits(f) == 8 ? 1 : step)) {
      const FpClass c = classify(b, f);
      if (c == FpClass::nan) {
        CHECK(is_nan(parse_value(format_value(b, f), f), f));
        continue;
      }
      if (parse_value(format_value(b, f), f, nearest) != b && ++bad < 5) FAIL_CHECK(format_value(b, f));
      if (parse_value(format_hexfloat(b, f), f) != b && ++bad < 5) FAIL_CHECK(format_hexfloat(b, f));
    }
    CHECK(bad == 0);
  }
  CHECK(format_value(0x3c01, FormatId::fp16) == "1.001");
  CHECK(format_value(0x7c00, FormatId::fp16) == "inf");
  CHECK(format_value(0xfc00, FormatId::fp16) == "-inf");
  CHECK(format_value(0xff, FormatId::int8) == "-1");
  CHECK(format_bits(0x3c00, FormatId::fp16) == "0x3c00");
  CHECK(format_bits(0x7f, FormatId::e4m3) == "0x7f");
  CHECK(format_bits(0x3f800000, FormatId::fp32) == "0x3f800000");
  CHECK(format_hexfloat(0x8001, FormatId::fp16) == "-0x1p-24");
}
