#pragma once
// Time of a matrix-vector kernel (gemv_launch.h): a stream of the matrix's bytes, bounded by the
// bandwidth of the level the matrix lives in (DRAM, or L2 for an L2-resident matrix timed back to
// back), by the serial memory round trips of the busiest SM's CTAs (Little's law: a small grid
// cannot keep enough bytes in flight), by its SMs' load paths and by the CUDA-core work, plus the
// launch (and gemv2N's split-K reduction kernel). No tensor cores and no tile padding.
#include "gpu/gemm/gemv/gemv_launch.h"
#include "workload/kernel_result.h"

namespace tcsim::gpu {

// flops() and the name are filled from `kernel`; notes say which library kernel ran and why.
KernelResult run_gemv(const GpuConfig& g, const Kernel& kernel, const GemvLaunch& l);

}  // namespace tcsim::gpu
