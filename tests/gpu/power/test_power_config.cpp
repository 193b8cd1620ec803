// The `power:` section: shipped values, the voltage curve, and the checks `tcsim config check` runs.
#include <doctest/doctest.h>

#include "common/error.h"
#include "config/config.h"
#include "gpu/gpu_config.h"
#include "gpu/gpu_test_util.h"

namespace tcsim::gpu {
using test::config_text;
using test::load_error;
using test::replace;

TEST_CASE("every shipped GPU config states its board's power limit and a boost curve") {
  struct Board {
    const char* config;
    double limit_w;
  };
  for (const Board b : {Board{"v100", 300}, Board{"v100_pcie", 250}, Board{"t4", 70}, Board{"a100", 400},
                        Board{"a100_80gb", 400}, Board{"a100_pcie_40gb", 250}, Board{"a100_80gb_pcie", 300},
                        Board{"h100", 700}}) {
    CAPTURE(b.config);
    const GpuConfig g = test::shipped(b.config);
    CHECK(g.power.mode == PowerConfig::Mode::boost);
    CHECK(g.power.limit_w == b.limit_w);
    CHECK(g.power.idle_w < g.power.limit_w);
    REQUIRE(g.power.vf.size() >= 2);
    CHECK(g.power.vf.back().clock_hz >= g.clock_hz);
    CHECK(g.power.voltage_ratio(g.clock_hz) <= 1.0);
  }
  // The PCIe boards of a chip share its curve and energies, with a lower limit and boost clock.
  const GpuConfig sxm = test::shipped("v100"), pcie = test::shipped("v100_pcie");
  CHECK(pcie.power.energy.instruction_j == sxm.power.energy.instruction_j);
  CHECK(pcie.power.voltage_ratio(pcie.clock_hz) < sxm.power.voltage_ratio(sxm.clock_hz));
}

TEST_CASE("the voltage curve interpolates and is flat beyond its ends") {
  PowerConfig p;
  p.vf = {{1e9, 0.7}, {1.5e9, 1.0}};
  CHECK(p.voltage_at(0.5e9) == doctest::Approx(0.7));
  CHECK(p.voltage_at(1.25e9) == doctest::Approx(0.85));
  CHECK(p.voltage_at(2e9) == doctest::Approx(1.0));
  CHECK(p.voltage_ratio(1e9) == doctest::Approx(0.7));
  p.min_clock_hz = 1.2e9;
  p.clock_step_hz = 0.1e9;
  const auto steps = p.clock_steps(1.5e9);
  REQUIRE(steps.size() == 4);
  CHECK(steps.front() == 1.5e9);
  CHECK(steps.back() == doctest::Approx(1.2e9));
}

TEST_CASE("power.energy_voltage: a curve carried above a chip's reference clock keeps the chip's energies below it") {
  PowerConfig p;
  p.vf = {{1e9, 0.7}, {1.5e9, 1.0}, {2e9, 1.2}};
  CHECK(p.voltage_ratio(1.5e9) == doctest::Approx(1.0 / 1.2));  // by default the last point is the reference
  p.reference_voltage_v = 1.0;
  CHECK(p.voltage_ratio(1.5e9) == doctest::Approx(1.0));
  CHECK(p.voltage_ratio(1e9) == doctest::Approx(0.7));
  CHECK(p.voltage_ratio(2e9) == doctest::Approx(1.2));  // above the reference: dynamic energy x 1.44

  // The GeForce RTX 4090 carries the L40S's AD102 curve from 2520 MHz to 2820 MHz: at and below
  // 2520 MHz every event costs what it costs on the L40S.
  const GpuConfig l40s = test::shipped("l40s"), rtx4090 = test::shipped("rtx4090");
  CHECK(rtx4090.clock_hz == doctest::Approx(2.82e9));
  CHECK(rtx4090.power.reference_voltage_v == doctest::Approx(0.977));
  CHECK(rtx4090.power.energy.mma_fp16_j == l40s.power.energy.mma_fp16_j);
  for (double hz : {1.2e9, 1.98e9, 2.52e9}) {
    CAPTURE(hz);
    CHECK(rtx4090.power.voltage_ratio(hz) == doctest::Approx(l40s.power.voltage_ratio(hz)));
  }
  CHECK(rtx4090.power.voltage_ratio(2.82e9) > 1.1);
}

TEST_CASE("config check rejects impossible power models at the offending key") {
  const std::string v100 = config_text("v100");
  CHECK(load_error(v100) == "");
  // Idle power above the limit.
  std::string e = load_error(v100, {"power.idle=320W"});
  CHECK(e.find("power.idle") != std::string::npos);
  CHECK(e.find("below power.limit") != std::string::npos);
  // An empty clock range.
  e = load_error(v100, {"power.min_clock=1600MHz"});
  CHECK(e.find("power.min_clock") != std::string::npos);
  CHECK(e.find("empty clock range") != std::string::npos);
  // A curve whose voltage falls as the clock rises.
  e = load_error(replace(v100, "{clock: 1425MHz, voltage: 0.893V}", "{clock: 1425MHz, voltage: 0.700V}"));
  CHECK(e.find("v100.yaml:") != std::string::npos);
  CHECK(e.find("voltage") != std::string::npos);
  CHECK(e.find("monotone") != std::string::npos);
  // Clocks out of order.
  e = load_error(replace(v100, "{clock: 1425MHz, voltage: 0.893V}", "{clock: 1000MHz, voltage: 0.893V}"));
  CHECK(e.find("increasing order") != std::string::npos);
  // A curve that stops below the clock the config runs at.
  e = load_error(v100, {"clock=1600MHz"});
  CHECK(e.find("power.vf_curve") != std::string::npos);
  CHECK(e.find("extend it") != std::string::npos);
  // A reference voltage off the curve.
  e = load_error(v100, {"power.energy_voltage=1.5V"});
  CHECK(e.find("power.energy_voltage") != std::string::npos);
  CHECK(e.find("expected a voltage of the curve") != std::string::npos);
  e = load_error(v100, {"power.energy_voltage=-1V"});
  CHECK(e.find("non-negative voltage") != std::string::npos);
  CHECK(load_error(v100, {"power.energy_voltage=0.9V"}) == "");
  // Units are checked like every other value.
  e = load_error(v100, {"power.limit=300"});
  CHECK(e.find("power.limit") != std::string::npos);
  CHECK(e.find("a power like 250W") != std::string::npos);
  // Boost needs a curve; fixed does not.
  const std::string minimal = "version: 1\nkind: gpu\npower:\n  mode: boost\n  min_clock: 300MHz\n";
  CHECK(load_error(minimal).find("voltage-frequency curve") != std::string::npos);
  CHECK(load_error("version: 1\nkind: gpu\n") == "");
}

}  // namespace tcsim::gpu
