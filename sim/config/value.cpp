#include "config/value.h"

#include <cmath>
#include <cstdio>
#include <utility>

#include "common/error.h"
#include "common/text/units.h"
#include "config/suggest.h"

namespace tcsim::config {

std::string format_in_unit(ParamType type, double v) {
  char buf[64];
  auto g = [&](const char* suffix) {
    std::snprintf(buf, sizeof buf, "%.6g%s", v, suffix);
    return std::string(buf);
  };
  switch (type) {
    case ParamType::bytes:
      if (v >= 0 && v < 1.8e19 && v == std::floor(v)) {
        const auto b = static_cast<std::uint64_t>(v);
        // Decimal sizes ("1GB") read better than "1000000000B" when they are not binary multiples.
        if (b % 1024 != 0)
          for (auto [scale, unit] : {std::pair{1000000000000ull, "TB"}, {1000000000ull, "GB"}, {1000000ull, "MB"}, {1000ull, "KB"}})
            if (b % scale == 0) return std::to_string(b / scale) + unit;
        return units::format_bytes(b);
      }
      return g("B");
    case ParamType::frequency:
      return v > 0 ? units::format_frequency(v) : g("Hz");
    case ParamType::bandwidth:
      return v > 0 ? units::format_bandwidth(v) : g("B/s");
    case ParamType::time:
      return v > 0 ? units::format_time(v) : g("s");
    case ParamType::bytes_per_cycle:
      return g("B/clk");
    case ParamType::cycles:
      return g("cycles");
    case ParamType::power:
      return units::format_power(v);
    case ParamType::energy:
      return units::format_energy(v);
    case ParamType::voltage:
      return g("V");
    case ParamType::energy_per_byte:
      return units::format_energy(v) + "/B";
    case ParamType::integer:
      std::snprintf(buf, sizeof buf, "%.0f", v);
      return buf;
    default:
      return g("");
  }
}

std::string range_text(const Param& p) {
  const bool lo = std::isfinite(p.min), hi = std::isfinite(p.max);
  if (lo && hi) return "between " + format_in_unit(p.type, p.min) + " and " + format_in_unit(p.type, p.max);
  if (lo) return "at least " + format_in_unit(p.type, p.min);
  if (hi) return "at most " + format_in_unit(p.type, p.max);
  return "";
}

namespace {

std::string quoted(std::string_view s) { return "'" + std::string(s) + "'"; }

}  // namespace

Value parse_value(const Param& p, std::string_view text) {
  Value v;
  v.text = std::string(text);
  switch (p.type) {
    case ParamType::integer:
      try {
        v.integer = units::parse_integer(text);
      } catch (const ParseError&) {
        throw ParseError("expected an integer like 80, got " + quoted(text));
      }
      v.number = static_cast<double>(v.integer);
      break;
    case ParamType::number:
      try {
        v.number = units::parse_number(text);
      } catch (const ParseError&) {
        throw ParseError("expected a plain number like 0.5, got " + quoted(text));
      }
      break;
    case ParamType::boolean:
      if (text == "true" || text == "True" || text == "TRUE") v.boolean = true;
      else if (text == "false" || text == "False" || text == "FALSE") v.boolean = false;
      else throw ParseError("expected true or false, got " + quoted(text));
      v.number = v.boolean ? 1 : 0;
      return v;
    case ParamType::string:
      v.text_if_string = std::string(text);
      return v;
    case ParamType::choice:
      for (const auto& c : p.choices)
        if (c == text) {
          v.text_if_string = c;
          return v;
        }
      {
        std::string list;
        for (const auto& c : p.choices) list += (list.empty() ? "" : ", ") + c;
        throw ParseError("expected one of " + list + ", got " + quoted(text) + did_you_mean(text, p.choices));
      }
    case ParamType::bytes:
      v.bytes = units::parse_bytes(text);
      v.number = static_cast<double>(v.bytes);
      break;
    case ParamType::frequency:
      v.number = units::parse_frequency_hz(text);
      break;
    case ParamType::bandwidth:
      v.number = units::parse_bandwidth_bytes_per_s(text);
      break;
    case ParamType::bytes_per_cycle:
      v.number = units::parse_bytes_per_cycle(text);
      break;
    case ParamType::time:
      v.number = units::parse_time_s(text);
      break;
    case ParamType::cycles:
      v.number = units::parse_cycles(text);
      break;
    case ParamType::power:
      v.number = units::parse_power_w(text);
      break;
    case ParamType::energy:
      v.number = units::parse_energy_j(text);
      break;
    case ParamType::voltage:
      v.number = units::parse_voltage_v(text);
      break;
    case ParamType::energy_per_byte:
      v.number = units::parse_energy_per_byte_j(text);
      break;
  }
  if (v.number < p.min || v.number > p.max)
    throw ParseError("expected " + expected_form(p) + " (" + range_text(p) + "), got " + quoted(text));
  return v;
}

}  // namespace tcsim::config
