#pragma once
// A convolution on the GPU as cuDNN runs it: lower_conv (conv_lowering.h) picks the algorithm
// and its kernels; the GEMM is costed by the GEMM machinery (mappings, SM simulation, traffic),
// the helper kernels by streaming_cost. See sim/gpu/README.md, "Convolutions".
#include "gpu/conv_lowering.h"
#include "gpu/gemm_estimate.h"
#include "workload/kernel.h"
#include "workload/kernel_result.h"

namespace tcsim::gpu {

KernelResult run_conv(const GpuConfig& g, const Kernel& k, SmTimeCache& cache);

// The lowering run_conv costs: with one candidate algorithm (conv_candidates) that one, else
// (cuDNN 8 benchmark mode) the one with the shortest modelled time.
ConvLowering pick_conv(const GpuConfig& g, const Kernel& k, SmTimeCache& cache);

}  // namespace tcsim::gpu
