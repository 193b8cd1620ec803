#include "gpu/gemm/gemm_estimate.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "gpu/int_math.h"
#include "gpu/sm/cta_rounds.h"

namespace tcsim::gpu {
namespace {

// The L2's unit of a DRAM miss (see dram_activation_factor).
constexpr double kSectorBytes = 32;

// Bandwidth share quantised to ~2% steps so that near-identical problems share cache entries.
double quantise(double x) { return std::exp(std::round(std::log(std::max(x, 1e-9)) * 50.0) / 50.0); }

std::string cache_key(const GpuConfig& g, const GemmProblem& p, const Mapping& m, std::int64_t iters, int ctas,
                      const SmEnvironment& e) {
  char buf[320];
  // The efficiencies are part of the key: convolution kernels run with their own (conv_model.cpp).
  // So are the operands' layouts: the shared-memory wavefronts of the program depend on them (a
  // convolution's forward and data-gradient GEMMs can share every other field).
  std::snprintf(buf, sizeof buf, "%g|%g|%d|%d|%d|%d|%d|%d|%d|%d|%d|%d|%d|%d|%d|%.9g|%g|%g|%d|%d|%lld|%d|%.6g|%.6g",
                g.mma_efficiency, g.ffma_efficiency, int(m.path),
                m.mma_row, m.bm, m.bn, m.bk, m.wm, m.wn, m.warps, m.stages, int(m.split_k > 1), int(m.copy), m.pack, m.cluster,
                p.a_bytes, p.b_bytes, p.c_bytes, int(p.a_k_contiguous), int(p.b_k_contiguous),
                static_cast<long long>(iters), ctas, e.global_bytes_per_clk, e.global_latency);
  return std::string(buf) + "|" + std::to_string(m.slices) + "|" + std::to_string(int(store_fill(p, m) * 64)) + "|" +
         std::to_string(p.epilogue_smem_bytes) +
         "|" + std::to_string(p.epilogue_ops) + "|" + std::to_string(p.epilogue_read_bytes);
}

// Cycles per body iteration of the whole SM (every resident CTA advancing one k-tile), measured over
// the window [t0, t1) in which warp 0 of CTA 0 ran `window` iterations. CTA 0 is the fastest (GTO
// favours the oldest warps), so every other CTA is still in its loop during the window; counting
// the iterations all CTAs started in it gives the SM's rate. With one CTA, or CTAs that progress
// alike (LRR), this is CTA 0's own period; taking CTA 0's period alone would let the others' share
// of the tensor pipe vanish from the extrapolation.
double sm_period(const SmRunStats& s, double t0, double t1, std::int64_t window) {
  const std::size_t ctas = s.cta_iteration_start.size();
  double started = 0;
  for (const auto& st : s.cta_iteration_start)
    for (double t : st) started += (t >= t0 && t < t1) ? 1 : 0;
  if (ctas <= 1 || started <= 0) return (t1 - t0) / double(window);
  return (t1 - t0) * double(ctas) / started;
}

// Assembles the SM time of `iterations` k-tiles from a run of the program truncated to
// `stats`' iterations (n_sim), extrapolating the steady period measured over `window` of them.
SmTime assemble(const SmRunStats& stats, std::int64_t n_sim, const Mapping& m, std::int64_t iterations, int ctas,
                std::int64_t window) {
  SmTime r;
  r.stats = stats;
  r.simulated_iterations = n_sim;
  r.ctas = ctas;
  r.cycles = r.stats.cycles;
  if (n_sim < iterations) {
    const auto& st = r.stats.cta_iteration_start.front();  // CTA 0: the fastest under GTO
    const std::int64_t b = std::min<std::int64_t>(std::int64_t(st.size()) - 1, m.stages + 2 + window);
    const std::int64_t a = b - window;
    r.period = sm_period(r.stats, st[a], st[b], window);
    double worst = 0;
    for (std::int64_t i = a; i < b; ++i) worst = std::max(worst, std::abs((st[i + 1] - st[i]) - r.period));
    // Periodic with a short cycle (fractional issue intervals) counts as steady.
    r.steady = worst <= 0.1 * r.period + 2;
    r.extrapolated = true;
    r.cycles += double(iterations - n_sim) * r.period;
  }
  return r;
}

}  // namespace

double dram_activation_factor(const GpuConfig& g, double run_bytes) {
  // The L2 misses by 32-byte sectors, so a run moves its own sectors: shorter than the DRAM's access
  // granularity, the rest of each burst is unused (bus limit); and one row activation serves one
  // run, while a channel opens a row at most every tRRD, in which it could move `per_activation`
  // bytes (activation limit). NeuSight's V100 bmm rows whose K-contiguous fp32 operand (32-byte runs
  // per k-tile) dominates the traffic stream at 223-270 GB/s: 32 / 99 of the 828 GB/s achievable
  // (268 GB/s); counting a 32-byte run as a whole 64-byte access had given 530.
  // Beyond that rate limit, each run costs the channel `dram.run_overhead` bytes of bus time (a row
  // switch that the other banks do not hide): HBM3's linear streams (elementwise kernels, copies)
  // reach 0.90 of the peak on the H100 and H200 while GEMMs' and GEMVs' weight streams, rows read in
  // 128-512-byte runs, reach 0.77-0.89 (sim/gpu/README.md, "Short runs of a tile's rows").
  const double run = std::max(run_bytes, kSectorBytes);
  double f = std::min(1.0, run / std::max(run, g.dram_access_granularity));
  if (g.dram_activate_interval_s > 0) {
    const double per_activation = g.dram_bytes_per_s / g.dram_channels * g.dram_activate_interval_s;
    f = std::min(f, run / per_activation);
  }
  return f * run / (run + g.dram_run_overhead);
}

double dram_bytes_per_clk_for(const GpuConfig& g, const GemmProblem& p, const Mapping& m, const Traffic& t) {
  // Per k-tile a CTA reads, from each row of an operand, bk elements when K is that operand's
  // contiguous dimension, else a tile-wide run (bm or bn elements, continued by the neighbouring
  // CTAs). Thousands of rows are in flight across the GPU, so a DRAM row opened for one k-tile's
  // run is closed before the next k-tile returns to it: the run is what one activation serves.
  const double run_a = (p.a_k_contiguous ? m.bk : m.bm) * p.a_bytes;
  const double run_b = (p.b_k_contiguous ? m.bk : m.bn) * p.b_bytes;
  const double total = t.dram_read_bytes + t.dram_write_bytes;
  const double other = std::max(0.0, t.dram_read_bytes - t.dram_a_bytes - t.dram_b_bytes) + t.dram_write_bytes;
  const double busy = t.dram_a_bytes / dram_activation_factor(g, run_a) +
                      t.dram_b_bytes / dram_activation_factor(g, run_b) + other;
  return g.dram_bytes_per_clk() * g.dram_efficiency * total / std::max(busy, 1.0);
}

SmRunStats SmTimeCache::run(const GpuConfig& g, const GemmProblem& p, const Mapping& m, std::int64_t n_sim, int ctas,
                             int total, const SmEnvironment& env) {
  // Keyed by the simulated length, not the loop's: the program of every K loop at least n_sim
  // k-tiles long is the same (mapping.cpp), so GEMMs that differ only in K share one run.
  std::string key = cache_key(g, p, m, n_sim, ctas, env);
  if (total != ctas) key += "|relay " + std::to_string(total);
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = runs_.find(key);
    if (it != runs_.end()) {
      ++hits_;
      return it->second;
    }
  }
  // Simulated outside the lock: other threads' lookups go on meanwhile.
  SmRunStats stats = simulate_sm(g, build_program(g, p, m, n_sim), m.warps, ctas, env, total);
  std::lock_guard<std::mutex> lock(mu_);
  runs_.emplace(key, stats);
  return stats;
}

