#pragma once
// The clock a loop's step runs at under a board's power limit. The firmware limits the power
// averaged over a window (tens to hundreds of ms) longer than one step's kernels, so a training or
// inference loop's kernels share one clock: the highest clock step (Accelerator::power_capped_clocks)
// at which the step's average power is within the limit. Used by network steps
// (network/network_estimate.cpp) and profile replays (profile/profile_estimate.cpp); single
// kernels keep the per-kernel cap of Accelerator::run.
#include <functional>
#include <vector>

#include "engine/kernel_runner.h"

namespace tcsim::engine {

struct StepClock {
  std::vector<KernelOutcome> outcomes;  // every kernel at the chosen clock
  // 0 when the accelerator has no limit to enforce (outcomes are then run()'s own).
  double clock_hz = 0, boost_clock_hz = 0, boost_power_w = 0, limit_w = 0;
};

// `step_power(outcomes)`: the step's average power (W) with its kernels' outcomes at one clock.
// Bisects the clock steps (a step's power rises with its clock); the lowest step when none fits.
StepClock choose_step_clock(const Accelerator& acc, const std::vector<Kernel>& kernels, int jobs,
                            const std::function<double(const std::vector<KernelOutcome>&)>& step_power);

}  // namespace tcsim::engine
