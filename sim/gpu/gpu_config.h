#pragma once
// The GPU hardware description: every parameter is declared once in config_schema() (type, unit,
// default, range, one-line description); GpuConfig is the typed, validated form the model reads.
//
//   const auto cfg = config::Config::load("configs/gpu/v100.yaml", gpu::config_schema());
//   const gpu::GpuConfig gpu = gpu::GpuConfig::from(cfg);   // throws InputError on impossible configs
//   gpu::GpuModel model(gpu);
#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "gpu/power/power_config.h"
#include "numerics/formats/format_id.h"
#include "workload/host_op_class.h"

namespace tcsim::config {
class Schema;
class Config;
}  // namespace tcsim::config

namespace tcsim::gpu {

// The schema of `kind: gpu` configs (registered for `tcsim config` by sim/cli/config/schema_gpu.cpp).
const config::Schema& config_schema();

enum class SchedulerPolicy { gto, lrr };  // greedy-then-oldest, loose round robin
enum class CopyEngine { ldg_sts, cp_async, tma };  // how tiles travel global -> shared memory
enum class MmaKind { sync, wgmma };  // warp-synchronous mma/wmma, or sm_90 warpgroup async wgmma

// One row of the MMA instruction table. A row describes the PTX-level instruction the kernel
// programs use (wmma/mma.sync/wgmma) and how it runs on one sub-core's tensor pipe: it is
// `sass_count` SASS MMAs issued `issue_interval` cycles apart; its result is ready `latency`
// cycles after its last SASS MMA issued. A dependent MMA waits for the whole producer.
struct MmaInstr {
  std::string name;              // SASS name, e.g. "HMMA.884.F32.F32"
  MmaKind kind = MmaKind::sync;
  int m = 16, n = 16, k = 16;    // shape of the PTX instruction (wgmma: N is the largest N)
  std::vector<FormatId> ab;      // operand formats it accepts (A and B alike)
  FormatId acc = FormatId::fp32; // accumulator format
  int sass_count = 1;            // SASS MMAs per PTX instruction
  double issue_interval = 1;     // cycles the sub-core tensor pipe is busy per SASS MMA
  double latency = 1;            // cycles from the last SASS MMA's issue to the result
  double fma_per_clk = 0;        // ideal dense rate per sub-core (documentation + consistency)
  double issue_cycles = 1;       // scheduler cycles to issue one PTX instruction (wgmma ~4)
  // mma.sp / wgmma.sp: A is 2:4 structured sparse (two kept values and their 2-bit indices per
  // group of four); k, fma() and fma_per_clk count the dense-equivalent MACs, so a sparse row at
  // the dense row's interval runs twice its rate. Only sparse kernels use sparse rows.
  bool sparse = false;

  double fma() const { return double(m) * n * k; }
  // Sub-core pipe cycles of one instruction (wgmma: per sub-core of the warpgroup, at shape n).
  double pipe_cycles(int n_used) const;
  double latency_at(int n_used) const;  // wgmma latency scales with N (fixed tail + pipe term)
  bool accepts(FormatId a, FormatId c) const;
};

struct GpuConfig {
  std::string name = "gpu";       // "V100-SXM2"
  std::string arch = "sm_70";     // sm_70 sm_75 sm_80 sm_86 sm_89 sm_90 sm_120: selects kernel-mapping rules
  double clock_hz = 1.53e9;       // SM clock the timings use

  // SM and sub-cores
  int sm_count = 80;
  int subcores_per_sm = 4;
  int warp_schedulers_per_subcore = 1;
  SchedulerPolicy scheduler_policy = SchedulerPolicy::gto;
  int issue_per_scheduler_per_clk = 1;
  int warp_slots_per_scheduler = 16;           // warps one scheduler can hold
  int max_warps_per_sm = 64;
  int max_ctas_per_sm = 32;
  int max_threads_per_cta = 1024;
  std::int64_t registers_per_sm = 65536;       // 32-bit registers
  int max_registers_per_thread = 255;
  std::uint64_t max_smem_per_sm = 96 * 1024;   // bytes usable as shared memory
  std::uint64_t max_smem_per_cta = 96 * 1024;
  int rf_banks_per_subcore = 2;
  int rf_read_ports_per_bank = 1;
  int fp32_lanes_per_subcore = 16;             // CUDA-core FFMA lanes (FP32 rate)
  double ffma_latency = 4;
  // Special-function (MUFU: exp2, rcp, ...) lanes per sub-core: a warp MUFU occupies the sub-core's
  // SFU for 32 / lanes cycles; its result follows after ffma_latency more cycles (assumed as FFMA).
  int sfu_lanes_per_subcore = 4;
  int int32_lanes_per_subcore = 16;  // 32-bit integer add / multiply-add / shift / compare

  // Tensor cores
  std::vector<MmaInstr> mma;
  CopyEngine copy_engine = CopyEngine::ldg_sts;

