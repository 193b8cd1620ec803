#pragma once
// Per-warp instruction programs the SM simulator replays (sm_sim.h). A program is a prologue, a
// loop body run `iterations` times (one CTA k-tile per iteration) and an epilogue; every warp of a
// CTA runs the same program (instructions marked leader_only run on warp 0 alone, e.g. TMA).
//
// Instructions may stand for a group of identical hardware instructions (`count`): an MMA group
// is `count` PTX MMAs back to back on the sub-core's tensor pipe, an FFMA group `count` warp
// FFMAs. Register dependences are tracked through numbered slots; a slot is ready at a cycle.
#include <cstdint>
#include <string>
#include <vector>

namespace tcsim::gpu {

enum class Op : std::uint8_t {
  ldg,           // global -> registers (bytes for the whole warp); dst ready when the data arrives
  sts,           // registers -> shared memory (bytes)
  cp_async,      // global -> shared, asynchronous (sm_80): joins the warp's open copy group
  cp_commit,     // closes the open copy group
  cp_wait,       // waits until at most `arg` copy groups are in flight (cp.async.wait_group)
  tma,           // bulk tensor copy global -> shared (sm_90); dst (an mbarrier slot) ready on arrival
  lds,           // shared -> registers (LDS / ldmatrix), bytes for the warp
  mma,           // tensor-core MMA group (mma.sync/wmma, or wgmma when the row is asynchronous)
  wgmma_commit,  // closes the open wgmma group
  wgmma_wait,    // waits until at most `arg` wgmma groups are in flight
  ffma,          // CUDA-core FFMA group (any FP32-pipe instruction: FFMA, FMUL, FADD, FMNMX, F2FP)
  mufu,          // special-function group (MUFU.EX2, MUFU.RCP) on the sub-core's SFU
  bar,           // CTA-wide barrier (bar.sync)
  stg,           // registers -> global (epilogue), bytes for the warp
  wait,          // waits until its source slots are ready (mbarrier wait on a TMA stage)
};

const char* op_name(Op op);

struct Instr {
  Op op = Op::bar;
  std::int32_t count = 1;   // group size (mma: PTX MMAs; ffma/mufu/lds: warp instructions)
  double bytes = 0;         // memory ops: bytes moved for the warp (tma: for the CTA)
  std::int16_t mma = -1;    // mma: row of GpuConfig::mma
  std::int32_t mma_n = 0;   // mma: N used (wgmma; 0 = the row's N)
  std::int16_t dst = -1;    // slot written (mma: ready when the first MMA of the group is done)
  std::int16_t dst2 = -1;   // mma: slot ready when the whole group is done
  std::int16_t src[3] = {-1, -1, -1};
  std::int16_t rot = 0;     // >0: slots rotate: slot + (iteration + shift) % rot (multi-stage buffers)
  std::int16_t shift = 0;
  std::int16_t arg = 0;     // cp_wait / wgmma_wait: groups allowed in flight
  std::int16_t distance = 0;  // >0: a prefetch, skipped when iteration + distance >= iterations
  bool leader_only = false;   // executed by warp 0 of the CTA only
  bool l2_hit = false;        // ldg: an L2-resident line (the config's L2 hit latency), not the L2/DRAM blend
  std::int8_t access_bytes = 0;  // ldg/cp_async: bytes per lane access when narrower than 16 (0: 16)
  float stretch = 1;          // mma/ffma: pipe occupancy multiplier (calibration: 1 / efficiency)
  // Shared memory (lds/sts/cp_async/tma, wgmma operand reads): wavefronts of the whole instruction
  // (group) from its lane addresses (smem_banks.h). 0 = not given: taken as conflict-free.
  float smem_wavefronts = 0;
  // Register file (mma/ffma): warp-register reads of the whole group after operand reuse, and the
  // reads that fall in its busiest bank (rf_ports.h). 0 = no reads modelled.
  float rf_reads = 0;
  float rf_bank_reads = 0;
  std::string note;           // for `tcsim trace dump`
};

struct WarpProgram {
  std::vector<Instr> prologue, body, epilogue;
  std::int64_t iterations = 1;  // times the body runs
  int slots = 0;                // number of dependency slots used
};

// sm_90 kernels that copy with TMA fetch their tensor maps before the first bulk copy can issue
// (CUTLASS's sm90 collectives: prefetch_tma_descriptor, PTX prefetch.tensormap; the 128-byte
// descriptors sit in the kernel's parameter buffer, which the launch has just written: an L2
// hit). Warp 0 loads them into `dst_slot`; the prologue's TMA copies wait on that slot.
Instr tensor_map_prefetch(int dst_slot);

// One line per instruction (for trace dump and tests).
std::string format_instr(const Instr& in);
std::string format_program(const WarpProgram& p, const std::string& header);

}  // namespace tcsim::gpu
