#include "gpu/attention/attention_estimate.h"

#include "gpu/power/activity.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <queue>
#include <vector>

#include "gpu/attention/attention_plan.h"
#include "gpu/attention/attention_program.h"
#include "gpu/sm/sm_sim.h"

namespace tcsim::gpu {

bool AttentionSmCache::find(const std::string& key, double& cycles, double& period) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = map_.find(key);
  if (it == map_.end()) return false;
  cycles = it->second.first, period = it->second.second;
  return true;
}

void AttentionSmCache::put(const std::string& key, double cycles, double period) {
  std::lock_guard<std::mutex> lock(mu_);
  map_.emplace(key, std::make_pair(cycles, period));
}

namespace {

// Loops up to this long are simulated whole; longer ones for this many iterations, the period of
// the last kWindow extrapolated.
constexpr std::int64_t kExact = 12;
constexpr std::int64_t kWindow = 8;

double quantise(double x) { return std::exp(std::round(std::log(std::max(x, 1e-9)) * 50.0) / 50.0); }

struct SmRun {
  double cycles = 0;  // one round of `ctas` resident CTAs, each running `iterations`
  double period = 0;  // SM cycles per iteration of every resident CTA (steady state), 0 if exact
};

SmRun simulate(const GpuConfig& g, const AttentionPlan& p, std::int64_t iterations, int ctas, const SmEnvironment& env,
               AttentionSmCache& cache) {
  const std::int64_t n = std::min(iterations, kExact);
  char key[320];
  std::snprintf(key, sizeof key, "%s|%g|%lld|%d|%.6g|%.6g", p.describe().c_str(), p.elem_bytes,
                static_cast<long long>(n), ctas, env.global_bytes_per_clk, env.global_latency);
  SmRun r;
  if (!cache.find(key, r.cycles, r.period)) {
    const SmRunStats st = simulate_sm(g, build_attention_program(g, p, n), p.warps, ctas, env);
    r.cycles = st.cycles;
    if (n == kExact && !st.cta_iteration_start.empty()) {
      // The SM's rate over the window in which CTA 0 (the fastest under GTO) ran kWindow
      // iterations: the iterations every CTA started in it (as gemm_estimate.cpp).
      const auto& s0 = st.cta_iteration_start.front();
      const std::int64_t b = std::min<std::int64_t>(std::int64_t(s0.size()) - 1, kExact - 1);
      const std::int64_t a = std::max<std::int64_t>(0, b - kWindow);
      double started = 0;
      for (const auto& cta : st.cta_iteration_start)
        for (double t : cta) started += (t >= s0[a] && t < s0[b]) ? 1 : 0;
      r.period = started > 0 && b > a ? (s0[b] - s0[a]) * double(st.cta_iteration_start.size()) / started : 0;
    }
    cache.put(key, r.cycles, r.period);
  }
  return r;
}

std::string fmt(const char* f, double v) {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

}  // namespace

KernelResult estimate_attention(const GpuConfig& g, const Kernel& k, AttentionSmCache& cache, bool allow_fa3) {
  const AttentionPlan p = plan_attention(g, k, allow_fa3);
  const AttentionShape& a = k.attention;
  const bool bwd = p.algo == AttentionAlgo::fa2_backward;
  const double b = p.elem_bytes, d = double(a.head_dim);
  const double B = double(a.batch), H = double(a.heads), Hkv = double(a.kv_heads);

  // CTAs of one (batch, head) in launch order (blockIdx.x fastest) with their loop lengths; the
  // grid repeats this pattern for every (batch, head).
  std::vector<std::int64_t> pattern;
  if (bwd) {
    for (std::int64_t kb = 0; kb < p.row_blocks; ++kb) pattern.push_back(attention_q_tiles(a, p, kb));
  } else {
    for (int s = 0; s < p.splits; ++s)
      for (std::int64_t qb = 0; qb < p.row_blocks; ++qb) pattern.push_back(attention_kv_tiles(a, p, qb, s));
  }
  if (p.algo == AttentionAlgo::fa3_forward && a.causal)
    std::sort(pattern.begin(), pattern.end(), std::greater<>());  // FA3 schedules the longest query blocks first
  const std::int64_t heads_grid = std::int64_t(a.batch) * p.heads_launched;
  const double ctas = double(pattern.size()) * double(heads_grid);
  double tile_iters = 0;
  for (auto n : pattern) tile_iters += double(n);
  tile_iters *= double(heads_grid);
  const std::int64_t max_iters = pattern.empty() ? 0 : *std::max_element(pattern.begin(), pattern.end());

  // Traffic. L2 serves every CTA's tiles; DRAM the unique tensors, unless the K/V of the heads in
  // flight do not fit in half the L2 (then every CTA's K/V tiles miss).
  // Query rows of the whole call (forward: after GQA packing; backward: the grid runs over keys).
  const double rows_total = bwd ? B * H * double(a.q_len) : B * double(p.heads_launched) * double(p.rows);
  const double q_bytes = rows_total * d * b;
  const double kv_unique = 2.0 * B * Hkv * double(a.kv_len) * d * b;
  double l2_read = 0, dram_read = 0, dram_write = 0, l2_write = 0;
  const double slots_all = double(g.sm_count) * p.ctas_per_sm;
  const double ctas_per_head = double(pattern.size()) * (p.packed_gqa ? 1.0 : double(a.heads / a.kv_heads));
  const double heads_in_flight = std::ceil(std::min(ctas, slots_all) / std::max(1.0, ctas_per_head));
  const double kv_head_bytes = 2.0 * double(a.kv_len) * d * b;
  const bool kv_fits = std::min(heads_in_flight, B * Hkv) * kv_head_bytes <= double(g.l2_size) / 2;
  if (bwd) {
    const double kv_l2 = ctas * 2.0 * p.bc * d * b;  // K and V of the CTA's key block, once
    const double q_l2 = tile_iters * (2.0 * p.br * d * b + 2.0 * p.br * 4);
    l2_read = kv_l2 + q_l2;
    dram_read = kv_unique + 2.0 * q_bytes + 2.0 * rows_total * 4;  // K, V (shared by a group in L2); Q, dO; LSE, D
    l2_write = tile_iters * p.br * d * 4.0;                                 // dQ atomics (fp32) at the L2
    dram_write = 2.0 * B * H * double(a.kv_len) * d * b + rows_total * d * 4;  // dK, dV; dQ accumulator
  } else {
    const double kv_l2 = tile_iters * 2.0 * p.bc * d * b;
    l2_read = kv_l2 + q_bytes * p.splits;
    dram_read = q_bytes + (kv_fits ? kv_unique : kv_l2);
    dram_write = p.splits > 1 ? double(p.splits) * rows_total * (d * 4 + 4) : q_bytes + rows_total * 4;
  }
  const double l2_bpc = g.l2_bytes_per_clk * g.l2_efficiency;
  const double dram_bpc = g.dram_bytes_per_clk() * g.dram_efficiency;
  const double l2_total = l2_read + l2_write + dram_write;
  const double dram_total = dram_read + dram_write;
  // Bandwidth: every running CTA gets an equal share of min(L2, DRAM x L2 reuse); an SM's share is
  // its CTAs' (the limit is in the memory system, not in one SM's queue).
  const double bw = std::min(l2_bpc, dram_bpc * l2_total / std::max(dram_total, 1.0));
  SmEnvironment env;
  const double miss = std::clamp(dram_read / std::max(l2_read, 1.0), 0.0, 1.0);
  env.global_latency = std::round(g.l2_hit_latency() + miss * std::max(0.0, g.dram_latency - g.l2_hit_latency()));
  env.global_bytes_per_clk = quantise(bw / std::min(ctas, slots_all) * p.ctas_per_sm);

  bool extrapolated = false;
  double period = 0;
  // Cycles of a CTA with `iters` loop iterations that shares its SM with n - 1 others, each CTA
  // getting 1/concurrent of the bandwidth.
  auto cta_cycles = [&](std::int64_t iters, int n, double concurrent) {
    SmEnvironment e = env;
    e.global_bytes_per_clk = quantise(bw / concurrent * n);
    const SmRun r = simulate(g, p, iters, n, e, cache);
    if (iters <= kExact || r.period <= 0) return r.cycles;
    extrapolated = true;
    period = r.period;
    return r.cycles + double(iters - kExact) * r.period;
  };
  // List scheduling over the CTA slots in launch order: each CTA starts on the slot that frees
  // first. A CTA runs among as many co-resident CTAs as the CTAs still to start fill per SM
  // (all slots while at least a full wave remains, fewer in the last partial wave, where each gets
  // more of the bandwidth; exact for waves of equal CTAs, optimistic for a staggered tail). The
  // concurrency is rounded up to a grid of anchor / 2^(level/2) to bound the number of SM
  // simulations. The grid is anchored at the last wave's CTA count, so the first CTA of that wave,
  // the slowest, runs at its exact concurrency: a grid anchored at the slots rounded a 192-CTA
  // wave on 264 slots up to 264 and made a 132-SM H100 slower than a 99-SM one.
  std::priority_queue<double, std::vector<double>, std::greater<>> free_at;
  for (double s = 0; s < std::min(slots_all, ctas); ++s) free_at.push(0.0);
  std::map<std::pair<std::int64_t, int>, double> memo;  // (iterations, tail level) -> cycles
  const double tail = std::fmod(ctas, slots_all);  // CTAs of the last, partial wave (0: whole waves)
  const double last_wave = ctas <= slots_all ? ctas : tail > 0 ? tail : slots_all;
  auto grid = [&](int level) { return std::min(slots_all, last_wave / std::pow(2.0, level / 2.0)); };
  double makespan = 0, remaining = ctas;
  for (std::int64_t h = 0; h < heads_grid; ++h)
    for (std::size_t i = 0; i < pattern.size(); ++i, remaining -= 1) {
      int level = 0;  // the smallest grid(level) >= remaining (negative levels lie above the last wave)
      while (level > -40 && grid(level) < std::min(remaining, slots_all)) --level;
      while (level < 40 && grid(level + 1) >= remaining) ++level;
      const double concurrent = std::max(1.0, grid(level));
      auto it = memo.find({pattern[i], level});
      if (it == memo.end()) {
        const int n = int(std::clamp(std::ceil(concurrent / g.sm_count), 1.0, double(p.ctas_per_sm)));
        it = memo.emplace(std::make_pair(pattern[i], level), cta_cycles(pattern[i], n, concurrent)).first;
      }
      const double start = free_at.top();
      free_at.pop();
      makespan = std::max(makespan, start + it->second);
      free_at.push(start + it->second);
    }
  double cycles = std::max({makespan, dram_total / dram_bpc, l2_total / l2_bpc});
  const double main_cycles = cycles;
  // Extra kernels, streaming from DRAM: the split-KV combine (partial O and LSE in, O out); the
  // backward's preprocessing (O and dO in, D = rowsum(dO∘O) out, dQ accumulator zeroed) and its
  // dQ conversion (fp32 accumulator in, dQ out).
  double extra_read = 0, extra_write = 0;
  if (p.algo == AttentionAlgo::fa2_split_kv && p.splits > 1) {
    extra_read = double(p.splits) * rows_total * (d * 4 + 4);
    extra_write = q_bytes;
    cycles += (extra_read + extra_write) / dram_bpc + g.dram_latency;
  }
  if (bwd) {
    cycles += (2.0 * q_bytes + rows_total * 4 + rows_total * d * 4) / dram_bpc + g.dram_latency;
    cycles += (rows_total * d * 4 + q_bytes) / dram_bpc + g.dram_latency;
    extra_read = 2.0 * q_bytes + rows_total * d * 4;
    extra_write = rows_total * 4 + rows_total * d * 4 + q_bytes;
  }

  KernelResult r;
  r.name = k.name;
  r.flops = k.flops();
  r.cycles = cycles;
  r.time_s = cycles / g.clock_hz + p.launches * g.launch_overhead_s;
  r.mapping = p.describe() + (p.algo == AttentionAlgo::fa3_forward ? ", TMA + wgmma" : ", cp.async + mma.sync");
  r.notes = p.notes;

  // Utilisation over the main kernel's cycles.
  const AttentionIterationWork wk = attention_iteration_work(g, p);
  const double cyc = std::max(main_cycles, 1.0) * g.sm_count;
  const MmaInstr& row = g.mma[p.mma_row];
  const double row_peak = row.fma() / row.pipe_cycles(row.n) / (row.kind == MmaKind::wgmma ? g.subcores_per_sm : 1) *
                          g.subcores_per_sm;
  const double gpu_peak = g.peak_tensor_fma_per_clk(k.a_format, FormatId::fp32);
  const double tensor_fma = tile_iters * wk.tensor_fma;
  const double fp32_util = tile_iters * wk.fp32_instr * 32 / (g.peak_ffma_per_clk() * cyc);
  const double sfu_util = tile_iters * wk.mufu_instr * 32 / (double(g.sfu_lanes_per_subcore) * g.subcores_per_sm * cyc);
  const double smem_bytes = tile_iters * wk.smem_bytes;
  const double smem_util = smem_bytes / (g.smem_bytes_per_clk * cyc);
  const double l2_util = l2_total / (g.l2_bytes_per_clk * std::max(main_cycles, 1.0));
  const double dram_util = dram_total / (g.dram_bytes_per_clk() * std::max(main_cycles, 1.0));
  struct Cand {
    const char* name;
    double frac;
  };
  const Cand cands[] = {{"tensor", tensor_fma / (row_peak * cyc) * g.mma_efficiency},
                        {"cuda_core", fp32_util},
                        {"sfu", sfu_util},
                        {"shared_memory", smem_util},
                        {"l2", l2_util / g.l2_efficiency},
                        {"dram", dram_util / g.dram_efficiency}};
  const Cand* top = &cands[0];
  for (const auto& c : cands)
    if (c.frac > top->frac) top = &c;
  r.bound = top->frac >= 0.7 ? top->name : "latency";

  r.set("tensor_util_pct", 100 * tensor_fma / (gpu_peak * cyc));
  r.set("cuda_core_util_pct", 100 * fp32_util);
  r.set("sfu_util_pct", 100 * sfu_util);
  r.set("smem_util_pct", 100 * smem_util);
  r.set("l2_util_pct", 100 * l2_util);
  r.set("dram_util_pct", 100 * dram_util);
  r.set("smem_bytes", smem_bytes);
  r.set("l2_read_bytes", l2_read);
  r.set("l2_write_bytes", l2_write + dram_write);
  r.set("dram_read_bytes", dram_read + extra_read);  // all kernels of the call
  r.set("dram_write_bytes", dram_write + extra_write);
  r.set("ctas", ctas);
  r.set("ctas_per_sm", p.ctas_per_sm);
  r.set("waves", ctas / slots_all);
  r.set("kv_splits", p.splits);
  r.set("tile_iterations", tile_iters);
  r.set("sm_bandwidth_share_bytes_per_clk", env.global_bytes_per_clk);
  r.set("global_latency_cycles", env.global_latency);
  r.set_launches(p.launches, g.launch_overhead_s);
  // Events for the energy model. Register reads are estimated per instruction, not counted by the
  // attention program: 2 sources per FP32-pipe instruction, 1 per MUFU, and per SASS MMA its A, B
  // and C fragments (m x k + k x n + m x n elements over 32 lanes, 2 fp16 per register).
  Activity act;
  const double mma_sass = tensor_fma / row.fma() * row.sass_count;
  const double mma_regs = (double(row.m) * row.k + double(row.k) * row.n) / 64.0 + double(row.m) * row.n / 32.0;
  act.tensor_fma = tensor_fma;
  act.ffma = tile_iters * wk.fp32_instr * 32;
  act.mufu = tile_iters * wk.mufu_instr * 32;
  act.smem_bytes = smem_bytes;
  act.warp_instructions = tile_iters * (wk.fp32_instr + wk.mufu_instr) + smem_bytes / 512.0;
  act.rf_reads = tile_iters * (2 * wk.fp32_instr + wk.mufu_instr) +
                 (row.kind == MmaKind::wgmma ? 0.0 : mma_sass / row.sass_count * mma_regs);
  act.record(r);
  if (extrapolated)
    r.notes.push_back("steady state extrapolated after " + std::to_string(kExact) + " of up to " +
                      std::to_string(max_iters) + " tile iterations (" + fmt("%.1f", period) + " SM cycles each)");
  if (a.causal && !bwd && !p.packed_gqa && p.skips_masked_tiles) r.notes.push_back("causal: fully masked key tiles skipped");
  if (p.splits > 1)
    r.notes.push_back("split-KV " + std::to_string(p.splits) + " with a combine kernel (flash-decoding)");
  if (!kv_fits && !bwd) r.notes.push_back("K/V of the heads in flight exceed half the L2: K/V tiles re-read from DRAM");
  return r;
}

}  // namespace tcsim::gpu
