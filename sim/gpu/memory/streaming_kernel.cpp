#include "gpu/memory/streaming_kernel.h"

#include <algorithm>
#include <cmath>

namespace tcsim::gpu {

StreamingCost streaming_cost(const GpuConfig& g, const StreamingKernel& k) {
  StreamingCost c;
  const double bytes = k.read_bytes + k.write_bytes;
  c.in_l2 = std::max(bytes, k.footprint_bytes) <= double(g.l2_size);
  const double bytes_per_clk =
      c.in_l2 ? g.l2_bytes_per_clk * g.l2_efficiency : g.dram_bytes_per_clk() * g.dram_efficiency;
  double mem = bytes / bytes_per_clk;
  if (const double narrow = g.narrow_copy_bytes_per_clk(k.access_bytes); narrow > 0)
    mem = std::max(mem, bytes / (narrow * double(g.sm_count)));
  const double math = k.flops / (2.0 * g.peak_ffma_per_clk() * g.sm_count * g.ffma_efficiency);
  // The busiest SM's share of CTAs, one after another.
  if (k.ctas > 0) mem = std::max(mem, std::ceil(double(k.ctas) / double(g.sm_count)) * k.cta_cycles);
  c.math_bound = math > mem;
  // One memory round trip at least: the first loads must come back before anything is stored.
  c.cycles = std::max({mem, math, c.in_l2 ? g.l2_hit_latency() : g.dram_latency});
  c.time_s = c.cycles / g.clock_hz + g.launch_overhead_s;
  return c;
}

}  // namespace tcsim::gpu