SmTime SmTimeCache::get(const GpuConfig& g, const GemmProblem& p, const Mapping& m, std::int64_t iterations, int ctas,
                        const SmEnvironment& env) {
  // Long K loops: simulate enough iterations to fill and drain the pipeline plus a window in which
  // to measure the steady-state period, then extrapolate the rest.
  auto windowed = [&](std::int64_t window) {
    const std::int64_t n_sim = std::min<std::int64_t>(iterations, m.stages + 4 + window);
    return assemble(run(g, p, m, n_sim, ctas, ctas, env), n_sim, m, iterations, ctas, window);
  };
  SmTime r = windowed(8);
  // An unsteady schedule (several CTAs taking turns unevenly, as cp.async SIMT loops with 3-4 CTAs
  // per SM do) makes an 8-iteration window land on a burst: the A100 sgemm 128x64 tile measured
  // 107.8% of the FFMA pipe's rate over 8 iterations, 99.4% over 64. Measure such loops over 64.
  if (!r.steady && r.simulated_iterations < iterations) r = windowed(64);
  return r;
}

double SmTimeCache::relay_cycles(const GpuConfig& g, const GemmProblem& p, const Mapping& m, std::int64_t iterations,
                                 int ctas, int total, const SmEnvironment& env) {
  // Long enough to fill the pipeline and start the loop: the overlap is at the ends.
  return run(g, p, m, std::min<std::int64_t>(iterations, m.stages + 4), ctas, total, env).cycles;
}

