#include "gpu/gemm/gemm_result.h"

#include "gpu/power/activity.h"

#include <algorithm>
#include <cstdio>
#include <string>

namespace tcsim::gpu {
namespace {

std::string fmt(const char* f, double v) {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

}  // namespace

KernelResult gemm_result(const GpuConfig& g, const GemmPlan& plan, const Estimate& best) {
  KernelResult r;
  r.notes = plan.notes;
  const Mapping& m = best.mapping;
  r.cycles = best.cycles;
  r.time_s = best.time_s;
  r.mapping = m.describe(g);

  // Utilisation of each unit over the kernel's cycles, and what bounds it.
  const double cyc = std::max(best.cycles, 1.0);
  const bool tensor = plan.path == MathPath::tensor;
  const double tensor_peak = tensor ? g.peak_tensor_fma_per_clk(plan.problem.ab, plan.problem.acc, plan.problem.sparse_a) : 0;
  const double ffma_peak = g.peak_ffma_per_clk() * m.pack;
  const double math_util = best.executed_fma / ((tensor ? tensor_peak : ffma_peak) * g.sm_count * cyc);
  const auto& st = best.full.stats;
  const double sm_cyc = std::max(best.full.stats.cycles, 1.0);
  const double smem_util = st.smem_busy / sm_cyc * double(best.active_sms) / g.sm_count;
  const double l2_bytes = best.traffic.l2_read_bytes + best.traffic.dram_write_bytes;
  const double l2_util = l2_bytes / (g.l2_bytes_per_clk * cyc);
  const double dram_bytes = best.traffic.dram_read_bytes + best.traffic.dram_write_bytes;
  const double dram_util = dram_bytes / (g.dram_bytes_per_clk() * cyc);

  struct Cand {
    const char* name;
    double frac_of_achievable;
  };
  const Cand cands[] = {{tensor ? "tensor" : "cuda_core", math_util},
                        {"shared_memory", smem_util},
                        {"l2", l2_util / g.l2_efficiency},
                        {"dram", dram_util * g.dram_bytes_per_clk() /
                                     dram_bytes_per_clk_for(g, plan.problem, m, best.traffic)}};
  const Cand* top = &cands[0];
  for (const auto& c : cands)
    if (c.frac_of_achievable > top->frac_of_achievable) top = &c;
  r.bound = top->frac_of_achievable >= 0.7 ? top->name : "latency";

  r.set("tensor_util_pct", tensor ? 100 * math_util : 0);
  r.set("cuda_core_util_pct", tensor ? 0 : 100 * math_util);
  r.set("smem_util_pct", 100 * smem_util);
  r.set("l2_util_pct", 100 * l2_util);
  r.set("dram_util_pct", 100 * dram_util);
  // Shared-memory bytes of the whole kernel, scaled from the simulated SM run.
  const double sim_tile_iters = double(std::max(1, best.full.ctas)) * double(std::max<std::int64_t>(1, best.full.simulated_iterations));
  r.set("l2_read_bytes", best.traffic.l2_read_bytes);
  r.set("l2_write_bytes", best.traffic.dram_write_bytes);
  r.set("dram_read_bytes", best.traffic.dram_read_bytes);
  r.set("dram_write_bytes", best.traffic.dram_write_bytes);
  r.set("ctas", double(best.tiles));
  r.set("ctas_per_sm", best.ctas_per_sm);
  r.set("waves", best.waves);
  r.set("k_iterations", double(best.iterations));
  r.set("sm_bandwidth_share_bytes_per_clk", best.env.global_bytes_per_clk);
  r.set("global_latency_cycles", best.env.global_latency);
  r.set_launches(best.launches, g.launch_overhead_s);

  // Events for the energy model (power/activity.h), scaled from the simulated SM run like smem_bytes.
  Activity act;
  const double scale = double(best.tiles) * double(best.iterations) / sim_tile_iters;
  act.warp_instructions = st.warp_instructions * scale;
  act.rf_reads = st.rf_reads * scale;
  (tensor ? act.tensor_fma : act.ffma) = best.executed_fma;
  act.smem_bytes = st.smem_bytes * scale;
  // Global loads through L1 (LDG before sm_80; cp.async and TMA bypass it).
  act.l1_bytes = m.copy == CopyEngine::ldg_sts ? best.traffic.l2_read_bytes : 0;
  act.record(r);

  if (best.full.extrapolated)
    r.notes.push_back("steady state extrapolated after " + std::to_string(best.full.simulated_iterations) + " of " +
                      std::to_string(best.iterations) + " k-iterations (" + fmt("%.1f", best.full.period) +
                      " cycles each" + (best.full.steady ? ")" : ", period not fully stable)"));
  if (m.split_k > 1)
    r.notes.push_back("split-K " + std::to_string(m.split_k) + " with a separate reduction kernel" +
                      (plan.problem.split_k_init_kernel ? ", after a one-thread workspace set-up kernel" : ""));
  return r;
}

}  // namespace tcsim::gpu
