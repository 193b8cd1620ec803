#include <doctest/doctest.h>

#include "common/error.h"
#include "common/text/units.h"

using namespace tcsim;
using namespace tcsim::units;

TEST_CASE("sizes take binary and SI prefixes") {
  CHECK(parse_bytes("96KiB") == 98304);
  CHECK(parse_bytes("6MiB") == 6u * 1024 * 1024);
  CHECK(parse_bytes("40GB") == 40000000000ull);
  CHECK(parse_bytes("128") == 128);
  CHECK(parse_bytes(" 64 B ") == 64);
  CHECK_THROWS_AS(parse_bytes("96Kb"), ParseError);
  CHECK_THROWS_AS(parse_bytes("1.5B"), ParseError);
  CHECK_THROWS_AS(parse_bytes("-1KiB"), ParseError);
  CHECK_THROWS_AS(parse_bytes("KiB"), ParseError);
}

TEST_CASE("frequencies, bandwidths, times and cycles") {
  CHECK(parse_frequency_hz("1.41GHz") == doctest::Approx(1.41e9));
  CHECK(parse_frequency_hz("700MHz") == doctest::Approx(7e8));
  CHECK_THROWS_AS(parse_frequency_hz("1.41"), ParseError);  // a unit is required
  CHECK_THROWS_AS(parse_frequency_hz("0GHz"), ParseError);
  CHECK(parse_bandwidth_bytes_per_s("900GB/s") == doctest::Approx(9e11));
  CHECK(parse_bandwidth_bytes_per_s("1.555TB/s") == doctest::Approx(1.555e12));
  CHECK(parse_bandwidth_bytes_per_s("1GiB/s") == doctest::Approx(1073741824.0));
  CHECK_THROWS_AS(parse_bandwidth_bytes_per_s("900GB"), ParseError);
  CHECK(parse_bytes_per_cycle("128B/clk") == 128);
  CHECK(parse_time_s("5us") == doctest::Approx(5e-6));
  CHECK(parse_time_s("2.5ns") == doctest::Approx(2.5e-9));
  CHECK(parse_cycles("35cycles") == 35);
  CHECK(parse_cycles("33") == 33);
}

TEST_CASE("power, energy, voltage and energy per byte") {
  CHECK(parse_power_w("250W") == doctest::Approx(250));
  CHECK(parse_power_w("1.2kW") == doctest::Approx(1200));
  CHECK(parse_power_w("500mW") == doctest::Approx(0.5));
  CHECK_THROWS_AS(parse_power_w("250"), ParseError);  // a unit is required
  CHECK_THROWS_AS(parse_power_w("250J"), ParseError);
  CHECK(parse_energy_j("3.9pJ") == doctest::Approx(3.9e-12));
  CHECK(parse_energy_j("1.2nJ") == doctest::Approx(1.2e-9));
  CHECK_THROWS_AS(parse_energy_j("-1pJ"), ParseError);
  CHECK(parse_voltage_v("850mV") == doctest::Approx(0.85));
  CHECK(parse_voltage_v("0V") == 0);  // a parameter's range decides (power.energy_voltage: 0 = the curve's last point)
  CHECK_THROWS_AS(parse_voltage_v("-1V"), ParseError);
  CHECK(parse_energy_per_byte_j("3.9pJ/bit") == doctest::Approx(31.2e-12));
  CHECK(parse_energy_per_byte_j("31pJ/B") == doctest::Approx(31e-12));
  CHECK_THROWS_AS(parse_energy_per_byte_j("31pJ"), ParseError);
  CHECK(format_power(250) == "250W");
  CHECK(format_energy(3.9e-12) == "3.9pJ");
  CHECK(format_energy(0.25) == "250mJ");
}

TEST_CASE("strict plain numbers") {
  CHECK(parse_integer("42") == 42);
  CHECK(parse_integer("-7") == -7);
  CHECK_THROWS_AS(parse_integer("4x"), ParseError);
  CHECK_THROWS_AS(parse_integer(""), ParseError);
  CHECK_THROWS_AS(parse_integer("99999999999999999999"), ParseError);
  CHECK(parse_number("1e3") == 1000);
  CHECK_THROWS_AS(parse_number("1e3GHz"), ParseError);
}

TEST_CASE("formatting round-trips the common cases") {
  CHECK(format_bytes(98304) == "96KiB");
  CHECK(format_bytes(100) == "100B");
  CHECK(format_frequency(1.41e9) == "1.41GHz");
  CHECK(format_bandwidth(9e11) == "900GB/s");
  CHECK(format_time(5e-6) == "5us");
}

TEST_CASE("InputError carries where and what") {
  InputError e(location("configs/gpu/v100.yaml", 12, "dram.bandwidth"), "expected a bandwidth like 900GB/s");
  CHECK(std::string(e.what()) == "configs/gpu/v100.yaml:12: dram.bandwidth: expected a bandwidth like 900GB/s");
  CHECK(e.detail() == "expected a bandwidth like 900GB/s");
}
