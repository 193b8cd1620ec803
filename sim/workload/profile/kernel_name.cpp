#include "workload/profile/kernel_name.h"

#include <cstdlib>
#include <initializer_list>

#include "common/text/strings.h"

namespace tcsim::workload {
namespace {

bool has(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }
bool has_any(std::string_view s, std::initializer_list<std::string_view> parts) {
  for (auto p : parts)
    if (has(s, p)) return true;
  return false;
}

}  // namespace

KernelNameClass classify_kernel_name(std::string_view raw) {
  const std::string s = to_lower(raw);
  KernelNameClass c;
  c.memset = s.rfind("memset", 0) == 0;
  // The MMA instruction shape names the generation of the kernel's tensor-core path.
  if (has_any(s, {"gmma", "sm90", "nvjet", "hopper", "cutlass3x_sm90"})) c.generation = "hopper";
  else if (has_any(s, {"s16816", "h16816", "bf16816", "i16832", "sm80", "sm86", "sm89", "ampere", "cutlass_80", "tf32"}))
    c.generation = "ampere";
  else if (has_any(s, {"s1688", "h1688", "i8816", "turing", "sm75"})) c.generation = "turing";
  else if (has_any(s, {"s884", "h884", "volta", "sm70"})) c.generation = "volta";

  const bool attention = has_any(s, {"flash_fwd", "flash_bwd", "fmha", "sdpa", "attention", "flash::"});
  const bool conv = has_any(s, {"cudnn", "conv", "implicit_precomp", "implicit_gemm", "winograd", "fft", "fprop",
                                "dgrad", "wgrad"});
  const bool gemm = has_any(s, {"gemm", "gemv", "nvjet", "gemmk1", "dot_kernel", "cutlass"});
  // cuDNN's XMMA library also has CUDA-core kernels, named by their math instruction
  // (sm80_xmma_fprop_implicit_gemm_f32f32_..._ffma_..., the FP32 convolutions of the H100 traces
  // with TF32 off): "ffma" outranks "xmma".
  const bool ffma = has(s, "_ffma");
  const bool mma = !ffma && has_any(s, {"s884", "h884", "s1688", "h1688", "i8816", "s16816", "h16816", "bf16816",
                                        "i16832", "tensorop", "xmma", "gmma", "wmma", "hmma", "imma", "tf32", "nvjet",
                                        "tensorcore"});
  const bool simt = ffma || has_any(s, {"sgemm", "dgemm", "simt", "gemv", "scudnn", "dcudnn", "winograd", "fft",
                                        "implicit_convolve_sgemm", "dot_kernel"});

  if (attention) c.family = NameFamily::attention;
  else if (conv) c.family = NameFamily::conv;
  else if (gemm) c.family = NameFamily::gemm;
  else if (has_any(s, {"elementwise", "reduce", "softmax", "norm", "multi_tensor_apply", "copy", "fill", "cat",
                       "index", "embedding", "dropout", "pool", "transpose", "nchwtonhwc", "nhwctonchw", "memcpy",
                       "memset", "splitk"}))
    c.family = NameFamily::memory;

  if (mma) c.path = MathPath::tensor_core;
  else if (simt) c.path = MathPath::cuda_core;
  else if (attention) c.path = MathPath::tensor_core;  // FlashAttention / cutlass fmha run on mma.sync or wgmma
  else if (c.family == NameFamily::gemm || c.family == NameFamily::conv) {
    // cuDNN's implicit_precomp / implicit_gemm kernels without an MMA shape are fp32 CUDA-core code.
    c.path = MathPath::cuda_core;
  }
  // A "splitKreduce" or nchw<->nhwc transpose inside a GEMM library is memory work.
  if (has_any(s, {"splitkreduce", "nchwtonhwc", "nhwctonchw", "reduce_kernel"})) {
    c.family = NameFamily::memory;
    c.path = MathPath::other;
  }
  if (has(s, "dgrad")) c.conv_pass = ConvPassHint::dgrad;
  else if (has(s, "wgrad")) c.conv_pass = ConvPassHint::wgrad;
  else if (has(s, "fprop")) c.conv_pass = ConvPassHint::fprop;
  // cuDNN's layout transposes (nchwToNhwcKernel, nhwcToNchwKernel) mean NCHW tensors, not channels-last
  // ones: an NCHW convolution on sm_90 launches them around an nhwc-named conv kernel (H100 traces).
  c.layout_transpose = has(s, "nchwtonhwc") || has(s, "nchw2nhwc") || has(s, "nhwctonchw") || has(s, "nhwc2nchw");
  c.nhwc = has(s, "nhwc") && !c.layout_transpose;
  // cudnn::bn_fw_tr_1C11_kernel_NCHW, cudnn::bn_bw_1C11_kernel_new (the H100 profiles' grids: C CTAs)
  c.per_channel_batch_norm = has(s, "bn_fw_tr_1c11_kernel_nchw") || has(s, "bn_bw_1c11_kernel");
  // cudnn::batchnorm_fwtr_nhwc_semiPersist, batchnorm_bwtr_nhwc_semiPersist (ResNet-50 AMP channels-last)
  c.nhwc_batch_norm = has(s, "batchnorm_fwtr_nhwc") || has(s, "batchnorm_bwtr_nhwc");
  // cudnn::bn_fw_inf_1C11_kernel_NHWC (ResNet-50 inference, AMP channels-last: the H200 loan 5 traces)
  c.nhwc_inference_batch_norm = has(s, "bn_fw_inf_1c11_kernel_nhwc");
  if (const std::size_t at = s.find("catarraybatchedcopy"); at != std::string::npos) {
    c.non_contiguous_cat = s.compare(at, 20, "catarraybatchedcopy<") == 0;
    if (const std::size_t o = s.find("opaquetype<", at); o != std::string::npos)
      c.cat_element_bytes = std::atoi(s.c_str() + o + 11);
  }
  return c;
}

const char* to_string(MathPath p) {
  switch (p) {
    case MathPath::tensor_core: return "tensor_core";
    case MathPath::cuda_core: return "cuda_core";
    case MathPath::other: return "other";
  }
  return "other";
}

const char* to_string(NameFamily f) {
  switch (f) {
    case NameFamily::gemm: return "gemm";
    case NameFamily::conv: return "conv";
    case NameFamily::attention: return "attention";
    case NameFamily::memory: return "memory";
    case NameFamily::other: return "other";
  }
  return "other";
}

}  // namespace tcsim::workload
