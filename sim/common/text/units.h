#pragma once
// Quantities with units, as written in configs and on the command line.
//   sizes:       "96KiB", "40GB", "6MiB", "128B", "128" (bytes)       -> bytes (binary and SI prefixes)
//   frequency:   "1.41GHz", "700MHz", "1530MHz"                       -> Hz
//   bandwidth:   "900GB/s", "1.555TB/s", "34GB/s", "25.6GiB/s"         -> bytes per second
//   per cycle:   "128B/clk", "64B/cycle"                               -> bytes per cycle
//   time:        "5us", "2.5ns", "10ms", "1s"                          -> seconds
//   cycles:      "35cycles", "35cyc", "35"                             -> cycles (double)
//   power:       "250W", "70W", "1.2kW", "500mW"                       -> watts
//   energy:      "3.9pJ", "1.2nJ", "5mJ", "2J"                         -> joules
//   voltage:     "1.05V", "850mV"                                     -> volts
//   per byte:    "3.9pJ/bit", "31pJ/B"                                 -> joules per byte
// Each parser throws ParseError naming the kind of value it expected.
#include <cstdint>
#include <string>
#include <string_view>

namespace tcsim::units {

std::uint64_t parse_bytes(std::string_view text);
double parse_frequency_hz(std::string_view text);
double parse_bandwidth_bytes_per_s(std::string_view text);
double parse_bytes_per_cycle(std::string_view text);
double parse_time_s(std::string_view text);
double parse_cycles(std::string_view text);
double parse_power_w(std::string_view text);
double parse_energy_j(std::string_view text);
double parse_voltage_v(std::string_view text);
double parse_energy_per_byte_j(std::string_view text);

// Strict plain numbers: the whole text must be the number (no trailing junk).
double parse_number(std::string_view text);
std::int64_t parse_integer(std::string_view text);

// Human-readable forms, e.g. 98304 -> "96KiB", 1.41e9 -> "1.41GHz", 9e11 -> "900GB/s".
std::string format_bytes(std::uint64_t bytes);
std::string format_frequency(double hz);
std::string format_bandwidth(double bytes_per_s);
std::string format_time(double seconds);
std::string format_power(double watts);
std::string format_voltage(double volts);
std::string format_energy(double joules);

}  // namespace tcsim::units