  // Shared memory / L1
  int smem_banks = 32;
  int smem_bank_bytes = 4;                    // width of one bank (bytes per bank per cycle)
  double smem_bytes_per_clk = 128;            // per SM
  double smem_latency = 27;
  // Cycles between the shared-memory warp instructions the SM's shared structures take (0: the
  // banks alone limit them; sm_sim.cpp).
  double smem_instruction_interval = 0;
  double l1_bytes_per_clk = 128;
  double l1_latency = 34;
  // Cycles per SM between the L1 requests (a warp's 32 accesses, at most 128 B) of operand copies
  // made of accesses narrower than 16 B (l1.narrow_request_interval); 0: not limited.
  double narrow_request_interval = 0;
  std::uint64_t l1_size = 128 * 1024;          // unified L1 + shared

  // L2 and DRAM
  std::uint64_t l2_size = 6u << 20;
  int l2_partitions = 1;
  double l2_bytes_per_clk = 1536;              // whole GPU, theoretical
  double l2_efficiency = 0.9;                  // achievable fraction (microbenchmark)
  // Line requests (one 128-byte line's sectors of a warp access) the L2 serves per SM clock,
  // chip-wide (l2.line_requests_per_clock); 0: not limited.
  double l2_line_requests_per_clk = 0;
  double l2_latency = 211;
  double l2_far_latency = 211;                 // a hit in another partition than the SM's own
  // Load-to-use latency of an L2 hit averaged over the partitions: addresses interleave across
  // them in small chunks (8 KB on A100 [timing.md 2.2, GTC'21]), so 1/partitions of the hits are near.
  double l2_hit_latency() const { return (l2_latency + (l2_partitions - 1) * l2_far_latency) / l2_partitions; }
  // With several partitions a line an SM reads from a far partition is also kept in its near one
  // (GTC'21 "Dissecting Ampere", timing.md 2.2): (p - 1) / p of the bytes read take space twice.
  double l2_read_copies() const { return 1.0 + double(l2_partitions - 1) / l2_partitions; }
  // Whether a footprint stays in L2 across back-to-back runs: its reads (with far copies) and its
  // writes (the write-back L2 keeps them) fit.
  bool l2_holds(double read_bytes, double written_bytes) const {
    return read_bytes * l2_read_copies() + written_bytes <= double(l2_size);
  }
  double dram_size_bytes = 0;                  // device memory capacity (0: not given)
  double dram_bytes_per_s = 900e9;
  double dram_efficiency = 0.8;                // achievable fraction (microbenchmark)
  double dram_latency = 313;                   // L2-miss latency, whole trip (cycles)
  int dram_channels = 32;                      // independent channels (row-activation limit each)
  double dram_activate_interval_s = 0;         // tRRD: min time between row activations in a channel (0: off)
  double dram_run_overhead = 0;                // bytes of bus time lost per short operand run (0: off)
  double dram_access_granularity = 64;         // bytes of the smallest DRAM access

  // Kernel launch
  double launch_overhead_s = 5e-6;             // per kernel launch, back-to-back host timing
  double empty_kernel_s = 0;                   // profiled duration of an empty kernel (0: not measured)
  // Time from a kernel's end to the start of the next one queued behind it in a stream: the GPU
  // front end's work between eager launches, which a profiler's kernel durations leave out and a
  // loop's or a step's time per launch includes (0: not measured; kernel.launch_overhead covers it).
  double queue_gap_s = 0;
  // A memory kernel's fixed cost beyond its work. Without a measured empty kernel: the launch. After
  // the same kernel (Kernel::follows_itself): what an empty kernel measures back to back
  // (kernel.empty_duration: a one-element add) less that add's own two L2 trips, a load and the
  // store, which the model counts as its work (so a repeated one-element add predicts the
  // measurement). A profiler's duration (Kernel::profiled) after a different kernel: the empty
  // kernel's duration and a DRAM trip, its code and parameters fetched cold, unless `quiet`: its data
  // is L2-resident and the kernel before left less dirty data than one DRAM latency drains
  // (dirty_drains_quietly), so its first misses find the memory idle. Otherwise (host timing, a
  // step's throughput): the launch.
  double kernel_fixed_s(bool follows_itself, bool profiled = false, bool quiet = false) const {
    if (empty_kernel_s <= 0) return launch_overhead_s;
    if (follows_itself) return std::max(0.0, empty_kernel_s - 2 * l2_hit_latency() / clock_hz);
    if (profiled && quiet) return empty_kernel_s;
    if (profiled) return empty_kernel_s + dram_latency / clock_hz;
    return launch_overhead_s;
  }
  // Host: CPU time an eager framework (PyTorch) spends dispatching one op before its kernel is
  // launched (Accelerator::host_overhead_s); not part of a kernel's GPU time.
  double host_kernel_overhead_s = 0;
  // host.op_overhead.<class>: one inference op of each HostOpClass (indexed by it), resolved: a
  // class the config leaves at 0 costs host_kernel_overhead_s.
  std::array<double, kHostOpClasses.size()> host_op_overhead_s{};
  // host.autograd_factor: an op of a training forward pass costs this many host_kernel_overhead_s.
  double host_autograd_factor = 1.5;
  double cudnn_version = 8.9;                  // library.cudnn_version (conv algorithm choice)
  double cublas_version = 12.1;                // library.cublas_version (tensor cores for odd GEMM sizes on sm_70/75)
  bool cudnn_benchmark = true;                 // library.cudnn_benchmark: cudnnFind (true) or cuDNN's heuristic
  int pytorch_version = 201;                   // library.pytorch_version as major * 100 + minor (2.11 -> 211)
  // library.sgemm_tile: the one cuBLAS SIMT tile FP32 CUDA-core GEMMs run (0 x 0: auto, the model's choice)
  int sgemm_tile_m = 0, sgemm_tile_n = 0;
  bool sgemm_tile_sliced = false;
  double host_launch_delay_s = 0;              // the part of it before the kernel's launch

