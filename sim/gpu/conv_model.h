#pragma once
// A convolution on the GPU as cuDNN runs it: lower_conv (conv_lowering.h) picks the algorithm
// and its kernels; the GEMM is costed by the GEMM machinery (mappings, SM simulation, traffic),
// the helper kernels by streaming_cost. See sim/gpu/README.md, "Convolutions".
#include "gpu/gemm_estimate.h"
#include "workload/kernel.h"
#include "workload/kernel_result.h"

namespace tcsim::gpu {

KernelResult run_conv(const GpuConfig& g, const Kernel& k, SmTimeCache& cache);

}  // namespace tcsim::gpu
