#pragma once
// The kernels one cuDNN convolution call launches on this GPU, before costing: the algorithm
// (conv_algo.h), its main GEMM (an implicit GEMM, or the batched GEMMs of Winograd / FFT) as a
// planned GemmPlan, and its memory-bound helper kernels (layout transposes, transforms).
// See sim/gpu/README.md, "Convolutions".
#include <string>
#include <vector>

#include "gpu/conv/conv_algo.h"
#include "gpu/gemm/gemm_plan.h"
#include "gpu/memory/streaming_kernel.h"

namespace tcsim::gpu {

struct ConvLowering {
  ConvChoice choice;
  std::vector<StreamingKernel> helpers;  // memory-bound kernels launched besides the GEMM
  bool has_gemm = true;                  // false: a direct kernel (depthwise) is the whole call
  GemmPlan gemm;                         // the main (batched) GEMM of the algorithm
  StreamingKernel direct;                // when !has_gemm
  // fp32 atomic adds the GEMM's epilogue scatters into global memory instead of storing its tile
  // (BWD_DATA_ALGO_0's col2im); costed by cost_lowering (conv_model.cpp).
  double scatter_atomics = 0;
  // Core-clock cycles the GEMM kernel takes beyond what its tiles cost (cuDNN 9's sm_90 implicit-GEMM
  // convolution kernels: kCudnnSm90ConvFixedCycles in conv_lowering.cpp); added by cost_lowering.
  // Once per kernel, not per CTA round as calibration.tile_overhead: the measured excess does not
  // grow with the rounds.
  double fixed_cycles = 0;
  std::vector<std::string> notes;
};

// Throws InputError for bad convolutions (check_conv) and formats no unit runs.
ConvLowering lower_conv(const GpuConfig& g, const Kernel& k);
// The same for one algorithm (one of conv_candidates).
ConvLowering lower_conv(const GpuConfig& g, const Kernel& k, const ConvChoice& choice);

}  // namespace tcsim::gpu
