#pragma once
// One SM, cycle by cycle: the resident CTAs' warps are spread over the sub-cores; each cycle
// every sub-core's scheduler issues at most `issue_per_clk` instructions from its ready warps
// (GTO or LRR). Instructions wait for their source slots, for their unit (the sub-core's tensor,
// FFMA and special-function (MUFU) pipes and register-file read ports, the SM's shared-memory pipe, whose occupancy counts
// bank-conflict wavefronts, and its share of the L2/DRAM bandwidth), for
// barriers and for cp.async/wgmma groups. Cycles in which no warp can issue are skipped to the
// next cycle at which one can, and a sub-core none of whose warps is awake is not scanned (the
// result is the same as stepping through every warp of every cycle).
//
// Shared memory: an access of `bytes` with `smem_wavefronts` (smem_banks.h) holds the SM's pipe for
// max(bytes, wavefronts x banks x bank_width) / shared_memory.bandwidth cycles, i.e. max(bytes /
// bandwidth, wavefronts) when the bandwidth is the banks' (128 B/clk); no wavefronts given: bytes
// alone (conflict-free). cp.async writes are booked on that pipe at issue (a throughput model).
// Register file: an MMA/FFMA group with RF reads waits until its sub-core's
// read ports are free (not ready at t-1, ready at t) and holds them for rf_bank_reads /
// register_file.read_ports_per_bank cycles (rf_ports.h).
#include <cstdint>
#include <vector>

#include "gpu/gpu_config.h"
#include "gpu/sm/program.h"

namespace tcsim::gpu {

struct SmEnvironment {
  double global_bytes_per_clk = 64;  // this SM's share of the L2/DRAM bandwidth
  double global_latency = 300;       // load-to-use latency of a global access (L2/DRAM blend)
  bool record_issues = false;        // fill SmRunStats::issues (tests, trace dump)
};

struct IssueRecord {
  double cycle = 0;
  int cta = 0, warp = 0, subcore = 0;
  int section = 0;          // 0 prologue, 1 loop body, 2 epilogue
  std::int64_t iteration = 0;
  std::size_t pc = 0;
  Op op = Op::bar;
};

struct SmRunStats {
  double cycles = 0;                     // until every warp is done and every store drained
  // Cycle at which warp 0 of each CTA entered each body iteration ([cta][iteration]): under GTO
  // the oldest CTA runs ahead of the others, so the SM's steady-state rate is measured over all.
  std::vector<std::vector<double>> cta_iteration_start;
  double tensor_fma = 0;                 // useful + padded FMAs the tensor pipes executed
  double tensor_busy = 0;                // summed over sub-cores (pipe cycles)
  double ffma = 0;                       // scalar FMAs on the CUDA cores
  double ffma_busy = 0;                  // summed over sub-cores
  double mufu = 0, sfu_busy = 0;         // special-function results (MUFU) and SFU pipe cycles, all sub-cores
  double smem_bytes = 0, smem_busy = 0;
  double smem_wavefronts = 0;            // bank cycles the shared-memory accesses needed
  double rf_reads = 0, rf_busy = 0;      // register-file reads (MMA/FFMA sources) and port cycles, all sub-cores
  double global_read_bytes = 0, global_write_bytes = 0, global_busy = 0;
  std::int64_t issued = 0;               // instructions (groups count once)
  double warp_instructions = 0;          // warp instructions other than MMAs the groups stand for (energy model)
  std::vector<IssueRecord> issues;       // when SmEnvironment::record_issues
};

// Runs `ctas` copies of a CTA of `warps_per_cta` warps, each warp running `program`. With
// `total_ctas` > `ctas`, the `ctas` slots run that many CTAs in all, slot c the CTAs c, c + ctas,
// ...: the CTA scheduler refills a slot the cycle after its CTA retires, so the next CTA's prologue
// overlaps the other slots' work and the stores still draining (a retired CTA's stores keep their
// place in the SM's global queue).
SmRunStats simulate_sm(const GpuConfig& gpu, const WarpProgram& program, int warps_per_cta, int ctas,
                       const SmEnvironment& env, int total_ctas = 0);

}  // namespace tcsim::gpu
