#pragma once
// One parameter's value: parsing the text written in YAML (or the default) according to the
// parameter's type, with its range check. Internal to sim/config.
#include <cstdint>
#include <string>
#include <string_view>

#include "config/schema.h"

namespace tcsim::config {

struct Value {
  std::string text;          // as written (unit form kept: "96KiB") or the default text
  std::int64_t integer = 0;  // ParamType::integer
  std::uint64_t bytes = 0;   // ParamType::bytes
  double number = 0;         // every numeric type, in base units (B, Hz, B/s, B/clk, s, cycles)
  bool boolean = false;      // ParamType::boolean
  std::string file;          // where it was written ("" for a default, "--set" for an override)
  long line = 0;             // 1-based; 0 when unknown
  bool given = false;        // false: the default

  bool operator==(const Value& o) const {  // the parsed value; not where it came from
    return integer == o.integer && bytes == o.bytes && boolean == o.boolean && text_if_string == o.text_if_string &&
           (number == o.number || (number != number && o.number != o.number));
  }
  std::string text_if_string;  // ParamType::string and choice: the string itself
};

// Parses `text` for parameter `p`. Throws ParseError whose message says what was expected
// ("expected a bandwidth like 900GB/s ..., got '1.4GHz'") for a wrong type, unit, choice or range.
Value parse_value(const Param& p, std::string_view text);

// "at least 1KiB", "between 1 and 64", "" when unbounded; values in the parameter's unit form.
std::string range_text(const Param& p);

// A value in the parameter's unit form: 98304 bytes -> "96KiB", 1.41e9 Hz -> "1.41GHz".
std::string format_in_unit(ParamType type, double value);

}  // namespace tcsim::config
