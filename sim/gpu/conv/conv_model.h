#pragma once
// A convolution on the GPU as cuDNN runs it: lower_conv (conv_lowering.h) picks the algorithm
// and its kernels; the GEMM is costed by the GEMM machinery (mappings, SM simulation, traffic),
// the helper kernels by streaming_cost. See sim/gpu/README.md, "Convolutions".
#include "gpu/conv/conv_lowering.h"
#include "gpu/gemm/gemm_estimate.h"
#include "gpu/gemm/mapping.h"
#include "workload/kernel.h"
#include "workload/kernel_result.h"

namespace tcsim::gpu {

// The convolution as cuDNN runs it: what it picked (with one candidate algorithm, conv_candidates,
// that one; else, cuDNN 8 benchmark mode, the fastest modelled), its GEMM mapping and cost; and
// the cost of that pick at another clock (the power governor re-costs the boost clock's choice:
// cuDNN's algorithm and kernel do not follow the clock).
struct ConvPick {
  ConvLowering lowering;
  Mapping mapping;       // of its GEMM (when lowering.has_gemm)
  KernelResult result;   // at the clock it was picked at
};
ConvPick run_conv(const GpuConfig& g, const Kernel& k, SmTimeCache& cache);
KernelResult run_conv_pick(const GpuConfig& g, const Kernel& k, const ConvPick& pick, SmTimeCache& cache);

// The lowering run_conv picks (kernel_program's GEMM of a convolution).
ConvLowering pick_conv(const GpuConfig& g, const Kernel& k, SmTimeCache& cache);

}  // namespace tcsim::gpu
