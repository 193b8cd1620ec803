#pragma once
// The kernels cuBLAS runs for a GEMM call, where its heuristic is known to differ from "the fastest
// tile of the architecture": applied to plain GEMM calls (not to cuDNN's convolution GEMMs, which
// conv_lowering.cpp restricts itself).
#include "gpu/gemm/gemm_plan.h"
#include "gpu/gpu_config.h"

namespace tcsim::gpu {

// Restricts plan.cta_tiles / plan.max_split_k and adds a note saying which library kernel runs.
void apply_cublas_choice(const GpuConfig& g, GemmPlan& plan);

}  // namespace tcsim::gpu
