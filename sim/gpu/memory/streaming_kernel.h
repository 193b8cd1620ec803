#pragma once
// Cost of a library's memory-bound helper kernel (a layout transpose, a Winograd or FFT transform,
// a direct depthwise convolution): its bytes at the DRAM bandwidth (the L2's when the operation's
// whole footprint fits in L2; element-wide lanes at most at the narrow-request rate), its arithmetic
// at the CUDA-core rate, whichever is longer, plus a launch.
// Kept separate from GpuModel::run_memory on purpose: conv helpers need only this simple form.
#include <cstdint>
#include <string>

#include "gpu/gpu_config.h"

namespace tcsim::gpu {

struct StreamingKernel {
  std::string what;          // "NCHW->NHWC transpose of the input", ...
  double read_bytes = 0;
  double write_bytes = 0;
  double flops = 0;          // non-tensor arithmetic (FP32 rate)
  // A layout conversion (cuDNN's nchwToNhwcKernel / nhwcToNchwKernel, filter reorders): lanes move
  // one element each (access_bytes wide), so narrow elements meet l1.narrow_request_interval; 0: not one.
  int access_bytes = 0;
  // Bytes of the whole operation the kernel is part of (a convolution's tensors, their converted
  // copies and its helpers' outputs): its inputs are still in L2 only if all of it fits; 0: its own bytes.
  double footprint_bytes = 0;
  // CTAs whose count, not their bytes, can bound the kernel: each holds an SM for `cta_cycles`
  // whatever it moves (cuDNN 9's layout conversions, conv_lowering.cpp); 0: not modelled.
  std::int64_t ctas = 0;
  double cta_cycles = 0;
};

struct StreamingCost {
  double cycles = 0;         // kernel cycles, without the launch
  double time_s = 0;         // with one launch overhead
  bool in_l2 = false;        // the footprint fit in L2
  bool math_bound = false;
};

StreamingCost streaming_cost(const GpuConfig& g, const StreamingKernel& k);

}  // namespace tcsim::gpu
