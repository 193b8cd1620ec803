#include "common/text/units.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>
#include <utility>
#include <vector>

#include "common/error.h"

namespace tcsim::units {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// Splits "1.41GHz" into 1.41 and "GHz". The number part must be a plain decimal or exponent form.
std::pair<double, std::string_view> split_number(std::string_view text, const char* expected) {
  text = trim(text);
  double value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr == text.data())
    throw ParseError(std::string("expected ") + expected + ", got '" + std::string(text) + "'");
  if (!std::isfinite(value))
    throw ParseError(std::string("expected ") + expected + " (a finite number), got '" + std::string(text) + "'");
  std::string_view unit = trim(text.substr(static_cast<std::size_t>(ptr - text.data())));
  return {value, unit};
}

struct Suffix {
  std::string_view name;
  double scale;
};

double scaled(std::string_view text, const std::vector<Suffix>& suffixes, const char* expected,
              bool allow_bare) {
  auto [value, unit] = split_number(text, expected);
  if (unit.empty()) {
    if (allow_bare) return value;
    throw ParseError(std::string("expected ") + expected + " with a unit, got '" + std::string(trim(text)) + "'");
  }
  for (const auto& s : suffixes)
    if (unit == s.name) return value * s.scale;
  throw ParseError(std::string("expected ") + expected + ", unknown unit '" + std::string(unit) +
                   "' in '" + std::string(trim(text)) + "'");
}

const std::vector<Suffix>& byte_suffixes() {
  static const std::vector<Suffix> s = {
      {"B", 1},          {"KiB", 1024.0},   {"MiB", 1048576.0}, {"GiB", 1073741824.0},
      {"TiB", 1099511627776.0}, {"KB", 1e3}, {"kB", 1e3},       {"MB", 1e6},
      {"GB", 1e9},       {"TB", 1e12}};
  return s;
}

// Suffixes "<base><tail>" scaled base x tail ("GB" + "/s", "pJ" + "/bit"). Built in place and never
// moved, so the views in `suffixes` stay on the strings of `names`.
struct ComposedSuffixes {
  std::vector<std::string> names;
  std::vector<Suffix> suffixes;
  ComposedSuffixes(const std::vector<Suffix>& base, const std::vector<Suffix>& tails) {
    for (const auto& b : base)
      for (const auto& t : tails) names.push_back(std::string(b.name) + std::string(t.name));
    std::size_t i = 0;
    for (const auto& b : base)
      for (const auto& t : tails) suffixes.push_back({names[i++], b.scale * t.scale});
  }
  ComposedSuffixes(const ComposedSuffixes&) = delete;
  ComposedSuffixes& operator=(const ComposedSuffixes&) = delete;
};

}  // namespace

std::uint64_t parse_bytes(std::string_view text) {
  const char* expected = "a size like 96KiB, 6MiB or 40GB";
  double v = scaled(text, byte_suffixes(), expected, true);
  if (v < 0 || v != std::floor(v) || v > 1.8e19)
    throw ParseError(std::string("expected ") + expected + " (a whole, non-negative number of bytes), got '" +
                     std::string(trim(text)) + "'");
  return static_cast<std::uint64_t>(v);
}

double parse_frequency_hz(std::string_view text) {
  static const std::vector<Suffix> s = {{"Hz", 1}, {"kHz", 1e3}, {"MHz", 1e6}, {"GHz", 1e9}};
  double v = scaled(text, s, "a frequency like 1.41GHz or 700MHz", false);
  if (v <= 0) throw ParseError("expected a positive frequency, got '" + std::string(trim(text)) + "'");
  return v;
}

double parse_bandwidth_bytes_per_s(std::string_view text) {
  static const ComposedSuffixes s(byte_suffixes(), {{"/s", 1}});
  double v = scaled(text, s.suffixes, "a bandwidth like 900GB/s or 1.555TB/s", false);
  if (v <= 0) throw ParseError("expected a positive bandwidth, got '" + std::string(trim(text)) + "'");
  return v;
}

double parse_bytes_per_cycle(std::string_view text) {
  static const std::vector<Suffix> s = {{"B/clk", 1}, {"B/cycle", 1}, {"B/cyc", 1}};
  double v = scaled(text, s, "a per-cycle bandwidth like 128B/clk", false);
  if (v <= 0) throw ParseError("expected a positive per-cycle bandwidth, got '" + std::string(trim(text)) + "'");
  return v;
}

double parse_time_s(std::string_view text) {
  static const std::vector<Suffix> s = {{"s", 1}, {"ms", 1e-3}, {"us", 1e-6}, {"ns", 1e-9}, {"ps", 1e-12}};
  double v = scaled(text, s, "a time like 5us or 2.5ns", false);
  if (v < 0) throw ParseError("expected a non-negative time, got '" + std::string(trim(text)) + "'");
  return v;
}

