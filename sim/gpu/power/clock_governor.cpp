#include "gpu/power/clock_governor.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "gpu/power/energy_model.h"

namespace tcsim::gpu {
namespace {

struct Probe {
  KernelResult result;
  double busy_s = 0;
  double power_w = 0;
};

}  // namespace

ClockChoice choose_clock(const PowerConfig& p, double boost_hz, FormatId ab, const RunAtClock& run_at) {
  const auto ratio = [&](double hz) { return p.voltage_ratio(hz); };
  ClockChoice out;
  std::map<std::size_t, Probe> probes;  // by step index
  const std::vector<double> steps = p.mode == PowerConfig::Mode::boost ? p.clock_steps(boost_hz)
                                                                       : std::vector<double>{boost_hz};
  auto probe = [&](std::size_t i) -> const Probe& {
    auto it = probes.find(i);
    if (it != probes.end()) return it->second;
    Probe pr;
    pr.result = run_at(steps[i]);
    pr.busy_s = pr.result.cycles / steps[i];
    pr.power_w = busy_power_w(p, Activity::of(pr.result), ab, ratio(steps[i]), pr.busy_s);
    ++out.evaluations;
    return probes.emplace(i, std::move(pr)).first->second;
  };
  auto finish = [&](std::size_t i) {
    const Probe& pr = probe(i);
    out.result = pr.result;
    out.clock_hz = steps[i];
    out.busy_power_w = pr.power_w;
    return out;
  };

  if (probe(0).power_w <= p.limit_w || steps.size() == 1 || p.mode == PowerConfig::Mode::fixed) return finish(0);
  out.power_bound = true;

  // Find the first step (highest clock) within the limit. The bracket: `bad` is over the limit,
  // `good` is within it (or the last step, the floor). Probes are guided by the busy time the
  // known runs imply, t(f) = a + b / f (a: the part that does not scale with the clock), and fall
  // back to bisection.
  const Activity act0 = Activity::of(probes.at(0).result);
  std::size_t bad = 0, good = steps.size() - 1;
  bool good_known = false;
  for (int guided = 0; good - bad > 1; ++guided) {
    std::size_t next = bad + (good - bad) / 2;
    if (guided < 3) {
      // Busy time through the boost run and the lowest-clock run known (else pure 1/f).
      const Probe& top = probes.at(0);
      double a = 0, b = top.busy_s * steps[0];
      for (auto it = probes.rbegin(); it != probes.rend(); ++it) {
        if (it->first == 0) continue;
        const double f1 = steps[0], f2 = steps[it->first];
        b = (top.busy_s - it->second.busy_s) / (1 / f1 - 1 / f2);
        a = top.busy_s - b / f1;
        if (b <= 0) a = 0, b = top.busy_s * f1;  // a run the clock does not speed up: keep 1/f
        break;
      }
      std::size_t guess = good;
      for (std::size_t i = bad + 1; i < good; ++i)
        if (busy_power_w(p, act0, ab, ratio(steps[i]), std::max(a + b / steps[i], 1e-12)) <= p.limit_w) {
          guess = i;
          break;
        }
      if (guess < good || !good_known) next = guess;
    }
    if (probe(next).power_w <= p.limit_w) {
      good = next, good_known = true;
      // The step just above decides whether the guess was the highest one within the limit.
      if (next - bad > 1) {
        if (probe(next - 1).power_w <= p.limit_w) good = next - 1;
        else bad = next - 1;
      }
    } else {
      bad = next;
    }
  }
  return finish(good);
}

}  // namespace tcsim::gpu
