// The boost governor: the highest clock step within the power limit, against a brute-force scan,
// for kernels the clock speeds up fully (compute-bound) and partly (a DRAM-bound share).
#include <doctest/doctest.h>

#include "gpu/power/clock_governor.h"
#include "gpu/power/energy_model.h"

namespace tcsim::gpu {
namespace {

PowerConfig board(double limit_w) {
  PowerConfig p;
  p.mode = PowerConfig::Mode::boost;
  p.limit_w = limit_w;
  p.idle_w = 30;
  p.leakage_w = 20;
  p.min_clock_hz = 300e6;
  p.clock_step_hz = 15e6;
  p.vf = {{700e6, 0.68}, {1000e6, 0.69}, {1200e6, 0.75}, {1410e6, 0.98}};
  p.energy.instruction_j = 960e-12;
  p.energy.ffma_j = 1.7e-12;
  p.energy.dram_byte_j = 105e-12;
  return p;
}

// A kernel of `ffma` lane ops (one warp instruction per 32) and `dram` bytes, whose busy time is
// fixed_s + cycles / clock.
RunAtClock kernel(double cycles, double fixed_s, double ffma, double dram) {
  return [=](double hz) {
    KernelResult r;
    const double t = fixed_s + cycles / hz;
    r.cycles = t * hz;
    r.time_s = t + 5e-6;
    Activity a;
    a.ffma = ffma;
    a.warp_instructions = ffma / 32;
    a.record(r);
    r.set("dram_read_bytes", dram);
    return r;
  };
}

double power_at(const PowerConfig& p, const RunAtClock& run, double hz) {
  const KernelResult r = run(hz);
  return busy_power_w(p, Activity::of(r), FormatId::fp32, p.voltage_ratio(hz), r.cycles / hz);
}

// The brute-force answer: the first step (from the top) within the limit, else the lowest.
double brute_force(const PowerConfig& p, const RunAtClock& run, double boost) {
  const auto steps = p.clock_steps(boost);
  for (double f : steps)
    if (power_at(p, run, f) <= p.limit_w) return f;
  return steps.back();
}

}  // namespace

TEST_CASE("the governor picks the highest clock step within the power limit") {
  const double boost = 1410e6;
  // 1e10 cycles of FFMA work at 2 x 10^13 lane ops (a long SGEMM), and one with a DRAM-bound share.
  const RunAtClock compute = kernel(1e8, 0, 1e13, 1e9);
  const RunAtClock mixed = kernel(5e7, 0.04, 6e12, 2e10);
  for (double limit : {70.0, 150.0, 200.0, 250.0, 300.0, 400.0, 1000.0}) {
    for (const RunAtClock* run : {&compute, &mixed}) {
      CAPTURE(limit);
      const PowerConfig p = board(limit);
      const ClockChoice c = choose_clock(p, boost, FormatId::fp32, *run);
      CHECK(c.clock_hz == doctest::Approx(brute_force(p, *run, boost)));
      CHECK(c.power_bound == (power_at(p, *run, boost) > limit));
      if (c.clock_hz > p.min_clock_hz) CHECK(c.busy_power_w <= limit);
      CHECK(c.busy_power_w == doctest::Approx(power_at(p, *run, c.clock_hz)));
      // A guided search: a handful of timing runs, not a scan of the ~74 steps.
      CHECK(c.evaluations <= 8);
    }
  }
}

TEST_CASE("a lower limit never gives a higher clock, and fixed mode keeps the config clock") {
  const RunAtClock run = kernel(1e8, 0, 1e13, 1e9);
  double last = 2e9;
  for (double limit = 400; limit >= 60; limit -= 20) {
    const ClockChoice c = choose_clock(board(limit), 1410e6, FormatId::fp32, run);
    CHECK(c.clock_hz <= last);
    last = c.clock_hz;
  }
  PowerConfig fixed = board(60);
  fixed.mode = PowerConfig::Mode::fixed;
  const ClockChoice c = choose_clock(fixed, 1410e6, FormatId::fp32, run);
  CHECK(c.clock_hz == 1410e6);
  CHECK_FALSE(c.power_bound);
  CHECK(c.evaluations == 1);
}

TEST_CASE("energy: dynamic energy follows V squared, DRAM does not, idle covers the launch gap") {
  PowerConfig p = board(300);
  Activity a;
  a.ffma = 1e12;
  a.dram_bytes = 1e9;
  const EnergyBreakdown full = kernel_energy(p, a, FormatId::fp32, 1.0, 0.01, 0.012);
  const EnergyBreakdown low = kernel_energy(p, a, FormatId::fp32, 0.8, 0.01, 0.012);
  auto part = [](const EnergyBreakdown& b, const std::string& name) {
    for (const auto& [n, j] : b.parts)
      if (n == name) return j;
    return -1.0;
  };
  CHECK(part(full, "cuda_core") == doctest::Approx(1.7));
  CHECK(part(low, "cuda_core") == doctest::Approx(1.7 * 0.64));
  CHECK(part(low, "dram") == doctest::Approx(part(full, "dram")));
  CHECK(part(full, "dram") == doctest::Approx(0.105));
  CHECK(part(full, "idle") == doctest::Approx(30 * 0.012));
  CHECK(part(low, "leakage") == doctest::Approx(20 * 0.8 * 0.01));
  CHECK(full.total_j() == doctest::Approx(full.dynamic_j() + part(full, "idle") + part(full, "leakage")));
}

}  // namespace tcsim::gpu