std::size_t SmTimeCache::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return runs_.size();
}

bool l2_resident(const GpuConfig& g, const GemmProblem& p) {
  // The operands as stored (an implicit GEMM's activation tensor, not its im2col matrix) and D.
  const double batch = double(p.batch);
  const double A = p.a_stored_bytes(), B = p.b_stored_bytes();
  const double outputs = batch * double(p.m) * double(p.n);
  return g.l2_holds(batch * (A + B) + outputs * p.epilogue_read_bytes, outputs * p.c_bytes);
}

Traffic estimate_traffic(const GpuConfig& g, const GemmProblem& p, const Mapping& m, int cps) {
  Traffic t;
  const std::int64_t gm = ceil_div(p.m, m.bm), gn = ceil_div(p.n, m.bn);
  const double batch = double(p.batch);
  const double K = double(p.k);
  // Operand bytes in memory (an implicit GEMM's activation tensor, not its im2col matrix).
  const double A = p.a_stored_bytes(), B = p.b_stored_bytes();
  const double l2_a = batch * double(gm) * double(gn) * m.bm * p.a_bytes * K;
  const double l2_b = batch * double(gm) * double(gn) * m.bn * p.b_bytes / m.cluster * K;
  t.l2_read_bytes = l2_a + l2_b;
  // Waves of concurrently running CTAs. A wave reads the A rows and B columns it touches; an operand
  // small enough to stay in L2 is read once. The order: M-fastest (blockIdx.x along M), except for
  // sm_90's persistent TMA kernels, whose tile scheduler walks the dimension with fewer tiles first
  // (CUTLASS's PersistentTileSchedulerSm90, RasterOrderOptions::Heuristic: along M when the N tiles
  // outnumber the M tiles, else along N), so a wave spans the short side and reads the long side's
  // operand once.
  const double wave = double(g.sm_count) * cps / std::max(1, m.split_k);
  const bool along_n = m.copy == CopyEngine::tma && gn <= gm;
  const double rows = along_n ? std::min<double>(double(gm), std::ceil(wave / double(gn)))
                              : std::min<double>(double(gm), wave);
  const double cols = along_n ? std::min<double>(double(gn), wave)
                              : std::min<double>(double(gn), std::ceil(wave / double(gm)));
  const double waves = std::ceil(double(gm) * double(gn) * batch / wave);
  const double half_l2 = double(g.l2_size) / 2;
  // A wave's rows of an implicit GEMM's im2col operand come from a footprint-sized share of the tensor.
  const double fa = A / (double(p.m) * K * p.a_bytes), fb = B / (K * double(p.n) * p.b_bytes);
  const double dram_a =
      A <= half_l2 ? A * batch : std::min(A * batch * double(gn), waves * rows * m.bm * p.a_bytes * K * fa);
  const double dram_b =
      B <= half_l2 ? B * batch : std::min(B * batch * double(gm), waves * cols * m.bn * p.b_bytes * K * fb);
  t.dram_read_bytes = std::clamp(dram_a + dram_b, batch * (A + B), std::max(t.l2_read_bytes, batch * (A + B)));
  const double scale = t.dram_read_bytes / std::max(dram_a + dram_b, 1.0);
  t.dram_a_bytes = dram_a * scale;
  t.dram_b_bytes = dram_b * scale;
  t.dram_write_bytes = batch * double(p.m) * double(p.n) * p.c_bytes;
  // An epilogue's residual (GemmProblem::epilogue_read_bytes): each output's once, where it is stored.
  const double residual = batch * double(p.m) * double(p.n) * p.epilogue_read_bytes;
  t.l2_read_bytes += residual;
  t.dram_read_bytes += residual;
  // Back-to-back calls whose operands fit in L2 find them there: no DRAM reads. The output is
  // still counted as written to DRAM (write-back on eviction; small next to the reads at small N).
  if (p.l2_warm && l2_resident(g, p)) t.dram_read_bytes = t.dram_a_bytes = t.dram_b_bytes = 0;
  // A wave's `cols` CTAs share each A row tile it reads, its `rows` CTAs each B column tile.
  const double stage_a = l2_a > 0 ? std::min(1.0, t.dram_a_bytes * cols / l2_a) : 0.0;
  const double stage_b = l2_b > 0 ? std::min(1.0, t.dram_b_bytes * rows / l2_b) : 0.0;
  t.stage_dram_share = std::max(stage_a, stage_b);
  return t;
}

