#pragma once
// What a GPU kernel's name says about how it ran: cuBLAS, cuDNN, CUTLASS and FlashAttention name
// their kernels after the instruction they are built on, so the name tells the tensor-core paths
// of each generation from the CUDA-core ones:
//   Volta    s884 / h884 (HMMA.884)           volta_h884gemm_..., volta_fp16_s884cudnn_...
//   Turing   s1688 / h1688 / i8816 (IMMA)      turing_h1688gemm_..., turing_fp16_s1688cudnn_...
//   Ampere   s16816 / h16816 / bf16816, tf32,  ampere_s16816gemm_..., sm80_xmma_gemm_...,
//            xmma, cutlass_80_tensorop          cutlass_80_tensorop_s1688gemm_bf16_...
//   Hopper   gmma / wgmma, sm90_xmma, nvjet     sm90_xmma_gemm_..._wgmma, nvjet_tst_...
//   (and the fused-attention kernels: flash_fwd/flash_bwd, fmha_cutlass*, cudnn sdpa)
// CUDA cores: sgemm / dgemm / hgemm without an MMA shape, simt, gemv, scudnn, winograd and fft
// convolutions (scudnn_winograd, fft2d_r2c), implicit_convolve_sgemm.
#include <string>
#include <string_view>

namespace tcsim::workload {

enum class MathPath { tensor_core, cuda_core, other };  // other: memory-bound and unrecognised kernels
enum class NameFamily { gemm, conv, attention, memory, other };
enum class ConvPassHint { none, fprop, dgrad, wgrad };

struct KernelNameClass {
  MathPath path = MathPath::other;
  NameFamily family = NameFamily::other;
  std::string generation;              // "volta", "turing", "ampere", "hopper" or "" (not in the name)
  ConvPassHint conv_pass = ConvPassHint::none;
  bool nhwc = false;                   // a channels-last convolution kernel
  bool layout_transpose = false;       // cuDNN's NCHW <-> NHWC transpose around a convolution
  bool per_channel_batch_norm = false; // cuDNN's channels-first training batch norm (a CTA per channel)
  bool nhwc_batch_norm = false;        // cuDNN's channels-last persistent training batch norm
  bool nhwc_inference_batch_norm = false;  // cuDNN's channels-last inference batch norm (bn_fw_inf_1C11_kernel_NHWC)
  // ATen's torch.cat kernels (native/cuda/Shape.cu): the general non-contiguous CatArrayBatchedCopy
  // (per-element offsets by division) against its contiguous / vectorized variants, and the element
  // size their OpaqueType<N> template names (0: not a cat kernel or not named).
  bool non_contiguous_cat = false;
  int cat_element_bytes = 0;
  // A cudaMemsetAsync (the trace's "Memset ..." activity): a library zeroing its workspace or
  // semaphores inside the op (cuBLAS split-K, cuDNN's convolutions and batch norms, ATen's
  // multi-CTA reductions), GPU work of its own that the op's measured time includes.
  bool memset = false;
};

KernelNameClass classify_kernel_name(std::string_view name);
const char* to_string(MathPath p);      // "tensor_core", "cuda_core", "other"
const char* to_string(NameFamily f);    // "gemm", "conv", "attention", "memory", "other"

}  // namespace tcsim::workload
