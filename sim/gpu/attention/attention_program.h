#pragma once
// Per-warp instruction programs (program.h) of the fused-attention kernels: one loop iteration is
// one K/V tile (forward: S = Q·Kᵀ, online softmax, O += P·V) or one query tile (backward: S and P
// recomputed, dP, dS, dV, dK, dQ). The SM simulator (sm_sim.h) replays them.
#include <cstdint>

#include "gpu/attention/attention_plan.h"
#include "gpu/sm/program.h"

namespace tcsim::gpu {

// Work of one CTA per loop iteration (for utilisation and traffic).
struct AttentionIterationWork {
  double tensor_fma = 0;     // useful + padded tensor-core FMAs
  double fp32_instr = 0;     // warp instructions on the FP32 pipe (FFMA/FMUL/FADD/FMNMX/F2FP)
  double mufu_instr = 0;     // warp MUFU instructions
  double smem_bytes = 0;     // shared-memory bytes read and written (copies in, fragments out)
};

AttentionIterationWork attention_iteration_work(const GpuConfig& g, const AttentionPlan& p);

// The program of one CTA that runs `iterations` loop iterations (>= 0).
WarpProgram build_attention_program(const GpuConfig& g, const AttentionPlan& p, std::int64_t iterations);

}  // namespace tcsim::gpu