  // Power: limit, idle and leakage power, voltage-frequency curve, energy per event (power/)
  PowerConfig power;

  // Global calibration knobs (documented in sim/gpu/README.md; fitted on V100 only)
  double tile_overhead_cycles = 0;             // per-CTA-round fixed cost (prologue/index math, epilogue)
  double mma_efficiency = 1;                   // GEMM main loops sustain this fraction of the MMA table rate
  double ffma_efficiency = 1;                  // ... and of the FFMA rate

  // Reads, converts and validates a loaded `kind: gpu` config. Throws InputError with the
  // config location for impossible configs (more warps than the schedulers hold, shared memory
  // too small for any tile, an MMA row whose rate contradicts its shape and issue interval ...).
  static GpuConfig from(const config::Config& cfg);

  // Semantic checks that do not need the YAML locations (also run by from()); throws InputError
  // with `where` = "gpu config" and the field name.
  void validate() const;

  double dram_bytes_per_clk() const { return dram_bytes_per_s / clock_hz; }
  // Bytes written by a kernel that DRAM absorbs within one trip's latency: the kernel after it
  // finds no write-back queue ahead of its first misses (kernel_fixed_s).
  bool dirty_drains_quietly(double bytes_written) const {
    return bytes_written >= 0 && bytes_written < dram_latency * dram_bytes_per_clk();
  }
  int max_warps_per_subcore() const { return max_warps_per_sm / subcores_per_sm; }
  // The fastest table row for these formats (nullptr when the tensor cores cannot run them);
  // sparse: among the 2:4-sparse rows only, else among the dense rows only.
  const MmaInstr* find_mma(FormatId ab, FormatId acc, bool sparse = false) const;
  // The same among the synchronous (mma.sync / wmma) rows only: what a kernel without TMA runs.
  const MmaInstr* find_sync_mma(FormatId ab, FormatId acc, bool sparse = false) const;
  // Peak tensor FMA/clk/SM for these formats (0 when unsupported); sparse: dense-equivalent MACs.
  double peak_tensor_fma_per_clk(FormatId ab, FormatId acc, bool sparse = false) const;
  double peak_ffma_per_clk() const { return double(fp32_lanes_per_subcore) * subcores_per_sm; }
  double sfu_per_clk() const { return double(sfu_lanes_per_subcore) * subcores_per_sm; }  // per SM
  double int32_per_clk() const { return double(int32_lanes_per_subcore) * subcores_per_sm; }  // per SM
  // Thread instructions the SM's schedulers issue per clock (one warp instruction per scheduler).
  double issue_lanes_per_clk() const {
    return 32.0 * issue_per_scheduler_per_clk * warp_schedulers_per_subcore * subcores_per_sm;
  }
  // Bytes per clock per SM of copies made of `access`-byte lane accesses: one warp request (32 x
  // access bytes, at most 128) per narrow_request_interval; 0 when not limited (16-byte vectors, or
  // no interval configured).
  double narrow_copy_bytes_per_clk(int access) const {
    if (access <= 0 || access >= 16 || narrow_request_interval <= 0) return 0;
    return std::min(128.0, 32.0 * access) / narrow_request_interval;
  }
};

// The architectures whose libraries run sm_80's kernels (mma.sync, cp.async, shared-memory carveouts up
// to 100 or 164 KB): sm_80 and the later chips without wgmma, sm_86, sm_87, sm_89 and sm_120. One list
// for every rule that holds across them (the carveout table, cuBLAS's batched-SGEMM tile).
inline bool runs_sm80_kernels(const GpuConfig& g) {
  return g.arch == "sm_80" || g.arch == "sm_86" || g.arch == "sm_87" || g.arch == "sm_89" || g.arch == "sm_120";
}

}  // namespace tcsim::gpu
