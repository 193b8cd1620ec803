#include "gpu/conv/conv_algo.h"

#include <optional>

#include "common/error.h"

namespace tcsim::gpu {

const char* cudnn_name(ConvAlgo a) {
  switch (a) {
    case ConvAlgo::implicit_gemm: return "IMPLICIT_GEMM";
    case ConvAlgo::implicit_precomp_gemm: return "IMPLICIT_PRECOMP_GEMM";
    case ConvAlgo::winograd: return "WINOGRAD";
    case ConvAlgo::winograd_nonfused: return "WINOGRAD_NONFUSED";
    case ConvAlgo::fft_tiling: return "FFT_TILING";
    case ConvAlgo::direct_depthwise: return "DIRECT_DEPTHWISE";
    case ConvAlgo::dgrad_col2im_atomic: return "BWD_DATA_ALGO_0";
    case ConvAlgo::dgrad_unity_stride: return "IMPLICIT_GEMM_UNITY_STRIDE";
  }
  return "?";
}

void check_conv(const Kernel& k) {
  const ConvShape& c = k.conv;
  const std::string where = "kernel " + (k.name.empty() ? std::string("<unnamed>") : k.name) + " (conv)";
  auto positive = [&](std::int64_t v, const char* key) {
    if (v <= 0) throw InputError(where, std::string("expected a positive ") + key + ", got " + std::to_string(v));
  };
  positive(c.batch, "batch");
  positive(c.ifmap_h, "input height");
  positive(c.ifmap_w, "input width");
  positive(c.filter_h, "filter height (R)");
  positive(c.filter_w, "filter width (S)");
  positive(c.channels, "channel count (C)");
  positive(c.num_filters, "filter count (K)");
  positive(c.stride_h, "vertical stride");
  positive(c.stride_w, "horizontal stride");
  positive(c.dilation_h, "vertical dilation");
  positive(c.dilation_w, "horizontal dilation");
  positive(c.groups, "group count");
  if (c.pad_h < 0 || c.pad_w < 0) throw InputError(where, "expected non-negative padding");
  if (c.span_h() > c.ifmap_h + 2 * c.pad_h)
    throw InputError(where, "filter (R " + std::to_string(c.filter_h) + ", dilation " + std::to_string(c.dilation_h) +
                                ") taller than the padded input (" + std::to_string(c.ifmap_h + 2 * c.pad_h) + ")");
  if (c.span_w() > c.ifmap_w + 2 * c.pad_w)
    throw InputError(where, "filter (S " + std::to_string(c.filter_w) + ", dilation " + std::to_string(c.dilation_w) +
                                ") wider than the padded input (" + std::to_string(c.ifmap_w + 2 * c.pad_w) + ")");
  // Element counts of the tensors and of the implicit GEMM must stay far from int64 overflow.
  const double limit = 0x1p50;
  const double x = double(c.batch) * double(c.ifmap_h) * double(c.ifmap_w) * double(c.channels);
  const double y = double(c.batch) * double(c.out_h()) * double(c.out_w()) * double(c.num_filters);
  const double w = double(c.num_filters) * double(c.channels) * double(c.filter_h) * double(c.filter_w);
  const double rs_k = double(c.filter_h) * double(c.filter_w) * double(c.num_filters);
  if (x > limit || y > limit || w > limit || double(c.batch) * double(c.ifmap_h) * double(c.ifmap_w) * rs_k > 0x1p62)
    throw InputError(where, "tensors too large (more than 2^50 elements)");
  if (c.channels % c.groups || c.num_filters % c.groups)
    throw InputError(where, "channels (" + std::to_string(c.channels) + ") and filters (" +
                                std::to_string(c.num_filters) + ") must be multiples of groups (" +
                                std::to_string(c.groups) + ")");
}

namespace {

// Implicit GEMM on the CUDA cores. The precomputed-index variant is picked for square 5x5 filters
// and for 1x1 filters that widen (K > C) or stride; the two cost the same here.
ConvChoice cuda_core_implicit_gemm(const ConvShape& c) {
  const bool unit_stride = c.stride_h == 1 && c.stride_w == 1;
  const bool one = c.filter_h == 1 && c.filter_w == 1;
  const bool precomp = (c.filter_h == 5 && c.filter_w == 5) ||
                       (one && (c.num_filters > c.channels || (!unit_stride && 2 * c.num_filters >= c.channels)));
  ConvChoice out;
  out.algo = precomp ? ConvAlgo::implicit_precomp_gemm : ConvAlgo::implicit_gemm;
  out.why = "FP32 implicit GEMM on the CUDA cores";
  return out;
}

}  // namespace

ConvChoice choose_conv_algo(const GpuConfig& g, const Kernel& k) {
  const ConvShape& c = k.conv;
  ConvChoice out;
  if (c.depthwise()) {
    // cuDNN (and PyTorch's own kernels) run depthwise convolutions as direct per-channel kernels:
    // R*S multiply-adds per output element cannot feed a tensor-core tile.
    out.algo = ConvAlgo::direct_depthwise;
    out.why = "depthwise (groups == channels): direct per-channel kernel, no tensor cores";
    return out;
  }
  out.tensor_cores = k.a_format != FormatId::fp32 && g.find_mma(k.a_format, k.c_format) != nullptr;
  // Learnt on DeepBench's V100 FP16 sheet (cuDNN 7.6): the one layer whose padding reaches a whole
  // filter (Face Recognition 7x7x2048, 1x1, pad 3, stride 2) takes longer in FP16 than in FP32 in
  // both backward passes (weight gradient 190 / 356 us vs 140 / 263, data gradient 277 / 362 vs
  // 115 / 220 at N = 8 / 16): no tensor-core kernel ran. Its forward pass (65 us, FP32 165 / 212)
  // did. A padded 1x1 and padding of a whole filter are the same rows in that sheet; the wider
  // criterion is taken (outputs that see nothing but padding, and a data gradient that as a
  // convolution of dY would need negative padding: span - 1 - pad). The FP32 twin's kernels run on the 16-bit
  // tensors (sim/gpu/README.md, "Backward passes whose padding reaches a whole filter").
  const bool pads_whole_filter = c.pad_h >= c.span_h() || c.pad_w >= c.span_w();  // span: dilated extent
  if (out.tensor_cores && g.arch == "sm_70" && cudnn_version(g, k) < 8 && k.pass != Pass::forward &&
      pads_whole_filter) {
    ConvChoice simt = cuda_core_implicit_gemm(c);
    simt.fp32_math = true;
    simt.why = "cuDNN 7 on sm_70, a backward pass with padding (" + std::to_string(c.pad_h) + ", " +
               std::to_string(c.pad_w) + ") reaching a whole " + std::to_string(c.filter_h) + "x" +
               std::to_string(c.filter_w) + " filter: no tensor-core kernel, the FP32 implicit GEMM on the " +
               std::string(format_name(k.a_format)) + " tensors (FFMA)";
    return simt;
  }
  if (out.tensor_cores) {
    // cuDNN 7.6 on sm_70 ran every half-precision DeepBench layer (94 of 94, all three passes'
    // timing consistent with it) with its tensor-core precomputed-index implicit GEMM
    // (volta_fp16_s884cudnn_* kernels); Winograd/FFT have no tensor-core variants there.
    out.algo = ConvAlgo::implicit_precomp_gemm;
    out.why = "tensor-core formats: cuDNN's precomputed-index implicit GEMM";
    return out;
  }
  const bool plain = c.groups == 1 && c.dilation_h == 1 && c.dilation_w == 1;
  const bool unit_stride = c.stride_h == 1 && c.stride_w == 1;
  // FP32 on the CUDA cores: the rules learnt from DeepBench's V100 FP32 sheet (cuDNN 7.6.2,
  // its "Forward Algorithm" column; agreement is reported in sim/gpu/README.md).
  if (plain && unit_stride && c.filter_h == 3 && c.filter_w == 3 && c.channels >= 32) {
    // Winograd pays off once the reduction over channels amortises its transforms; the fused
    // F(2x2,3x3) kernel wins for small C x batch (its in-kernel transforms are cheap, the
    // nonfused version's extra passes over memory are not).
    const bool fused = c.channels * c.batch <= 512 && k.pass != Pass::weight_grad;
    out.algo = fused ? ConvAlgo::winograd : ConvAlgo::winograd_nonfused;
    out.why = fused ? "3x3 stride 1, C >= 32, C x batch <= 512: fused Winograd F(2x2,3x3)"
                    : "3x3 stride 1, C >= 32: nonfused Winograd F(4x4,3x3)";
    return out;
  }
  if (plain && unit_stride && c.filter_h == 5 && c.filter_w == 5 && c.channels >= 32) {
    out.algo = c.channels >= 256 ? ConvAlgo::winograd_nonfused : ConvAlgo::fft_tiling;
    out.why = c.channels >= 256 ? "5x5 stride 1, C >= 256: nonfused Winograd F(2x2,5x5)"
                                : "5x5 stride 1, 32 <= C < 256: FFT with 32x32 tiles";
    return out;
  }
  return cuda_core_implicit_gemm(c);
}

double cudnn_version(const GpuConfig& g, const Kernel& k) {
  return k.conv.cudnn_version > 0 ? k.conv.cudnn_version : g.cudnn_version;
}

bool cudnn9_heuristic(const GpuConfig& g, const Kernel& k) { return !g.cudnn_benchmark && cudnn_version(g, k) >= 9; }

namespace {

// cuDNN 9 on sm_90 runs some strided 16-bit data gradients as unit-stride ones: the filter is cut
// into its stride_h x stride_w phases (ceil(R/sh) x ceil(S/sw) taps each, zeros where a phase has
// fewer), which become output channels, so the GEMM computes C x sh x sw channels of N x ceil(H/sh)
// x ceil(W/sw) pixels, and a transform puts the phases back in place in dX. Every such call of the
// H100 and H200 DeepBench traces (validation/measured/H*/conv_deepbench; fp16 and bf16, benchmark
// mode on or off) is tensorTransformGeneric (the filter), cutlass_tensorop_*_s16816dgrad_optimized_
// *_nhwc_unity_stride_align8 with a grid of ceil(N ceil(H/2) ceil(W/2) / tile) CTAs, and
// tensorTransformGeneric (dX): DeepSpeech's one-channel 20x5 stride-2 layer (all four batches, both
// layouts) and the channels-last three-channel 3x3 stride-2 layer. No layer with C a multiple of 8
// is rewritten. cuDNN's own rule is not known. The model keeps the cheaper of the rewrite and the
// strided sm90 kernel, except for channels-last tensors of C > 1, whose dX rows (C x 2 bytes) the
// sm90 kernels' TMA cannot address (none ran there): the rewrite alone. Where its choice is not the
// trace's: the one-channel 5x5 stride-2 layer (K = 64, pad 1) runs the strided sm90 kernel, and the
// channels-last three-channel 7x7 stride-2 one an sm80_xmma strided kernel into a padded dX, whose
// cost the rewrite's stands in for (sim/gpu/README.md, "The unity-stride data gradient").
std::optional<ConvChoice> unity_stride_dgrad_candidate(const GpuConfig& g, const Kernel& k, const ConvChoice& rule) {
  const ConvShape& c = k.conv;
  const bool strided = c.stride_h * c.stride_w > 1;
  const bool plain = c.groups == 1 && c.dilation_h == 1 && c.dilation_w == 1;
  if (k.pass != Pass::data_grad || !rule.tensor_cores || !strided || !plain || g.arch != "sm_90" ||
      cudnn_version(g, k) < 9 || format_bits(k.a_format) != 16 || c.channels % 8 == 0)
    return std::nullopt;
  return ConvChoice{ConvAlgo::dgrad_unity_stride, true,
                    "strided data gradient with C = " + std::to_string(c.channels) +
                        " (not a multiple of 8): rewritten as a unit-stride one over the " +
                        std::to_string(c.stride_h * c.stride_w) + " stride phases"};
}

}  // namespace

std::vector<ConvChoice> conv_candidates(const GpuConfig& g, const Kernel& k) {
  const ConvChoice rule = choose_conv_algo(g, k);
  std::vector<ConvChoice> out{rule};
  if (const auto unity = unity_stride_dgrad_candidate(g, k, rule)) {
    if (k.conv.layout == TensorLayout::nhwc && k.conv.channels > 1) return {*unity};
    out.front().why = "candidate: " + out.front().why;
    out.push_back(*unity);
    return out;
  }
  // cuDNN 7's rules above were learnt from its heuristic (DeepBench). From cuDNN 8 on, PyTorch's
  // benchmark mode (cudnnFind*) times the algorithms and keeps the fastest: NeuSight's cuDNN 8.9
  // listings switch between fused, nonfused Winograd and implicit GEMM where no shape rule separates
  // them (README "Convolutions"). The candidates are the algorithms whose cost the model checks.
  if (cudnn_version(g, k) < 8 || rule.tensor_cores || rule.algo == ConvAlgo::direct_depthwise) return out;
  const ConvShape& c = k.conv;
  // cuDNN 9's heuristic (cudnn.benchmark off, PyTorch's default) keeps FP32 forward convolutions on
  // implicit GEMM: in the H100 trace (cuDNN 9.19, validation/measured/H100/conv_deepbench, FP32
  // NCHW) every one of DeepBench's 90 forward shapes ran sm80_xmma_fprop_implicit_gemm_f32f32_* or
  // implicit_convolve_sgemm, the 27 3x3 and 3 5x5 stride-1 ones that benchmark mode runs as
  // Winograd or FFT included. Its data and weight gradients mix legacy engines (dgrad_engine,
  // wgrad_alg0_engine), FFT and, for the weight gradient, nonfused Winograd: not learnt, the
  // benchmark candidates stand in for them.
  if (cudnn9_heuristic(g, k) && k.pass == Pass::forward) {
    ConvChoice heuristic = cuda_core_implicit_gemm(c);
    heuristic.why = "cuDNN 9 heuristic (benchmark off): FP32 forward convolutions run implicit GEMM on the CUDA cores";
    return {heuristic};
  }
  // Its FP32 data gradients run the legacy dgrad_engine (BWD_DATA_ALGO_0) in 66 of DeepBench's 94
  // shapes on the H100, sm80_xmma_dgrad_implicit_gemm in 22 and FFT in 6, never Winograd; no shape
  // rule separates the first two (the same 3x3 layer at N = 8 and 16 gets one and the other), so
  // the model keeps the faster of the two it costs (sim/gpu/README.md, "cuDNN 9's heuristic").
  if (cudnn9_heuristic(g, k) && k.pass == Pass::data_grad) {
    ConvChoice gemm = cuda_core_implicit_gemm(c);
    gemm.why = "cuDNN 9 heuristic candidate: FP32 implicit GEMM on the CUDA cores";
    return {gemm, {ConvAlgo::dgrad_col2im_atomic, false,
                   "cuDNN 9 heuristic candidate: dgrad_engine, col2im GEMM with atomic adds into dX"}};
  }
  auto implicit = [](ConvAlgo a) { return a == ConvAlgo::implicit_gemm || a == ConvAlgo::implicit_precomp_gemm; };
  auto add = [&](ConvAlgo a, const char* why) {
    for (const auto& o : out)
      if (o.algo == a || (implicit(o.algo) && implicit(a))) return;  // the two implicit GEMMs cost the same
    out.push_back({a, false, std::string("cuDNN 8 benchmark mode candidate: ") + why});
  };
  add(ConvAlgo::implicit_precomp_gemm, "FP32 implicit GEMM on the CUDA cores");
  const bool winograd3 = c.groups == 1 && c.dilation_h == 1 && c.dilation_w == 1 && c.stride_h == 1 &&
                         c.stride_w == 1 && c.filter_h == 3 && c.filter_w == 3;
  if (winograd3) {
    if (k.pass != Pass::weight_grad) add(ConvAlgo::winograd, "fused Winograd F(2x2,3x3)");
    add(ConvAlgo::winograd_nonfused, "nonfused Winograd F(4x4,3x3)");
  }
  if (out.size() > 1) out.front().why = "cuDNN 8 benchmark mode candidate: " + out.front().why;
  return out;
}

}  // namespace tcsim::gpu
