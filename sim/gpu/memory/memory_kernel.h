#pragma once
// Timing of a memory-bound kernel (elementwise, softmax, norms, embedding, optimizer steps ...) on
// the GPU: the launch geometry of memory_launch.h turned into CTAs per SM, rounds of resident CTAs
// and their serial memory round trips (Little's law: few CTAs cannot keep enough bytes in flight
// to reach the bandwidth), the bandwidth of the level the footprint lives in (L2 when the data of
// a back-to-back-timed op fits in L2, else DRAM), the FP32 and special-function work, plus one
// launch. See sim/gpu/README.md, "Memory-bound kernels".
#include "gpu/gpu_config.h"
#include "workload/kernel.h"
#include "workload/kernel_result.h"

namespace tcsim::gpu {

KernelResult run_memory_kernel(const GpuConfig& g, const Kernel& k);

}  // namespace tcsim::gpu