namespace {

// What estimate() knows before simulating: the grid, the traffic, this SM's environment, and the
// cycles below which the whole GPU's DRAM and L2 bandwidth cannot go (`floor_cycles`).
struct Prepared {
  Estimate e;
  std::int64_t per_sm = 0;  // CTAs on the busiest SM
  double dram_bpc = 0;      // achievable DRAM bytes per clock (the split-K reduction streams at it)
  double gpu_bpc = 0;       // the whole GPU's L2 or DRAM-backed bytes per clock, shared by the running CTAs
  double floor_cycles = 0;
};

Prepared prepare(const GpuConfig& g, const GemmProblem& p, const Mapping& m) {
  Prepared r;
  Estimate& e = r.e;
  e.mapping = m;
  const std::int64_t gm = ceil_div(p.m, m.bm), gn = ceil_div(p.n, m.bn);
  const std::int64_t tiles_mn = gm * gn * p.batch;
  e.tiles = tiles_mn * m.split_k;
  const std::int64_t k_per = ceil_div(p.k, m.split_k);
  e.iterations = ceil_div(k_per, m.bk);
  e.ctas_per_sm = ctas_per_sm(g, m);
  r.per_sm = ceil_div(e.tiles, g.sm_count);
  e.active_sms = int(std::min<std::int64_t>(g.sm_count, e.tiles));
  e.waves = double(e.tiles) / (double(g.sm_count) * e.ctas_per_sm);
  e.traffic = estimate_traffic(g, p, m, e.ctas_per_sm);
  e.executed_fma = double(e.tiles) * m.bm * m.bn * double(e.iterations) * m.bk;

  // This SM's share of the bandwidth: L2 split over the busy SMs, and DRAM amplified by the L2 hits.
  const double l2_bpc = g.l2_bytes_per_clk * g.l2_efficiency;
  const double dram_total = e.traffic.dram_read_bytes + e.traffic.dram_write_bytes;
  // The SM's share uses the streaming rate; the row-activation limit of short per-row runs caps
  // the whole GPU's DRAM time below (it throttles the channels, not one SM's queue).
  r.dram_bpc = g.dram_bytes_per_clk() * g.dram_efficiency;
  const double dram_bpc_layout = dram_bytes_per_clk_for(g, p, m, e.traffic);
  const double l2_total = e.traffic.l2_read_bytes + e.traffic.dram_write_bytes;
  const double amplification = l2_total / std::max(dram_total, 1.0);
  r.gpu_bpc = std::min(l2_bpc, r.dram_bpc * amplification);
  e.env.global_bytes_per_clk = quantise(r.gpu_bpc / e.active_sms);
  // The pipeline waits per stage for its slower operand (Traffic::stage_dram_share); the byte share
  // of misses (one reader's request of a shared tile missing, the others hitting) made a lone CTA's
  // stages wait the L2 hit latency while the tile it waits on streams from DRAM (session 48).
  const double hit_latency = g.l2_hit_latency();
  e.env.global_latency =
      std::round(hit_latency + e.traffic.stage_dram_share * std::max(0.0, g.dram_latency - hit_latency));
  // No SM can beat the whole GPU's DRAM and L2 bandwidth.
  r.floor_cycles = std::max(dram_total > 0 ? dram_total / dram_bpc_layout : 0.0, l2_total / l2_bpc);
  return r;
}

// The split-K reduction kernel and the launch overheads: added to the main kernel's cycles.
void finish(const GpuConfig& g, const GemmProblem& p, const Mapping& m, const Prepared& r, Estimate& e, double cycles) {
  e.launches = 1;
  if (m.split_k > 1) {
    // cuBLAS reduces split-K partials (fp32) in a second kernel that streams them from DRAM.
    const double partial = double(m.split_k) * double(p.m) * double(p.n) * double(p.batch) * 4.0;
    const double red_bytes = partial + double(p.m) * double(p.n) * double(p.batch) * p.c_bytes;
    cycles += red_bytes / r.dram_bpc + g.dram_latency;
    e.traffic.dram_write_bytes += partial;
    e.traffic.dram_read_bytes += partial;
    e.launches = 2;
    // The library's one-thread workspace set-up kernel (GemmProblem::split_k_init_kernel): a launch
    // that does no work the model counts, so it costs the per-kernel floor.
    if (p.split_k_init_kernel) e.launches = 3;
  }
  e.cycles = cycles;
  e.time_s = cycles / g.clock_hz + e.launches * g.launch_overhead_s;
}

// MACs one sub-core's math pipe completes per cycle of occupancy at best (sm_sim.cpp's pipes).
double pipe_fma_per_cycle(const GpuConfig& g, const Mapping& m) {
  if (m.path == MathPath::cuda_core) return g.fp32_lanes_per_subcore * m.pack * g.ffma_efficiency;
  const MmaInstr& row = g.mma[m.mma_row];
  const bool wg = row.kind == MmaKind::wgmma;
  const int n = wg ? m.wn : row.n;
  const double per = row.pipe_cycles(n) / g.mma_efficiency;
  return row.fma() * (double(n) / row.n) / (wg ? g.subcores_per_sm : 1) / per;
}

}  // namespace

