#pragma once
// Which cuDNN algorithm runs a convolution on this GPU, predicted from the shape, the pass, the
// data format and the architecture only (like cudnnGetConvolution*Algorithm_v7 / benchmark mode
// would pick). The rules and the DeepBench rows they were learnt from are in sim/gpu/README.md
// ("Convolutions"); the prediction never reads a measurement.
#include <string>
#include <vector>

#include "gpu/gpu_config.h"
#include "workload/kernel.h"

namespace tcsim::gpu {

enum class ConvAlgo {
  implicit_gemm,          // CUDNN_CONVOLUTION_*_ALGO_0 / IMPLICIT_GEMM: indices computed in the loop
  implicit_precomp_gemm,  // IMPLICIT_PRECOMP_GEMM: im2col offsets precomputed (tensor-core kernels)
  winograd,               // fused Winograd F(2x2,3x3) (Lavin & Gray 2016)
  winograd_nonfused,      // transforms + 36 batched GEMMs: F(4x4,3x3) or F(2x2,5x5)
  fft_tiling,             // 32x32-tiled FFT, per-frequency complex GEMMs
  direct_depthwise,       // one filter per channel: a memory-bound direct kernel
  dgrad_col2im_atomic,    // BWD_DATA_ALGO_0 (cuDNN's dgrad_engine): W^T x dY per image, scattered
                          // into dX with fp32 atomic adds (lower_dgrad_col2im_atomic)
  dgrad_unity_stride,     // a strided data gradient rewritten as a unit-stride one whose output
                          // channels are dX's stride phases (lower_dgrad_unity_stride)
};

// DeepBench / cuDNN spelling of the forward algorithm ("IMPLICIT_PRECOMP_GEMM", "WINOGRAD", ...).
const char* cudnn_name(ConvAlgo a);

struct ConvChoice {
  ConvAlgo algo = ConvAlgo::implicit_precomp_gemm;
  bool tensor_cores = false;  // the GEMM steps run on tensor cores
  std::string why;            // the rule that picked it, for KernelResult::notes
  // 16-bit tensors multiplied in fp32 on the CUDA cores (FFMA after a conversion, cuDNN 7's
  // *_scudnn_fp16_* kernels), not in HFMA2 pairs.
  bool fp32_math = false;
};

// Throws InputError for convolutions that make no sense (zero sizes, a filter larger than the
// padded input, channels not divisible by groups, formats no unit runs).
void check_conv(const Kernel& k);

ConvChoice choose_conv_algo(const GpuConfig& g, const Kernel& k);

// The cuDNN release a conv runs with: the kernel's own (a measured set's), else library.cudnn_version.
double cudnn_version(const GpuConfig& g, const Kernel& k);

// cuDNN 9 or newer with benchmark mode off: its heuristic picks the kernels (README "cuDNN 9's heuristic").
bool cudnn9_heuristic(const GpuConfig& g, const Kernel& k);

// The algorithms cuDNN may run for it, choose_conv_algo's first. cuDNN < 8: that one only. cuDNN 8+
// on the CUDA cores: benchmark mode, so also implicit GEMM and, for 3x3 stride-1 filters, both
// Winograd kernels; the caller keeps the fastest (conv_model.h). cuDNN 9 on sm_90, a strided 16-bit
// data gradient whose channels are not a multiple of 8: also the unity-stride rewrite, alone for
// channels-last tensors of C > 1 (unity_stride_dgrad_candidate).
std::vector<ConvChoice> conv_candidates(const GpuConfig& g, const Kernel& k);

}  // namespace tcsim::gpu
