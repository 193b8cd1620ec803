#pragma once
// The clock a kernel really runs at: GPU boost firmware raises the SM clock while the board's
// power stays under its limit. For each kernel this picks the highest clock step whose predicted
// busy power (energy_model.h) is at most power.limit, re-running the timing model at the
// candidate clocks (time does not scale with 1/f where DRAM bounds the kernel).
#include <functional>

#include "gpu/power/activity.h"
#include "gpu/power/power_config.h"
#include "workload/kernel_result.h"

namespace tcsim::gpu {

struct ClockChoice {
  KernelResult result;       // the timing-model run at the chosen clock
  double clock_hz = 0;
  bool power_bound = false;  // the boost clock would draw more than the limit
  double busy_power_w = 0;   // board power while the kernel runs at the chosen clock
  int evaluations = 0;       // timing-model runs the search needed
};

using RunAtClock = std::function<KernelResult(double clock_hz)>;

// `boost_hz`: the config clock (the top of the range). With power.mode fixed, runs at boost_hz.
ClockChoice choose_clock(const PowerConfig& p, double boost_hz, FormatId ab, const RunAtClock& run_at);

}  // namespace tcsim::gpu
