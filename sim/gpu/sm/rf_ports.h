#pragma once
// Register-file read traffic of MMA and FFMA instruction groups: how many warp-register reads their
// source operands need from the sub-core's register file, and how many land in the busiest bank.
// sm_sim.cpp holds the sub-core's read ports for busiest-bank reads / read_ports_per_bank cycles.
//
// Assumptions (sources in sim/gpu/README.md, "Register-file read ports"):
//  - Register r lives in bank r mod banks (timing.md 2.2, Jia et al. 2018 "Dissecting Volta": 2
//    banks per sub-core on Volta). One port serves one warp-register read per cycle.
//  - Operand reuse cache (Jia 2018; Huerta et al. MICRO 2025: a register-file cache fed by compiler
//    reuse flags): each source-operand slot remembers the registers it read in the previous
//    instruction of the warp; reading the same registers in the same slot again is free. The
//    generated sequences follow the library loops: fragment loops m outer, n inner in serpentine
//    order (CUTLASS MmaTensorOp), FFMA outer products i outer, j inner (CUTLASS MmaSimt).
//  - Accumulators are ordinary source registers (read each time, no forwarding). Volta's wmma
//    m16n16k16 is 4 sets of HMMA.884 (one per k-slice of 4) of 2 (fp16 acc) or 4 (fp32 acc) steps;
//    A/B of a set are read once (reuse flags on the steps), each step reads its 2 accumulator
//    registers (timing.md 4; Jia 2018 SASS listings). The octets hold A/B twice (8 + 8 registers).
//  - wgmma operands from shared memory are not register reads; its accumulators are.
//  - Registers are allocated bank-aware, as ptxas does: the accumulator array starts in bank 0,
//    the other operand arrays in the banks right after it (so one instruction's sources spread).
#include <array>
#include <vector>

#include "gpu/gpu_config.h"

namespace tcsim::gpu {

struct RfReads {
  double reads = 0;         // warp-register reads after reuse
  double busiest_bank = 0;  // of which in the most-read bank
};

// Consecutive registers first .. first + count - 1 (an operand of 1, 2 or 4 registers, or a fragment).
struct RegRange {
  int first = 0, count = 0;
  bool operator==(const RegRange&) const = default;
};

// Source registers of one SASS instruction, per operand slot (A, B, C).
struct SassSources {
  std::array<RegRange, 3> slot;
};

// Counts the reads of an instruction sequence; with `reuse`, a slot that reads exactly the
// registers it read in the previous instruction is served by the reuse cache.
RfReads count_rf_reads(const std::vector<SassSources>& sequence, int banks, bool reuse = true);

// A group of MMAs over a warp tile of frags_m x frags_n fragments of the table row's shape
// (`n_used` for wgmma; A from shared memory for wgmma SS).
RfReads mma_group_rf_reads(const GpuConfig& g, const MmaInstr& row, int frags_m, int frags_n, int n_used = 0);

// One k-step of a SIMT outer product: thread tile tm x tn FFMAs (HFMA2: elements / 2).
RfReads ffma_group_rf_reads(const GpuConfig& g, int tm, int tn);

}  // namespace tcsim::gpu
