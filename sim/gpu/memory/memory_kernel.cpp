#include "gpu/memory/memory_kernel.h"

#include <algorithm>
#include <cmath>

#include "common/text/strings.h"
#include "gpu/memory/memory_launch.h"
#include "gpu/memory/warp_queue.h"
#include "gpu/sm/cta_rounds.h"
#include "gpu/sm/l1_carveout.h"
#include "gpu/power/activity.h"

namespace tcsim::gpu {
namespace {

// Cycles of one reduction step (a warp shuffle or a shared-memory exchange): both go through the
// SM's shared-memory/crossbar datapath; costed at shared_memory.latency [assumed, no shuffle
// microbenchmark in timing.md]. A warp reduction is log2(32) = 5 steps; a CTA-wide one is a warp
// reduction, a barrier and shared-memory exchange, and a second warp reduction: 12 steps.
constexpr double kWarpReductionSteps = 5;
constexpr double kBlockReductionSteps = 12;

}  // namespace

KernelResult run_memory_kernel(const GpuConfig& g, const Kernel& k) {
  const MemoryLaunch l = memory_launch(g, k);
  KernelResult r;
  r.name = k.name;
  r.flops = k.flops();
  r.mapping = l.kernel;

  // Occupancy and rounds of resident CTAs on the busiest SM.
  CtaRounds cr = cta_rounds(g, l.threads_per_cta, l.ctas);
  if (l.max_resident > 0 && cr.resident > l.max_resident) {
    cr.resident = l.max_resident;
    cr.rounds = (cr.per_sm + cr.resident - 1) / cr.resident;
  }
  const auto [warps_per_cta, occupancy, ctas_per_sm, resident, rounds] = cr;
  const double active_sms = double(std::min<std::int64_t>(l.ctas, g.sm_count));

  // Where the data lives: an op timed back to back keeps a footprint that fits in L2 there
  // (the L2 is write-back: the outputs stay too), so it runs at L2 bandwidth and hit latency;
  // not a cold one (MemoryShape::cold: a step's parameters come from DRAM), nor one that follows a
  // write of more than the L2 holds (MemoryShape::evicted_bytes: a benchmark's flush).
  // Far-partition copies count (GpuConfig::l2_holds; A100: 2 partitions, an elementwise add stays
  // warm up to 30 MB, not 40 MB). Inputs other kernels evicted (MemoryShape::cold_read_bytes) stream
  // from DRAM through the L2 and need not stay: the rest decides. Their trips keep the L2's latency:
  // the H200's one-token residual add measures 0.22 us over the empty kernel, an L2 trip and the
  // store, not a DRAM trip (validation/measured/H200/vidur_layer; sim/gpu/README.md).
  const double bytes_read = double(k.bytes_read), bytes_written = double(k.bytes_written);
  const double bytes = bytes_read + bytes_written;
  const double read_copies = g.l2_read_copies();
  const double cold_read = std::min(k.memory.cold_read_bytes, bytes_read);
  const bool l2_resident = !k.memory.cold && k.memory.evicted_bytes < double(g.l2_size) &&
                           g.l2_holds(bytes_read - cold_read, bytes_written);
  const double mem_latency = l2_resident ? g.l2_hit_latency() : g.dram_latency;

  // Second passes over a row come from L1 while the rows of the resident CTAs fit there (LRU
  // reuse distance: the other resident CTAs' rows enter in between), else from L2 for the lines
  // whose reuse distance fits there, else again from where the data lives.
  // Only the re-read share of the input counts towards what must stay (the gradient of softmax
  // re-reads dY; Y is read once), unless that share is part of each row: then the whole input
  // entered the caches between a line's two reads (MemoryLaunch::reread_after_whole_input). L1 is
  // what the resident CTAs' shared memory leaves of the unified L1.
  // The reuse distance in L2: what all resident CTAs read (with far-partition copies) between a
  // line's reads, and in the last pass, the one that writes, the outputs written so far: a line a
  // fraction x into the row sees x of the resident CTAs' written rows. So the passes before the
  // last hit while the rows read fit, and the last pass hits up to the x where the writes fill the
  // rest: the re-reads leave L2 gradually as the resident rows grow (more SMs, longer rows), not
  // all at once.
  const double span_share = l.reread_after_whole_input ? 1.0 : l.reread_share;
  const double cta_read = bytes_read / double(l.ctas) * span_share, cta_written = bytes_written / double(l.ctas);
  const double resident_rows = double(resident) * cta_read;
  const double l1_cache = l1_cache_bytes(g, l.shared_memory_bytes, resident);
  const double resident_gpu_wide = double(resident) * active_sms;  // CTAs resident on all active SMs
  const double rows_read_span = resident_gpu_wide * cta_read * read_copies;
  const double rows_written_span = resident_gpu_wide * cta_written;
  const bool reread_in_l1 = l.reread_passes == 0 || resident_rows <= l1_cache;
  const double l2_size = double(g.l2_size);
  // The share of the re-read bytes that misses L2 (0 in L1 or in an L2-resident footprint).
  double reread_miss = 0;
  if (!reread_in_l1 && !l2_resident) {
    const double early_miss = rows_read_span > l2_size ? 1.0 : 0.0;
    const double last_miss =
        rows_written_span > 0 ? std::clamp((rows_read_span + rows_written_span - l2_size) / rows_written_span, 0.0, 1.0)
                              : early_miss;
    reread_miss = (double(l.reread_passes - 1) * early_miss + last_miss) / double(l.reread_passes);
  }
  const double reread_bytes = bytes_read * l.reread_share * l.reread_passes;
  // A re-read trip waits for its slowest line: the share of trips over missing lines waits for
  // where the data lives.
  const double reread_latency =
      reread_in_l1 ? g.l1_latency : g.l2_hit_latency() + reread_miss * (mem_latency - g.l2_hit_latency());
  const double level_bytes = bytes + reread_bytes * reread_miss;
  const double l2_bytes = bytes + (reread_in_l1 ? 0 : reread_bytes);

  // Bandwidth: the level the data lives in, the L2 (every access that misses L1 passes it), and
  // the load/store paths of the SMs that have work.
  const double dram_bw = g.dram_bytes_per_clk() * g.dram_efficiency;
  const double level_bw = l2_resident ? g.l2_bytes_per_clk * g.l2_efficiency : dram_bw;
  // A gather's rows (MemoryLaunch::dram_trip_bytes), the inputs other kernels evicted, and then its
  // writes go to DRAM even when the footprint fits in L2 (the H200's Vidur-style layer: a gather's
  // reads plus writes move at DRAM's rate; sim/gpu/README.md).
  const double gathered = l2_resident ? std::min(l.dram_trip_bytes + cold_read, bytes_read) : 0.0;
  const double gather_dram_bytes = gathered > 0 ? gathered + bytes_written : 0.0;
  const double gather_cycles = gather_dram_bytes / dram_bw;
  const double mem_cycles = std::max({level_bytes / level_bw, l2_bytes / (g.l2_bytes_per_clk * g.l2_efficiency),
                                      (bytes + reread_bytes) / (active_sms * g.l1_bytes_per_clk), gather_cycles});

  // One CTA's serial path: its memory round trips, its re-reads, its reductions, and the store's
  // trip to L2. Rounds of resident CTAs follow each other (in lockstep, as the GEMM rounds): Little's
  // law with the resident CTAs' bytes in flight. A kernel with counted instructions also computes
  // between its trips: per trip a CTA issues `issue` cycles of work on the SM's 16-lane pipes, each
  // of its w warps per sub-core a 1/w share, and the n CTAs of a round share the pipes. A trip of a
  // barrier-free loop is the cycle of a closed queue (warp_queue.h): at least the round's work
  // (n x issue) and one warp's latency plus its own share (latency + issue / w), longer where the
  // two are close; a CTA with barriers takes the latency plus its whole issue (below). Without
  // counted instructions this is the latency alone.
  const double trips = l.dependent_loads + l.reread_trips;
  // Cycles per element on the SM: the FP32 lanes for the counted lane work and after them the
  // integer/logic lanes for the logic-pipe instructions (no dual issue), or the issue slots for all
  // counted instructions (the same on sm_90's 128 FP32 lanes; on V100/A100 the pipes bound first).
  const double issue_per_element =
      std::max(l.instructions_per_element / g.peak_ffma_per_clk() + l.logic_instructions_per_element / g.int32_per_clk(),
               (l.instructions_per_element + l.logic_instructions_per_element + l.issue_instructions_per_element +
                l.integer_instructions_per_element) /
                   g.issue_lanes_per_clk());
  // What a CTA's trip serves per element: that, or the special-function pipe's results where they
  // take longer (SiLU: 3 per element at 16 per clock, as long as its issue). Their throughput floor
  // is the `sfu` term below.
  const double service_per_element = std::max(issue_per_element, l.sfu_per_element / g.sfu_per_clk());
  const double cta_issue = double(l.elements) / double(l.ctas) * service_per_element;
  const double issue = trips > 0 ? cta_issue / trips : 0.0;
  const double warps_per_subcore = std::ceil(double(warps_per_cta) / g.subcores_per_sm);
  const double trip_bytes = trips > 0 ? (bytes_read / double(l.ctas)) / l.dependent_loads : 0.0;
  // One warp issues an instruction that depends on the previous one sm.ffma_latency cycles later;
  // independent chains (elements a thread owns) fill the gap. The lone warps of few CTAs pay it
  // (Nsight Compute, one row of layer norm on the H200: 6.3 cycles per instruction besides the
  // memory waits).
  const double dependent_interval = std::max(1.0, g.ffma_latency / double(std::max(1, l.independent_chains)));
  // A CTA whose warps meet at barriers every row (block reductions: RMS and layer norm, softmax)
  // issues as one: woken together by each trip, its warps issue in turn, so the trip lasts the
  // latency plus the CTA's whole issue; the SM's other CTAs overlap it. Nsight Compute on the H200:
  // a lone rms_norm_kernel CTA waits 11.4 cycles per instruction besides memory, its 8 warps per
  // scheduler (validation/measured/H200/vidur_layer). Barrier-free loops (SiLU x up, rotary) drift
  // apart once several CTAs share the SM (5.8-5.9 cycles there at 4096 tokens): one warp's chain.
  auto trip = [&](std::int64_t n, double latency) {
    if (l.serial_trips) return latency + double(n) * (trip_bytes / g.l1_bytes_per_clk + issue);
    if (l.block_reductions > 0) {
      const double chain = issue / warps_per_subcore * dependent_interval;
      return std::max(double(n) * issue, latency + std::max(issue, chain));
    }
    // Barrier-free loops: the warps of the round's CTAs on a sub-core share its issue slots, each
    // issuing its share of the CTA's trip after its own wait (warp_queue.h). A warp's dependent
    // chain leaves the scheduler free for others: beyond its issue share it is part of the wait.
    const double service = issue * double(g.subcores_per_sm) / double(cr.warps_per_cta);
    const int warps = int(std::ceil(double(n) * double(cr.warps_per_cta) / double(g.subcores_per_sm)));
    return warp_trip_cycles(warps, service, latency + service * (dependent_interval - 1));
  };
  // The first pass over the CTA's data (its loads from where the data lives). A scalar loop's trips
  // (MemoryLaunch::scalar_loop) wait for a burst: the SM's n resident CTAs issue a trip's loads
  // together, so its last load returns after the latency plus the round's read bytes of that trip
  // at the SM's share of the bandwidth (stores are posted and do not hold the loop). The H200's
  // Nsight Compute counts of Sarathi's SiLU x up at 4096 tokens: 1160 cycles of memory wait per
  // trip, its latency (672) plus 8 KiB at 16.8 B/clk (validation/measured/H200/vidur_layer).
  // Row kernels with barriers (layer and RMS norm, softmax, cuDNN's channels-first batch norm) do
  // the same in the SM's first round: its CTAs start together and run the same trips in step.
  // Later rounds start as earlier CTAs finish, staggered, and their trips overlap the others'
  // transfers (the lockstep phases below bound them by bandwidth instead).
  // The bandwidth is shared by the CTAs running GPU-wide, not by the SMs: an SM that holds n of a
  // round's `running` CTAs gets n / running of it (the memory system serves requests, and an SM
  // with two CTAs has twice the requests in flight). With the CTAs spread evenly this is 1 /
  // sm_count per SM, except in a round that leaves SMs idle or holds fewer CTAs on most SMs than on
  // the busiest: 96 channels of cuDNN's per-channel batch norm on 87 SMs ran at 87/96 x 2 = 1.8x
  // their bytes' time, slower than on 58 SMs.
  struct Round {
    std::int64_t n;  // CTAs of the busiest SM in the round
    bool first;      // the SM's first round
    double running;  // CTAs running GPU-wide
  };
  auto burst = [&](const Round& rd, double bw) {
    // (Serial trips already charge their bytes in `trip`: GammaBetaBackward.)
    const bool together = l.scalar_loop || (l.block_reductions > 0 && rd.first && !l.serial_trips);
    return together ? trip_bytes * rd.running / bw : 0.0;
  };
  auto first_pass = [&](const Round& rd) {
    return (l.dependent_loads - l.dram_trips) * trip(rd.n, mem_latency + burst(rd, level_bw)) +
           l.dram_trips * trip(rd.n, g.dram_latency + burst(rd, dram_bw));
  };
  // A re-read pass that also loads per-feature parameters (layer norm's gamma and beta) waits for
  // them: from L2 in the SM's first round of CTAs, from L1 once an earlier round brought them in.
  auto cta_path = [&](const Round& rd) {
    const std::int64_t n = rd.n;
    const double reread_trip_latency =
        l.reread_loads_parameters && rd.first ? std::max(reread_latency, g.l2_hit_latency()) : reread_latency;
    return first_pass(rd) + l.reread_trips * trip(n, reread_trip_latency) +
           (l.warp_reductions * kWarpReductionSteps + l.block_reductions * kBlockReductionSteps) * g.smem_latency +
           g.l2_hit_latency() + (trips > 0 ? 0.0 : double(n) * cta_issue);
  };
  // Full rounds of `resident` CTAs, then a last round of the remainder.
  const std::int64_t full_rounds = ctas_per_sm / resident, last = ctas_per_sm % resident;
  // The sum of f(Round) over the SM's rounds. (A named copy: clang 14 lambdas cannot
  // capture a structured binding.)
  const std::int64_t full = resident;
  const double wave = double(g.sm_count) * double(resident);
  auto running = [&](std::int64_t i, std::int64_t n) { return running_ctas(double(l.ctas), wave, i, n); };
  auto over_rounds = [&](auto&& f) {
    if (full_rounds == 0) return f(Round{last, true, running(0, last)});
    double sum = f(Round{full, true, running(0, full)});
    if (full_rounds >= 2)
      sum += double(full_rounds - 2) * f(Round{full, false, wave}) + f(Round{full, false, running(full_rounds - 1, full)});
    return sum + (last > 0 ? f(Round{last, false, running(full_rounds, last)}) : 0.0);
  };
  // A round of `resident` CTAs after the first: what the outputs report per round.
  const Round steady{resident, false, running(0, resident)};
  const double cta_cycles = cta_path(steady);
  const double latency_cycles = over_rounds(cta_path);

  // Lockstep phases of row kernels with CTA-wide barriers (block reductions between passes: softmax
  // over long rows, layer norm, RMS norm, reductions). The CTAs of a round start together and wait
  // for each other at the barriers, so the SM's memory traffic and its later passes alternate
  // instead of overlapping: the round's first pass lasts at least as long as the round's bytes take
  // at the SM's share of the level's bandwidth (the write-back L2 sends the previous round's outputs
  // to DRAM in this phase: this round's reads evict their lines), and only then come the reductions,
  // the re-read passes with their instruction issue, and the stores. Kernels without barriers
  // (elementwise, the warp-per-row softmax, gathers) keep overlapping one CTA's memory with
  // another's work: for them the bandwidth and the CTA path are separate bounds.
  const bool phased = l.block_reductions > 0;
  const double cta_level_bytes = level_bytes / double(l.ctas);
  // The part of a round's first pass that waits for bandwidth beyond the CTA path's own trips.
  auto bandwidth_wait = [&](const Round& rd) {
    return std::max(0.0, cta_level_bytes * rd.running / level_bw - first_pass(rd));
  };
  const double phased_cycles = phased ? latency_cycles + over_rounds(bandwidth_wait) : 0.0;
  const bool bandwidth_phases = phased && phased_cycles > latency_cycles;  // some round waited for bandwidth

  // Arithmetic: one FP32 lane op per flop (elementwise ops are adds/multiplies, not FMAs), and
  // the special-function unit's results.
  const double lane_ops = std::max(k.flops_nontensor, double(l.elements) * l.instructions_per_element);
  const double math_cycles = std::max(lane_ops / g.peak_ffma_per_clk(), double(l.elements) * issue_per_element) / active_sms;
  const double sfu_cycles = double(l.elements) * l.sfu_per_element / (g.sfu_per_clk() * active_sms);

  struct Term {
    const char* bound;
    double cycles;
  };
  const bool level_bound = level_bytes / level_bw >= l2_bytes / (g.l2_bytes_per_clk * g.l2_efficiency);
  // Scalar accesses narrower than 16 B (PyTorch's casting copies): each warp access is a request
  // of at most 128 B, one per l1.narrow_request_interval per SM (the H100's _align GEMM copies
  // fitted it; sim/gpu/README.md "H100, measured"). The strided kernel's bound is its integer work.
  double request_cycles = 0;
  if (const double narrow = g.narrow_copy_bytes_per_clk(l.access_bytes); narrow > 0)
    request_cycles = double(l.elements) * l.accesses_per_element * l.access_bytes / (narrow * active_sms);
  // A strided kernel's warp access touches one line per lane where an operand's elements lie a line
  // or more apart (a channels-last tensor read in channels-first order): each line is a request of
  // its own at the L2, which serves l2.line_requests_per_clock of them (sim/gpu/README.md, "Lines of
  // a strided access").
  if (l.lines_per_warp > 0 && g.l2_line_requests_per_clk > 0)
    request_cycles = std::max(request_cycles, double(l.elements) / 32.0 * l.lines_per_warp / g.l2_line_requests_per_clk);
  const double int_cycles = double(l.elements) * l.integer_instructions_per_element / (g.int32_per_clk() * active_sms);
  // A persistent grid with a barrier per round: its passes do not overlap, so the bytes' time and
  // each round's barrier and two pipeline fills (a trip to where the data lives) add up.
  const double barrier_rounds_cycles =
      l.barrier_cycles > 0 ? mem_cycles + double(rounds) * (l.barrier_cycles + 2 * mem_latency) : 0.0;
  const bool dram_bound = l2_resident ? gathered > 0 && gather_cycles >= mem_cycles : level_bound;
  const Term terms[] = {{dram_bound ? "dram" : "l2", mem_cycles},
                        {"barriers", barrier_rounds_cycles},
                        {"l1_requests", request_cycles},
                        {"int32", int_cycles},
                        {"latency", latency_cycles},
                        {bandwidth_phases ? "phases" : "latency", phased_cycles},
                        {"cuda_core", math_cycles},
                        {"sfu", sfu_cycles}};
  const Term* top = &terms[0];
  for (const auto& t : terms)
    if (t.cycles > top->cycles) top = &t;
  // The last CTA's serial reads of the other CTAs' partial results (reduce_kernel's global
  // reduction, memory_launch.cpp): each costs a DRAM latency (CALIBRATION, named in sim/gpu/README.md,
  // "Column reductions": an L2 hit's latency gave half the time the traces measure).
  const double tail_trip = g.dram_latency;
  r.cycles = top->cycles + l.tail_trips * tail_trip;
  r.bound = top->bound;
  if (l.tail_trips * tail_trip > top->cycles) r.bound = "latency";
  const double fixed_s = g.kernel_fixed_s(k.follows_itself, k.profiled, l2_resident && g.dirty_drains_quietly(k.written_before));
  r.time_s = r.cycles / g.clock_hz + fixed_s;
  r.set("launches", 1);

  const double dram_read = l2_resident ? gathered : level_bytes - bytes_written;
  r.set("dram_read_bytes", dram_read);
  r.set("dram_write_bytes", l2_resident && gathered == 0 ? 0.0 : bytes_written);
  r.set("l2_read_bytes", l2_bytes - bytes_written);
  r.set("l2_write_bytes", bytes_written);
  r.set("dram_util_pct", 100 * (l2_resident ? gather_dram_bytes : level_bytes) / (g.dram_bytes_per_clk() * r.cycles));
  r.set("l2_util_pct", 100 * l2_bytes / (g.l2_bytes_per_clk * r.cycles));
  r.set("ctas", double(l.ctas));
  r.set("ctas_per_sm", double(resident));
  r.set("waves", double(rounds));
  r.set("cta_latency_cycles", cta_cycles);
  if (phased) r.set("phased_round_cycles", cta_cycles + bandwidth_wait(steady));
  r.set("launch_overhead_us", fixed_s * 1e6);
  // Events for the energy model: counted lane ops (or the flops), MUFU results, 16-byte vector
  // loads/stores when the instructions are not counted, 2 register sources per instruction.
  Activity act;
  act.ffma = lane_ops;
  act.mufu = double(l.elements) * l.sfu_per_element;
  act.warp_instructions = lane_ops / 32 +
                          double(l.elements) * (l.issue_instructions_per_element + l.logic_instructions_per_element) / 32 +
                          act.mufu / 32 +
                          (l.instructions_per_element > 0 ? 0.0 : (bytes + reread_bytes) / (32 * 16));
  act.rf_reads = 2 * act.warp_instructions;
  act.l1_bytes = bytes + reread_bytes;
  act.record(r);
  if (l2_resident) r.notes.push_back("footprint fits in L2: back-to-back runs read and write L2, not DRAM");
  if (reread_miss > 0)
    r.notes.push_back(format_number("%.3g", 100 * reread_miss) +
                      "% of the row re-reads come from memory: the resident CTAs' rows exceed L1, and with the pass's writes L2");
  return r;
}

}  // namespace tcsim::gpu
