#pragma once
// A convolution on the GPU as the library runs it: the cuDNN algorithm predicted by
// choose_conv_algo (conv_algo.h), its GEMM kernels costed by the GEMM machinery (mappings, SM
// simulation, traffic) and its memory-bound helper kernels (layout transposes, Winograd and FFT
// transforms) by streaming_cost. See sim/gpu/README.md, "Convolutions".
#include <string>
#include <vector>

#include "gpu/conv_algo.h"
#include "gpu/gemm_estimate.h"
#include "gpu/gemm_plan.h"
#include "gpu/streaming_kernel.h"
#include "workload/kernel_result.h"

namespace tcsim::gpu {

// The kernels one convolution call launches, before costing.
struct ConvLowering {
  ConvChoice choice;
  std::vector<StreamingKernel> helpers;  // memory-bound kernels, in launch order around the GEMM
  bool has_gemm = true;                  // false: a direct kernel (depthwise) is the whole call
  GemmPlan gemm;                         // the main (batched) GEMM of the algorithm
  StreamingKernel direct;                // when !has_gemm
  std::vector<std::string> notes;
};

ConvLowering lower_conv(const GpuConfig& g, const Kernel& k);

KernelResult run_conv(const GpuConfig& g, const Kernel& k, SmTimeCache& cache);

}  // namespace tcsim::gpu
