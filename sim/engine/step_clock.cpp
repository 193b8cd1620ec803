#include "engine/step_clock.h"

#include <map>
#include <utility>

namespace tcsim::engine {

StepClock choose_step_clock(const Accelerator& acc, const std::vector<Kernel>& kernels, int jobs,
                            const std::function<double(const std::vector<KernelOutcome>&)>& step_power) {
  StepClock out;
  const std::vector<double> clocks = acc.power_capped_clocks();
  if (clocks.empty()) {
    out.outcomes = run_kernels_collect(acc, kernels, jobs);
    return out;
  }
  struct Trial {
    std::vector<KernelOutcome> outcomes;
    double power_w = 0;
  };
  std::map<std::size_t, Trial> trials;  // by clock step
  auto trial = [&](std::size_t i) -> const Trial& {
    if (auto it = trials.find(i); it != trials.end()) return it->second;
    Trial t;
    t.outcomes = run_kernels_collect(acc, kernels, jobs, clocks[i]);
    t.power_w = step_power(t.outcomes);
    return trials.emplace(i, std::move(t)).first->second;
  };
  out.limit_w = acc.power_limit_w();
  std::size_t chosen = 0;
  if (trial(0).power_w > out.limit_w && clocks.size() > 1) {
    std::size_t bad = 0, good = clocks.size() - 1;  // `bad` is over the limit, `good` within it (or the floor)
    while (good - bad > 1) {
      const std::size_t mid = bad + (good - bad) / 2;
      (trial(mid).power_w <= out.limit_w ? good : bad) = mid;
    }
    chosen = good;
  }
  out.clock_hz = clocks[chosen];
  out.boost_clock_hz = clocks[0];
  out.boost_power_w = trial(0).power_w;
  trial(chosen);  // the floor may not have been tried
  out.outcomes = std::move(trials.at(chosen).outcomes);  // the trials are done with
  return out;
}

}  // namespace tcsim::engine
