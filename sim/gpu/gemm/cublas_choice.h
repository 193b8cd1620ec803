#pragma once
// The kernels cuBLAS runs for a GEMM call, where its heuristic is known to differ from "the fastest
// tile of the architecture": applied to plain GEMM calls and to the strided-batched SGEMM that cuDNN's
// nonfused Winograd calls (cuDNN's own convolution kernels are restricted in conv_lowering.cpp).
#include <optional>
#include <utility>

#include "gpu/gemm/gemm_plan.h"
#include "gpu/gemm/gemv/gemv_launch.h"
#include "gpu/gpu_config.h"

namespace tcsim::gpu {

// Restricts plan.cta_tiles / max_split_k / sliced_k to the kernels the library has, or moves the plan
// to the library's mma.sync kernel (small TF32 GEMMs on sm_90), with a note saying which kernel runs.
// `row_major_caller`: the call comes from a row-major framework (PyTorch), which hands cuBLAS the
// transposed product; cuDNN's own calls are column-major.
void apply_cublas_choice(const GpuConfig& g, GemmPlan& plan, bool row_major_caller = true);

// cuBLAS's strided-batched SGEMM tile on sm_70/75 (volta_sgemm_{64x64,32x128,128x32}_nn) as our
// (M tile, N tile): a rule learnt from NeuSight's V100 kernel listings (cublas_choice.cpp).
std::pair<int, int> volta_batched_sgemm_tile(const GpuConfig& g, const GemmProblem& p, bool row_major_caller);

// cuBLAS on sm_90 runs a small TF32 GEMM on its sm_80 kernels (cutlass_80_tensorop_s1688gemm_*,
// mma.sync, cp.async) rather than an sm90_xmma wgmma one: a rule over the output's size per operand
// layout, learnt from the kernel names of the H100 single-op profile (cublas_choice.cpp). `p` is the
// problem of a single (not batched) GEMM call; apply_cublas_choice applies it.
bool cublas_sm90_tf32_runs_sm80_kernel(const GemmProblem& p);

// The matrix-vector kernel the library runs instead of a GEMM tile when M or N is 1 (a decode
// step's projections); nullopt where a tiled GEMM runs. `kernel` must have passed plan_gemm.
std::optional<GemvLaunch> cublas_gemv(const GpuConfig& g, const Kernel& kernel);

}  // namespace tcsim::gpu