double parse_cycles(std::string_view text) {
  static const std::vector<Suffix> s = {{"cycles", 1}, {"cycle", 1}, {"cyc", 1}, {"clk", 1}};
  double v = scaled(text, s, "a cycle count like 35cycles", true);
  if (v < 0) throw ParseError("expected a non-negative cycle count, got '" + std::string(trim(text)) + "'");
  return v;
}

double parse_power_w(std::string_view text) {
  static const std::vector<Suffix> s = {{"W", 1}, {"mW", 1e-3}, {"kW", 1e3}};
  double v = scaled(text, s, "a power like 250W", false);
  if (v < 0) throw ParseError("expected a non-negative power, got '" + std::string(trim(text)) + "'");
  return v;
}

namespace {
const std::vector<Suffix>& energy_suffixes() {
  static const std::vector<Suffix> s = {{"J", 1}, {"mJ", 1e-3}, {"uJ", 1e-6}, {"nJ", 1e-9}, {"pJ", 1e-12}, {"fJ", 1e-15}};
  return s;
}
}  // namespace

double parse_energy_j(std::string_view text) {
  double v = scaled(text, energy_suffixes(), "an energy like 3.9pJ or 1.2nJ", false);
  if (v < 0) throw ParseError("expected a non-negative energy, got '" + std::string(trim(text)) + "'");
  return v;
}

double parse_voltage_v(std::string_view text) {
  static const std::vector<Suffix> s = {{"V", 1}, {"mV", 1e-3}};
  double v = scaled(text, s, "a voltage like 1.05V or 850mV", false);
  if (v < 0) throw ParseError("expected a non-negative voltage, got '" + std::string(trim(text)) + "'");
  return v;
}

double parse_energy_per_byte_j(std::string_view text) {
  static const ComposedSuffixes s(energy_suffixes(), {{"/bit", 8}, {"/B", 1}});
  double v = scaled(text, s.suffixes, "an energy per bit or byte like 3.9pJ/bit or 31pJ/B", false);
  if (v < 0) throw ParseError("expected a non-negative energy per byte, got '" + std::string(trim(text)) + "'");
  return v;
}

double parse_number(std::string_view text) {
  auto [value, unit] = split_number(text, "a number");
  if (!unit.empty()) throw ParseError("expected a plain number, got '" + std::string(trim(text)) + "'");
  return value;
}

std::int64_t parse_integer(std::string_view text) {
  text = trim(text);
  std::int64_t value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec == std::errc::result_out_of_range)
    throw ParseError("integer out of range: '" + std::string(text) + "'");
  if (ec != std::errc() || ptr != text.data() + text.size() || text.empty())
    throw ParseError("expected an integer, got '" + std::string(text) + "'");
  return value;
}

namespace {
std::string compact(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}
}  // namespace

std::string format_bytes(std::uint64_t bytes) {
  static const char* names[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int i = 0;
  std::uint64_t v = bytes;
  while (i < 4 && v >= 1024 && v % 1024 == 0) {
    v /= 1024;
    ++i;
  }
  return std::to_string(v) + names[i];
}

std::string format_frequency(double hz) {
  if (hz >= 1e9) return compact(hz / 1e9) + "GHz";
  if (hz >= 1e6) return compact(hz / 1e6) + "MHz";
  return compact(hz) + "Hz";
}

std::string format_bandwidth(double bps) {
  if (bps >= 1e12) return compact(bps / 1e12) + "TB/s";
  if (bps >= 1e9) return compact(bps / 1e9) + "GB/s";
  if (bps >= 1e6) return compact(bps / 1e6) + "MB/s";
  return compact(bps) + "B/s";
}

std::string format_time(double s) {
  if (s >= 1) return compact(s) + "s";
  if (s >= 1e-3) return compact(s * 1e3) + "ms";
  if (s >= 1e-6) return compact(s * 1e6) + "us";
  return compact(s * 1e9) + "ns";
}

std::string format_power(double w) {
  if (w >= 1e3) return compact(w / 1e3) + "kW";
  if (w >= 1 || w == 0) return compact(w) + "W";
  return compact(w * 1e3) + "mW";
}

std::string format_voltage(double v) { return compact(v) + "V"; }  // core voltages are near 1 V: 0.977V

std::string format_energy(double j) {
  if (j >= 1 || j == 0) return compact(j) + "J";
  if (j >= 1e-3) return compact(j * 1e3) + "mJ";
  if (j >= 1e-6) return compact(j * 1e6) + "uJ";
  if (j >= 1e-9) return compact(j * 1e9) + "nJ";
  return compact(j * 1e12) + "pJ";
}

}  // namespace tcsim::units