double time_lower_bound_s(const GpuConfig& g, const GemmProblem& p, const Mapping& m) {
  Prepared r = prepare(g, p, m);
  // The busiest SM's MACs (tile padding included) at its pipes' peak, spread over every sub-core.
  const double macs = double(r.per_sm) * m.bm * m.bn * double(r.e.iterations) * m.bk;
  const double math = macs / (pipe_fma_per_cycle(g, m) * g.subcores_per_sm);
  finish(g, p, m, r, r.e, std::max(math, r.floor_cycles));
  return r.e.time_s;
}

Estimate estimate(const GpuConfig& g, const GemmProblem& p, const Mapping& m, SmTimeCache& cache) {
  Prepared prep = prepare(g, p, m);
  Estimate& e = prep.e;
  const std::int64_t per_sm = prep.per_sm;
  const int cps = e.ctas_per_sm;
  const std::int64_t full = per_sm / cps, rem = per_sm % cps;
  // A round's CTAs share the GPU's bandwidth by their number: the busiest SM, holding n of the
  // round's running CTAs (running_ctas), gets n / running of it (the memory system serves requests,
  // and an SM with two CTAs has twice the requests in flight; memory_kernel.cpp's rounds do the
  // same): 126 CTAs on 58 SMs of 2 slots run 116, then 10 that share what the 116 shared.
  auto round_env = [&](std::int64_t round, int n) {
    SmEnvironment env = e.env;
    const double running = running_ctas(double(e.tiles), double(g.sm_count) * cps, round, n);
    env.global_bytes_per_clk = quantise(prep.gpu_bpc * double(n) / running);
    return env;
  };
  double cycles = 0;
  if (full > 0) {
    // Rounds before the last full one hold a whole wave (e.env); a single full round is the last.
    const SmEnvironment last = round_env(full - 1, cps);
    if (full == 1) e.env = last;
    e.full = cache.get(g, p, m, e.iterations, cps, e.env);
    cycles += double(full - 1) * e.full.cycles + cache.get(g, p, m, e.iterations, cps, last).cycles;
  }
  if (rem > 0) {
    const SmEnvironment tail = round_env(full, int(rem));
    SmTime part = cache.get(g, p, m, e.iterations, int(rem), tail);
    if (full == 0) e.full = part, e.env = tail;
    cycles += part.cycles;
  }
  // Rounds are not separate: the CTA scheduler refills a slot as soon as its CTA retires, so a
  // round's prologue (its first loads' latency) overlaps the previous round's epilogue (its stores
  // draining) and the other slots' work. What each further round saves is measured on the truncated
  // program, relayed through the slots against run alone; skipped where the part outside the
  // steady loop is under 2% of a round (long K loops), which keeps big GEMMs' cost as it was.
  const double outside = e.full.extrapolated ? e.full.stats.cycles - double(e.full.simulated_iterations) * e.full.period
                                             : e.full.cycles;
  if ((full > 1 || (full > 0 && rem > 0)) && outside > 0.02 * e.full.cycles) {
    const double one = cache.relay_cycles(g, p, m, e.iterations, cps, cps, e.env);
    if (full > 1)
      e.overlap_cycles += double(full - 1) * std::max(0.0, 2 * one - cache.relay_cycles(g, p, m, e.iterations, cps, 2 * cps, e.env));
    if (rem > 0) {
      const double rest = cache.relay_cycles(g, p, m, e.iterations, int(rem), int(rem), e.env);
      e.overlap_cycles += std::max(0.0, one + rest - cache.relay_cycles(g, p, m, e.iterations, cps, cps + int(rem), e.env));
    }
    cycles -= e.overlap_cycles;
  }
  cycles += double(full + (rem > 0)) * g.tile_overhead_cycles;
  finish(g, p, m, prep, e, std::max(cycles, prep.floor_cycles));
  return e;
}

}  // namespace tcsim::gpu
