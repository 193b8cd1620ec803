#include "gpu/conv/conv_lowering.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "gpu/gemm/cublas_choice.h"
#include "gpu/int_math.h"
#include "numerics/mma/arch.h"

namespace tcsim::gpu {
namespace {

using i64 = std::int64_t;

// CUTLASS's NHWC implicit-GEMM iterators (cutlass/conv/convolution.h, implicit_gemm_k_iterations
// with the Optimized iterator) walk a reduction over filter taps as taps x channel blocks of the
// CTA's K tile: every tap's channels are padded to a whole block. cuDNN's sm_70 tensor-core
// kernels use K tiles of 32 ("..._s884cudnn_..._ldg8_..."), so C = 8 costs as much as C = 32.
constexpr i64 kTensorChannelBlock = 32;

// Bytes of an L2 sector, the smallest unit a scattered store moves (CUDA C++ Best Practices Guide,
// "Coalesced Access to Global Memory": 32-byte segments).
constexpr double kSectorBytes = 32;

// A tensor as cuDNN's layout conversions see it: its bytes, and `outer` arrays of `channels` x
// `pixels` elements transposed between channels-major and pixels-major (x: N x C x H W, y: N x K x
// P Q, the filter: K x C x R S).
struct ConversionDims {
  double bytes = 0;
  i64 outer = 1, channels = 1, pixels = 1;
};

// The problem in the terms the lowerings use (per group; C and K padded for the tensor cores).
struct Dims {
  const ConvShape& c;
  Pass pass;
  bool tensor;
  i64 N, H, W, P, Q, R, S, cg, kg, groups;
  double e;        // bytes per element of x, w and y (cuDNN keeps them in one format)
  double x, y, w;  // bytes of the input, output and filter tensors (per group)
  bool sm90 = false;  // cuDNN 9's sm_90 kernels (lower_implicit)
  bool ampere_kernels = false;  // sm_80 and newer: cuDNN's cutlass_80_tensorop_* GEMM kernels (lower_implicit)
  // cuDNN 9's heuristic on sm_80+ with CUDA-core formats: its weight gradient's implicit GEMM is an
  // NHWC kernel behind layout conversions, one GEMM over N P Q (lower_implicit). Its other weight-
  // gradient kernels there: nonfused Winograd (3x3 stride 1, its own candidate), FFT (4 calls) and the
  // legacy wgrad_alg0_engine (74 calls: a 32x32 tile per image and 512-pixel chunk, summed with
  // atomics: not modelled, this kernel's split-K stands in).
  bool cudnn9_nhwc_wgrad = false;
  // cuDNN 9's xmma data gradient on the CUDA cores covers every input pixel, also those no tap of a
  // filter smaller than its stride reaches (its grid: ceil(N H W / 32) CTAs along M in all its
  // strided 1x1 calls; validation/measured/H100/conv_deepbench), where cuDNN 7's kernels skip rows.
  bool dgrad_every_pixel = false;
  // The smallest piece of a tensor the memory system moves from DRAM: an L2 sector, or the DRAM's
  // access granularity where that is larger (dram.access_granularity; gathered_input_bytes).
  double granule = kSectorBytes;
  // cuDNN 9 on sm_90 with NCHW tensors on the tensor cores: layout conversions are kernels of their
  // own, and only a stride-1 1x1 convolution stays a GEMM on NCHW (lower_implicit).
  bool sm90_nchw_tensor() const { return sm90 && tensor && c.layout == TensorLayout::nchw; }
  bool ampere_nchw_tensor() const { return ampere_kernels && tensor && c.layout == TensorLayout::nchw; }
  bool unit_stride() const { return c.stride_h * c.stride_w == 1; }
  // The tensors as cuDNN's layout conversions walk them (layout_conversion).
  ConversionDims x_conversion() const { return {x, N, c.channels, H * W}; }
  ConversionDims y_conversion() const { return {y, N, c.num_filters, P * Q}; }
  ConversionDims w_conversion() const { return {w * double(groups), c.num_filters, c.channels / groups, R * S}; }
  // Before sm_80 a unit-stride tensor-core weight gradient of NCHW tensors reads x as it is: its
  // reduction runs along the output pixels, consecutive input pixels of a row when the stride is 1
  // (16-byte loads along W); a strided one cannot. Two DRAM-rate transposes and the GEMM at the
  // tensor peak exceed what DeepBench measured for the V100's 3x3 stride-1 weight gradients; which
  // operand is read as it is was chosen by fit (sim/gpu/README.md, "One transpose in a unit-stride
  // weight gradient before sm_80").
  bool wgrad_reads_nchw_x() const { return pre_sm80_nchw_tensor_wgrad() && unit_stride(); }
  // The strided ones with a filter larger than 1x1, whose x and dY both go through nchwToNhwcKernel
  // (a 1x1 is a GEMM per image; a padded 1x1 also runs behind both transposes, but the tile rule
  // that reads this was learnt on larger filters: sim/gpu/README.md, "The strided weight gradient's tiles").
  bool transposes_both_wgrad_operands() const { return pre_sm80_nchw_tensor_wgrad() && !unit_stride() && R * S > 1; }
  // A tensor-core weight gradient of NCHW tensors before sm_80 (cuDNN 7's kernels).
  bool pre_sm80_nchw_tensor_wgrad() const {
    return pass == Pass::weight_grad && tensor && c.layout == TensorLayout::nchw && !ampere_kernels && !sm90;
  }
  // A filter smaller than its stride (a 1x1 stride-2 shortcut): some input rows or columns get no tap.
  bool skips_pixels() const { return R < c.stride_h || S < c.stride_w; }
};

// The fewest output pixels per image for which cuDNN runs a stride-1 1x1 convolution of NCHW tensors
// on sm_80+ tensor cores as a GEMM per image: the smallest M tile (64 rows) of the
// cutlass_80_tensorop_s1688gemm kernels it launches. The H100 TF32 ResNet-50 trace runs the 56x56,
// 28x28 and 14x14 forward passes per image (grid z = N), the 7x7 ones (49 pixels) through
// nchwToNhwcKernel and NHWC implicit-GEMM kernels.
constexpr i64 kPerImageGemmMinPixels = 64;

// A 1x1 convolution is a GEMM on NCHW tensors, without layout transposes. On sm_90 (cuDNN 9) a
// strided one is not: the H100 and H200 TF32 ResNet-50 traces run the three stride-2 shortcut
// convolutions through nchwToNhwcKernel and NHWC kernels, both passes, like the 3x3 ones; nor, on
// sm_80+ tensor cores, is one whose images are smaller than a tile (kPerImageGemmMinPixels), nor a
// weight gradient whose per-image partial filters (N x K x C in fp32, written and summed) outweigh
// the two tensors an NHWC kernel needs transposed (x and dY): the trace's 28x28 and 56x56 weight
// gradients (partials 0.13-0.22 x the tensors) run per image + reduce_wgrad_nchw_helper, its 14x14
// and 7x7 ones (1.0-8.4 x) transposes + sm90_xmma_wgrad_indexed_implicit_gemm_*_nhwc.
bool nchw_gemm(const Dims& d) {
  if (d.R != 1 || d.S != 1) return false;
  // On the tensor cores a padded 1x1 filter is not a GEMM over the image (its border outputs read
  // the zero padding): cuDNN runs it as the NHWC kernels behind layout conversions (the H100 fp16
  // NCHW DeepBench trace, 7x7x2048 pad 3: nchwToNhwcKernel + cutlass_tensorop_*dgrad/wgrad_*_nhwc).
  // The CUDA-core kernels read NCHW and pad in their index arithmetic: unchanged there.
  if (d.tensor && (d.c.pad_h != 0 || d.c.pad_w != 0)) return false;
  // cuDNN 9 on sm_90 runs no strided convolution on the tensor cores as a plain GEMM, in either
  // layout: every stride-2 1x1 call of the H100 and H200 traces (DeepBench's 1x1 shortcuts, fp16,
  // bf16 and TF32, NCHW and channels-last; the ResNet-50 steps' downsampling layers) ran cuDNN's
  // implicit-GEMM convolution kernels (sm90_xmma_*_implicit_gemm_*, cutlass_tensorop_*_s16816fprop /
  // dgrad / wgrad_optimized_*, sm80_xmma_*), none a cuBLAS GEMM (nvjet_*): lower_implicit.
  if (d.sm90 && d.tensor && !d.unit_stride()) return false;
  if (!d.ampere_nchw_tensor() || !d.unit_stride()) return true;
  if (d.P * d.Q < kPerImageGemmMinPixels) return false;
  const double partials = 4.0 * double(d.N) * double(d.kg) * double(d.cg);
  return d.pass != Pass::weight_grad || partials < d.x + d.y;
}

// Bytes of x a GEMM gathers from when its filter is smaller than its stride (a 1x1 stride-2
// shortcut): the rows and columns no tap reaches are never read, and memory moves whole granules
// (Dims::granule), so a skipped row saves its granules but a skipped column inside a row of fp16
// pixels does not (NCHW: a plane's rows are W contiguous elements; NHWC: a pixel is C contiguous
// elements). Before this the whole x was charged: DeepBench's FP16 56x56x256 1x1 stride-2 rows
// (V100) came out 35-80% slow, the 12.8 MB input of the N = 8 forward pass being read in 16 us.
double gathered_input_bytes(const Dims& d, bool channels_last) {
  const ConvShape& c = d.c;
  if (!d.skips_pixels()) return d.x;
  auto covered = [](i64 size, i64 out, i64 taps, i64 stride, i64 dilation, i64 pad) {
    std::vector<bool> hit(size_t(size), false);
    for (i64 o = 0; o < out; ++o)
      for (i64 t = 0; t < taps; ++t)
        if (const i64 i = o * stride - pad + t * dilation; i >= 0 && i < size) hit[size_t(i)] = true;
    return hit;
  };
  const std::vector<bool> rows = covered(d.H, d.P, d.R, c.stride_h, c.dilation_h, c.pad_h);
  const std::vector<bool> cols = covered(d.W, d.Q, d.S, c.stride_w, c.dilation_w, c.pad_w);
  // Granules of one plane (NCHW: H x W elements) or one image (NHWC: H x W x C), visited in address
  // order so a granule shared by neighbouring runs counts once.
  const double run = channels_last ? double(d.cg) * d.e : d.e;  // contiguous bytes per pixel read
  i64 granules = 0, last = -1;
  for (i64 h = 0; h < d.H; ++h) {
    if (!rows[size_t(h)]) continue;
    for (i64 w = 0; w < d.W; ++w) {
      if (!cols[size_t(w)]) continue;
      const double begin = double(h * d.W + w) * run;
      const i64 first = std::max(last + 1, i64(begin / d.granule));
      const i64 end = i64((begin + run - 1) / d.granule);
      if (end >= first) granules += end - first + 1, last = end;
    }
  }
  return d.x * std::min(1.0, double(granules) * d.granule / (double(d.H * d.W) * run));  // of a plane / an image
}

// CALIBRATION (cuDNN 9's transpose kernels): the SM cycles (at the config clock) one CTA of
// `engines_precompiled::nchwToNhwcKernel` / `nhwcToNchwKernel` costs, a fixed part and a part per
// pass of its 256 threads over the tile's elements (32 x 32 at most: 1 to 4 passes). Least squares
// on the 164 conversions of the H100's fp16 NCHW DeepBench trace that move under 1.5 TB/s
// (validation/measured/H100/conv_deepbench; 308 and 41): 1.4-2.0 ns per CTA for the whole chip
// whether it moves 32 elements or 1024, the same on the H200.
constexpr double kCudnnTransposeCtaCycles = 310;
constexpr double kCudnnTransposePassCycles = 40;

// A layout conversion of a tensor between NCHW and NHWC (cuDNN's nchwToNhwcKernel /
// nhwcToNchwKernel, filter reorders): it reads and writes them, its lanes one element each. cuDNN
// 9's kernels launch one 256-thread CTA per 32 x 32 tile of channels x pixels and array (grid
// [ceil(pixels / 32), ceil(channels / 32), outer] in every conversion of the H100 and H200 traces),
// each costing an SM the cycles above: a filter of 512 x 512 x 3 x 3 is 8192 CTAs of 288 elements,
// 14 us on both boards for 4.7 MB. Charged around tensor-core kernels on sm_90; the CUDA-core weight
// gradient's conversions on sm_80+ (Dims::cudnn9_nhwc_wgrad) also stand in for the legacy
// wgrad_alg0_engine, which converts nothing, so their CTAs are not charged.
StreamingKernel layout_conversion(const char* what, const Dims& d, const ConversionDims& t) {
  StreamingKernel k{what, t.bytes, t.bytes, 0, int(d.e)};
  if (d.sm90_nchw_tensor()) {
    k.ctas = t.outer * ceil_div(t.channels, i64{32}) * ceil_div(t.pixels, i64{32});
    const double elements_per_cta = double(t.outer * t.channels * t.pixels) / double(k.ctas);
    k.cta_cycles = kCudnnTransposeCtaCycles + kCudnnTransposePassCycles * std::ceil(elements_per_cta / 256.0);
  }
  return k;
}

// A GEMM step before planning. Footprints are per batch instance.
struct GemmShape {
  i64 m = 0, n = 0, k = 0, batch = 1;
  double a_footprint = 0, b_footprint = 0;
  bool a_k_contiguous = false, b_k_contiguous = false;
  double out_bytes = 0;  // bytes per stored GEMM output element
  double stores_per_output = 1;  // output elements stored per GEMM output (a strided dgrad's zero rows)
  double epilogue_smem_bytes = 0, epilogue_ops = 0;  // GemmProblem::epilogue_*
  // cuDNN runs the GEMM as an sm_80 CUTLASS kernel (mma.sync, cp.async of copy_width bytes) even
  // where the GPU has wgmma (lower_implicit: NCHW 1x1 convolutions on sm_90).
  bool sm80_kernel = false;
  int copy_width = 16;
};

GemmPlan plan_step(const GpuConfig& g, const Kernel& conv, const GemmShape& s, const ConvChoice& choice) {
  // Plan with M and K rounded to 8: the conv kernels predicate their last tile's rows and
  // k-steps; cuBLAS's rule that unaligned GEMMs leave the tensor cores does not apply.
  const bool tensor = choice.tensor_cores;
  const i64 align = tensor ? 8 : 1;
  Kernel gk = make_gemm(conv.name, round_up(s.m, align), s.n, round_up(s.k, align), conv.a_format, conv.c_format);
  gk.b_format = conv.b_format;
  gk.d_format = conv.a_format;
  gk.batch = s.batch;
  gk.cublas_version = kCublasPadsUnalignedFp16;  // not a cuBLAS call: cuBLAS's older HFMA2 rule is not cuDNN's
  GemmPlan p = plan_gemm(g, gk);
  // cuDNN's kernels vectorise along channels by their own rules: the implicit GEMM's dimensions
  // say nothing about cuBLAS's _align kernels, nor cuBLAS's HFMA2 rule about theirs.
  std::erase_if(p.notes, [](const std::string& n) {
    return n.rfind("leading dimensions ", 0) == 0 || n.rfind("M, N or K not a multiple of 8", 0) == 0;
  });
  // A 16-bit convolution the choice keeps off the tensor cores (choose_conv_algo); plan_gemm's
  // CUDA-core plans already accumulate in fp32.
  if (!tensor && p.path == MathPath::tensor) p.path = MathPath::cuda_core, p.mma_row = -1, p.problem.acc = FormatId::fp32;
  p.problem.fp32_math = choice.fp32_math;  // only set off the tensor cores
  p.problem.copy_width = s.copy_width;
  if (s.sm80_kernel && p.path == MathPath::tensor && g.mma[p.mma_row].kind == MmaKind::wgmma)
    if (const MmaInstr* sync = g.find_sync_mma(gk.a_format, gk.c_format)) p.mma_row = int(sync - g.mma.data());
  p.problem.m = s.m;
  p.problem.k = s.k;
  p.problem.a_footprint_bytes = s.a_footprint;
  p.problem.b_footprint_bytes = s.b_footprint;
  p.problem.a_k_contiguous = s.a_k_contiguous;
  p.problem.b_k_contiguous = s.b_k_contiguous;
  if (s.out_bytes > 0) p.problem.c_bytes = s.out_bytes;
  p.problem.c_bytes *= s.stores_per_output;
  // A fused residual (Kernel::epilogue_inputs) is read in the output's layout, one per output.
  if (conv.pass == Pass::forward) p.problem.epilogue_read_bytes = double(conv.epilogue_inputs) * p.problem.c_bytes;
  p.problem.epilogue_smem_bytes = s.epilogue_smem_bytes;
  p.problem.epilogue_ops = s.epilogue_ops;
  return p;
}

// The implicit GEMM of each pass (IMPLICIT_GEMM and IMPLICIT_PRECOMP_GEMM cost the same here).
void lower_implicit(const Dims& d, ConvLowering& L, GemmShape& s) {
  const ConvShape& c = d.c;
  const bool pointwise = nchw_gemm(d) && !d.cudnn9_nhwc_wgrad;
  // NHWC kernels (all tensor-core ones) read channels contiguously, NCHW ones rows of W.
  const bool nhwc_kernel = d.tensor || c.layout == TensorLayout::nhwc || d.cudnn9_nhwc_wgrad;
  // The layout the GEMM gathers x in: a 1x1 GEMM reads the tensors as they are, the other NHWC
  // kernels a channels-last copy.
  const bool x_channels_last = c.layout == TensorLayout::nhwc || (nhwc_kernel && !pointwise);
  // sm_80+ tensor cores run a stride-1 1x1 convolution of NCHW tensors as the CUDA-core kernels
  // do, a GEMM per image (the H100 traces' batched cutlass_80_tensorop_s1688gemm, grid z = N), in
  // the weight gradient followed by a sum of the partial filters (cudnn::cnn::reduce_wgrad_nchw_helper).
  const bool per_image = d.ampere_nchw_tensor() && pointwise && d.unit_stride() && d.N > 1;
  const bool per_image_wgrad = !nhwc_kernel || per_image;
  // sm_90 (cuDNN 9) runs an image's first layer (RGB: C padded to 8) with kernels of its own (the
  // traces' sm90_xmma_fprop_image_first_layer / wgrad_image_first_layer in fp16,
  // sm80_xmma_fprop_implicit_gemm_indexed_wo_smem in TF32) that do not pad each tap to 32 channels.
  const i64 block = !d.tensor || pointwise ? 1 : d.sm90 && d.cg <= 8 ? 8 : kTensorChannelBlock;
  if (d.pass == Pass::forward) {
    s.m = d.N * d.P * d.Q, s.n = d.kg, s.k = d.R * d.S * round_up(d.cg, block);
    s.a_footprint = gathered_input_bytes(d, x_channels_last), s.b_footprint = d.w;
    s.a_k_contiguous = nhwc_kernel, s.b_k_contiguous = true;
  } else if (d.pass == Pass::data_grad) {
    // A strided data gradient runs as stride_h x stride_w phases of the input pixels, each
    // reducing over the filter taps that land on it, at most ceil(R/sh) x ceil(S/sw) (CUTLASS's
    // strided dgrad). A filter smaller than the stride leaves pixels no tap reaches: the kernels
    // skip those rows but not those columns (a CTA tile runs along W, so it covers every column,
    // zeros included): DeepBench's 1x1 stride-2 rows cost 1.4-2.9x their forward.
    const bool sparse = d.skips_pixels();
    const bool every_pixel = sparse && d.dgrad_every_pixel;
    const i64 taps = ceil_div(d.R, c.stride_h) * ceil_div(d.S, c.stride_w);
    s.m = every_pixel ? d.N * d.H * d.W
          : sparse    ? d.N * ceil_div(d.H, c.stride_h) * d.W
                      : d.N * ceil_div(d.H, c.stride_h) * ceil_div(d.W, c.stride_w) * c.stride_h * c.stride_w;
    s.n = d.cg, s.k = taps * round_up(d.kg, block);
    s.a_footprint = d.y, s.b_footprint = d.w;
    s.a_k_contiguous = nhwc_kernel, s.b_k_contiguous = !nhwc_kernel;
    if (c.stride_h * c.stride_w > 1)
      L.notes.push_back("strided data gradient: " + std::to_string(c.stride_h * c.stride_w) + " phases of " +
                        std::to_string(taps) + " filter taps" + (sparse ? ", every column of the rows taps reach" : ""));
    // dX is written whole: the rows no tap reaches get their zeros from the same kernel (the H100
    // traces' strided dgrad is one kernel, no fill), a stored output row for each skipped one.
    if (d.R < c.stride_h && !every_pixel) s.stores_per_output = double(d.H) / double(ceil_div(d.H, c.stride_h));
    if (every_pixel)
      L.notes.push_back("cuDNN 9's xmma data gradient covers every input pixel, " + std::to_string(d.N * d.H * d.W));
  } else {
    s.m = d.kg, s.n = d.R * d.S * round_up(d.cg, block), s.k = d.N * d.P * d.Q;
    s.b_footprint = gathered_input_bytes(d, x_channels_last);
    s.a_k_contiguous = !nhwc_kernel, s.b_k_contiguous = !nhwc_kernel;
    if (pointwise && per_image_wgrad && d.N > 1) {
      // A 1x1 weight gradient of NCHW tensors: dW = sum over images of dY_n (K x PQ) x X_n^T (PQ x C).
      // The reduction's contiguous runs end at each image (n strides over C x H x W, not P x Q), so
      // the CUDA-core kernels run a GEMM per image (the images on the grid's z axis, as the forward
      // pass's GEMM per image) and a second pass sums the N fp32 partial filters. Before this, one
      // GEMM over N*P*Q made DeepBench's FP32 1x1 weight gradients 35-67% fast.
      s.batch = d.groups * d.N, s.k = d.P * d.Q;
      s.a_footprint = d.y / double(d.N), s.b_footprint = s.b_footprint / double(d.N);
      const double partials = double(d.N) * double(d.kg) * double(d.cg) * double(d.groups);
      L.helpers.push_back({"sum of the per-image weight gradients", 4.0 * partials, d.w * double(d.groups), partials});
      L.notes.push_back("1x1 weight gradient on NCHW: a GEMM per image (" + std::to_string(d.N) +
                        "), the fp32 partial filters summed by a second kernel");
    }
  }
  const i64 reduced = d.pass == Pass::data_grad ? d.kg : d.cg;
  if (block > 1 && reduced % block)
    L.notes.push_back("filter taps x " + std::to_string(block) + "-channel blocks: " + std::to_string(reduced) +
                      " channels per tap padded to " + std::to_string(round_up(reduced, block)));
  // NHWC kernels on NCHW tensors: the tensor cores', and cuDNN 9's FP32 weight gradient on sm_80+
  // (an nchwToNhwcKernel for x and one for dY in 96 of 96 calls, an nhwcToNchwKernel for dW in 4 of 4
  // with R x S > 1: validation/measured/H100/conv_deepbench).
  if (!((d.tensor && c.layout == TensorLayout::nchw) || d.cudnn9_nhwc_wgrad)) return;
  if (pointwise) {
    // A 1x1 convolution of NCHW tensors is a (strided) GEMM per image: no transposes
    // (DeepBench: a 1x1 stride-2 forward of 12.8 MB runs in 16 us, less than a transpose).
    L.notes.push_back("1x1 convolution on NCHW tensors: a GEMM per image, no layout transposes");
    // cuDNN 9 on sm_90 runs these GEMMs as sm_80 CUTLASS kernels, not wgmma ones, in TF32 always
    // (cutlass_80_tensorop_s1688gemm_*_align4: 86 of the 108 forward and data-gradient calls of the
    // H100's DeepBench TF32 NCHW trace, the rest 7x7 images; the ResNet-50 traces' per-image weight
    // gradients) and in fp16 when an image's pixels, its stride, are not a multiple of 16 bytes
    // (cutlass_80_tensorop_*s16816gemm_*_align2 on 14x14 images; 28x28 and larger run sm90_xmma
    // kernels): validation/measured/H100/conv_deepbench.
    const int image_alignment = stride_alignment({double(d.P * d.Q) * d.e});
    if (d.sm90 && (d.e == 4 || image_alignment < 16)) {
      s.sm80_kernel = true;
      s.copy_width = image_alignment;
      L.notes.push_back(std::string("cuDNN 9 runs it as an sm_80 CUTLASS GEMM (mma.sync") +
                        (s.copy_width < 16 ? ", " + std::to_string(s.copy_width) + "-byte copies: an image's pixels are not a multiple of 16 bytes)"
                                           : ")"));
    }
    s.a_k_contiguous = d.pass == Pass::weight_grad;
    if (d.pass == Pass::weight_grad) s.b_k_contiguous = true;
    if (per_image && d.pass == Pass::forward) {
      s.batch = d.groups * d.N, s.m = d.P * d.Q;
      s.a_footprint /= double(d.N);
    }
    return;
  }
  // The sm_70 tensor-core kernels read NHWC: cuDNN first transposes the NCHW activations
  // (nchwToNhwcKernel) and the kernel's epilogue writes NCHW itself (the "_nhwc2nchw_" kernels
  // in nvprof listings: apache/mxnet#9774, NVIDIA/apex#666). A filter reorder is not charged:
  // the measured times show no room for one.
  auto transpose = [&](const char* what, const ConversionDims& t) { L.helpers.push_back(layout_conversion(what, d, t)); };
  // Except the input of a unit-stride weight gradient before sm_80 (Dims::wgrad_reads_nchw_x).
  if (d.pass != Pass::data_grad && !d.wgrad_reads_nchw_x()) transpose("NCHW->NHWC transpose of the input", d.x_conversion());
  if (d.pass != Pass::forward) transpose("NCHW->NHWC transpose of the output gradient", d.y_conversion());
  // cuDNN 9 on sm_90 also reorders the filter between KCRS and the KRSC its NHWC kernels use: before
  // the forward pass and the data gradient, after the weight gradient, a kernel of its own each time:
  // a second nchwToNhwcKernel (grid [1, 4, K] on K x C x 3 x 3) or a second nhwcToNchwKernel in 95 of
  // the 102 NCHW fp16 calls with R x S > 1 that ran NHWC kernels (validation/measured/H100/
  // conv_deepbench), and in all 17 forward and 16 backward 3x3/7x7 calls of the TF32 ResNet-50 trace
  // (measured/H100/profiles). A 1x1 filter is the same array in both orders: none there.
  if ((d.sm90_nchw_tensor() || d.cudnn9_nhwc_wgrad) && d.R * d.S > 1)
    transpose(d.pass == Pass::weight_grad ? "KRSC->KCRS reorder of the weight gradient" : "KCRS->KRSC reorder of the filter",
              d.w_conversion());
}

// Fused F(2x2,3x3) (Lavin & Gray 2016): one kernel transforms 4x4 input tiles and the 3x3 filters
// in shared memory, runs the 16 element-wise products as GEMMs over channels and writes each tile's
// 2x2 outputs. cuDNN's kernel (*_scudnn_winograd_128x128_ldg1_ldg4_relu_tile148t_nt, 256 threads)
// gives each CTA one image's block of 4 x 8 output tiles and 32 filters, all 16 products: its grid in
// all 2751 NeuSight listings is (N x ceil(K/32), ceil(tiles/4), ceil(tiles/8)). So tiles are padded to
// whole 4 x 8 blocks per image and filters to 32. Costed as one GEMM with the same CTAs and work:
// M = 4 x padded tiles, N = 4 x padded filters, 128x128 CTA tiles (32 tiles x 32 filters x 16 products).
// Per channel a CTA also transforms its 32 input tiles (32 FADDs each) and 32 filters (28 FP32 ops
// each: G g G^T, 12 + 16) on the same FP32 pipe: 1920 operations next to 16384 FFMAs, charged as
// that fraction of extra reduction steps. After the channel loop, the inverse transform A^T M A of
// each tile and filter (24 FADDs: 16 for A^T M, 8 for the 2x2 result) needs all 16 products. The
// register blocking that makes the channel loop efficient gives a thread an 8 x 8 block of ONE
// product's 32 x 32 GEMM (8 + 8 loaded values per 64 FFMAs; holding all 16 products of its own
// tiles and filters would load one value per FFMA), so the 16 products of an output are in 16
// threads: the kernel writes its 16384 fp32 accumulators to shared memory and reads back the 16
// values of each output it transforms [inferred from that blocking; cuDNN's SASS is not public].
// Per product: 4 bytes stored and read back, 1.5 FADDs. It costs a CTA a few channels' time, so it
// shows on few channels: NeuSight's rows on both GPUs were 27-34% fast at C < 16 against 0-9% at
// C >= 512 where cuDNN ran this kernel (sim/gpu/README.md, "Convolutions").
void lower_winograd_fused(const Dims& d, ConvLowering& L, GemmShape& s) {
  const bool fwd = d.pass == Pass::forward;  // no fused weight-gradient kernel exists
  const i64 th = ceil_div(fwd ? d.P : d.H, 2), tw = ceil_div(fwd ? d.Q : d.W, 2);
  const i64 tiles = d.N * th * tw, padded = d.N * round_up(th, 4) * round_up(tw, 8);
  const i64 filters = fwd ? d.kg : d.cg, reduced = fwd ? d.cg : d.kg;
  constexpr i64 kProducts = 16 * 32 * 32, kTransformOps = 32 * 32 + 32 * 28;
  s.batch = d.groups, s.m = 4 * padded, s.n = 4 * round_up(filters, 32);
  s.k = ceil_div(reduced * (kProducts + kTransformOps), kProducts);
  s.a_footprint = fwd ? d.x : d.y, s.b_footprint = d.w;
  s.b_k_contiguous = true;   // K x C x 3 x 3 filters: the reduced channels are contiguous
  s.out_bytes = d.e * 4 / 16;  // 4 outputs stored per 16 products: the inverse transform is in-kernel
  s.epilogue_smem_bytes = 4;   // each fp32 product through shared memory
  s.epilogue_ops = 24.0 / 16;  // A^T M A per 16 products
  L.notes.push_back("fused Winograd F(2x2,3x3): " + std::to_string(tiles) + " tiles padded to " +
                    std::to_string(padded) + " (4 x 8 per CTA), " + std::to_string(filters) +
                    " filters to blocks of 32, in-kernel transforms +" +
                    std::to_string(int(100.0 * kTransformOps / kProducts + 0.5)) +
                    "% FP32 work, inverse transform through shared memory after the channel loop");
}

// Bytes of 32-byte sectors a transform kernel reads to gather `tiles` x `channels` patches of `rows`
// rows of `run` elements, consecutive tiles `step` elements apart along a row. A Winograd transform
// gathers an alpha x alpha patch of an NCHW plane per tile (neighbouring patches overlap by R - 1);
// F(4x4,3x3) rows of 6 fp32 values start 16 B apart, so every other one straddles two sectors:
// 6 rows x 48 B = 288 B of sectors per 64 B of input, 4.5x.
double patch_sector_bytes(i64 tiles, i64 channels, i64 rows, i64 run, i64 step, double e) {
  double sectors = 0;
  constexpr int kPhases = 32;  // step x e x 32 bytes is a whole number of sectors: every phase seen
  for (int j = 0; j < kPhases; ++j) {
    const double first = double(j) * double(step) * e, last = first + double(run) * e - 1;
    sectors += std::floor(last / kSectorBytes) - std::floor(first / kSectorBytes) + 1;
  }
  return double(tiles) * double(channels) * double(rows) * sectors / kPhases * kSectorBytes;
}

// Nonfused Winograd: transform kernels, alpha^2 batched GEMMs, inverse transform. F(4x4,3x3)
// and F(2x2,5x5) (alpha = 6: 36 GEMMs); the transforms cost their bytes.
// cuDNN 8's transforms (README "Convolutions"; both inferred from NeuSight's cuDNN 8.9 times, and
// DeepBench's cuDNN 7.6 rows show neither): the filter transform stores each transformed element on
// its own 32-byte L2 sector, and the input (output-gradient) transform reads each tile's patch as
// whole sectors (patch_sector_bytes).
void lower_winograd_nonfused(const Dims& d, ConvLowering& L, GemmShape& s, bool cudnn8_transforms) {
  const i64 mt = d.R == 3 ? 4 : 2, alpha = mt + d.R - 1, a2 = alpha * alpha;
  const bool fwd = d.pass == Pass::forward, wgrad = d.pass == Pass::weight_grad;
  const bool over_input = d.pass == Pass::data_grad;  // dgrad tiles the input-gradient pixels
  const i64 tiles = d.N * ceil_div(over_input ? d.H : d.P, mt) * ceil_div(over_input ? d.W : d.Q, mt);
  const double ti = double(a2) * double(tiles) * double(d.cg) * d.e, to = double(a2) * double(tiles) * double(d.kg) * d.e;
  const double tw = double(a2) * double(d.kg) * double(d.cg) * d.e;
  // The transformed tensor's alpha x alpha patches (of dy in the data gradient; the weight
  // gradient's dy transform reads mt x mt output tiles, which do not overlap).
  const double patches = cudnn8_transforms ? patch_sector_bytes(tiles, over_input ? d.kg : d.cg, alpha, alpha, mt, d.e)
                                           : (over_input ? d.y : d.x);
  if (wgrad) {
    L.helpers.push_back({"Winograd transform of the input", patches, ti, 0});
    L.helpers.push_back({"Winograd transform of the output gradient",
                         cudnn8_transforms ? patch_sector_bytes(tiles, d.kg, mt, mt, mt, d.e) : d.y, to, 0});
    s.m = d.kg, s.n = d.cg, s.k = tiles;
  } else {
    L.helpers.push_back({fwd ? "Winograd transform of the input" : "Winograd transform of the output gradient",
                         patches, fwd ? ti : to, 0});
    L.helpers.push_back({"Winograd transform of the filters", d.w, cudnn8_transforms ? tw * kSectorBytes / d.e : tw, 0});
    s.m = tiles, s.n = fwd ? d.kg : d.cg, s.k = fwd ? d.cg : d.kg;
  }
  s.batch = a2 * d.groups;
  L.helpers.push_back({"inverse Winograd transform", wgrad ? tw : fwd ? to : ti, wgrad ? d.w : fwd ? d.y : d.x, 0});
  L.notes.push_back("nonfused Winograd F(" + std::to_string(mt) + "x" + std::to_string(mt) + "," + std::to_string(d.R) +
                    "x" + std::to_string(d.S) + "): " + std::to_string(a2) + " batched GEMMs over " +
                    std::to_string(tiles) + " tiles");
}

// FFT tiling: 32x32 real-FFT tiles (32 x 17 complex bins), each bin a complex GEMM over channels;
// a complex multiply-add is 4 real ones (a real GEMM with doubled N and K).
void lower_fft_tiling(const Dims& d, ConvLowering& L, GemmShape& s) {
  const i64 T = 32, bins = T * (T / 2 + 1), step = T - d.R + 1;
  const bool fwd = d.pass == Pass::forward, wgrad = d.pass == Pass::weight_grad;
  const bool over_input = d.pass == Pass::data_grad;
  const i64 tiles = d.N * ceil_div(over_input ? d.H : d.P, step) * ceil_div(over_input ? d.W : d.Q, step);
  const double cplx = 2 * d.e;
  const double fi = double(bins) * double(tiles) * double(d.cg) * cplx, fo = double(bins) * double(tiles) * double(d.kg) * cplx;
  const double fw = double(bins) * double(d.kg) * double(d.cg) * cplx;
  const double per_fft = 5.0 * double(T * T) * 10;  // 5 n log2(n) flops per 32x32 transform
  if (wgrad) {
    L.helpers.push_back({"FFT of the input tiles", d.x, fi, per_fft * double(tiles) * double(d.cg)});
    L.helpers.push_back({"FFT of the output-gradient tiles", d.y, fo, per_fft * double(tiles) * double(d.kg)});
    s.m = d.kg, s.n = 2 * d.cg, s.k = 2 * tiles;
  } else {
    L.helpers.push_back({fwd ? "FFT of the input tiles" : "FFT of the output-gradient tiles", fwd ? d.x : d.y,
                         fwd ? fi : fo, per_fft * double(tiles) * double(fwd ? d.cg : d.kg)});
    L.helpers.push_back({"FFT of the filters", d.w, fw, per_fft * double(d.kg) * double(d.cg)});
    s.m = tiles, s.n = 2 * (fwd ? d.kg : d.cg), s.k = 2 * (fwd ? d.cg : d.kg);
  }
  s.batch = bins * d.groups;
  L.helpers.push_back({"inverse FFT", wgrad ? fw : fwd ? fo : fi, wgrad ? d.w : fwd ? d.y : d.x,
                       per_fft * (wgrad ? double(d.kg) * double(d.cg) : double(tiles) * double(fwd ? d.kg : d.cg))});
  L.notes.push_back("FFT tiling: " + std::to_string(bins) + " complex GEMMs over " + std::to_string(tiles) + " tiles");
}

// cuDNN's BWD_DATA_ALGO_0 on the CUDA cores, the legacy dgrad_engine<float, 512, 6, 5, 3, 3, 3> of
// the H100 and H200 FP32 traces (validation/measured/H*/conv_deepbench): per image a col2im GEMM
// dcol[C R S, P Q] = W^T x dY in 64 x 32 x 8 tiles (the template's 6, 5, 3 are their log2; block
// 8 x 8 = 64 threads, 96 registers; grid (ceil(C R S / 64), ceil(P Q / 32), N) in all 132 H100
// calls), whose epilogue adds each dcol element into the input pixel it came from with an fp32
// atomic add, after a kernel that zeroes dX (scalePackedTensor_kernel). The GEMM's output reaches
// memory as dX (its bytes per dcol element below); the atomics are costed by cost_lowering.
void lower_dgrad_col2im_atomic(const Dims& d, ConvLowering& L, GemmShape& s) {
  const i64 dcol = d.cg * d.R * d.S * d.P * d.Q;
  s.batch = d.N * d.groups, s.m = d.cg * d.R * d.S, s.n = d.P * d.Q, s.k = d.kg;
  s.a_footprint = d.w, s.b_footprint = d.y / double(d.N);
  s.a_k_contiguous = false, s.b_k_contiguous = false;  // W is K x (C R S), dY K x (P Q): both k-strided
  s.out_bytes = d.x / double(d.N) / double(dcol);
  L.scatter_atomics = double(d.N) * double(d.groups) * double(dcol);
  L.helpers.push_back({"zero fill of the input gradient", 0, d.x * double(d.groups), 0});
  L.notes.push_back("col2im GEMM per image (" + std::to_string(s.m) + " x " + std::to_string(s.n) + " x " +
                    std::to_string(s.k) + "), its " + std::to_string(i64(L.scatter_atomics)) +
                    " outputs added into dX with fp32 atomics");
}

// CALIBRATION (cuDNN's tensorTransformGeneric): the SM cycles (at the config clock) of the generic
// tensor transform that moves a unity-stride data gradient's filter into phases and its result back
// into dX (lower_dgrad_unity_stride): a fixed part and a part per element moved, per SM. The kernel
// has a grid of 264 CTAs of 1024 threads on both boards (two per H100 SM) whatever the tensor, and
// it is slow: 16 G elements/s for the whole chip, the same on the H200 with 1.4x the bandwidth, so
// its work, not its bytes, bounds it. Least squares on the 16 transforms of the H100's fp16
// channels-last DeepBench trace (validation/measured/H100/conv_deepbench: the DeepSpeech layer's 8
// filters of 3840 elements, 9.9-10.2 us, and its 8 dX of 0.45-3.6 M elements, 36-229 us). What the
// fixed 8 us is spent on is not known.
constexpr double kGenericTransformFixedCycles = 15100;
constexpr double kGenericTransformElementCycles = 14.6;

// CALIBRATION: what cuDNN 9's implicit-GEMM convolution kernels on sm_90 (sm90_xmma_*, and the sm_80
// CUTLASS / xmma kernels cuDNN also runs there) take beyond their tiles' cost. In the H100 and H200
// traces such kernels of a few microseconds measure 1.4-1.9 us (sm90_xmma) and 2.3-4.7 us (sm_80
// kernels) longer than the model, at every size up to 40 us, where cuBLAS's nvjet kernels of the same
// GEMM sizes (the unit-stride 1x1 layers) are within 0.5 us (median). What the kernels spend it on is not
// known. Fitted on the H100 fp16 channels-last DeepBench trace (validation/measured/H100/
// conv_deepbench): 1.0 / 1.5 / 2.0 / 2.5 / 3.0 us give 18.7 / 17.8 / 17.4 / 17.5 / 17.9% MAPE; 4000
// cycles is 2.0 us at 1980 MHz. Held out: sim/gpu/README.md, "cuDNN 9's sm_90 kernels' fixed cost".
constexpr double kCudnnSm90ConvFixedCycles = 4000;

StreamingKernel generic_transform(const GpuConfig& g, const char* what, double elements_in, double elements_out, double e) {
  StreamingKernel k{what, elements_in * e, elements_out * e, 0, int(e)};
  k.ctas = g.sm_count;  // its CTAs share each SM for the whole kernel
  k.cta_cycles = kGenericTransformFixedCycles +
                 kGenericTransformElementCycles * std::max(elements_in, elements_out) / double(g.sm_count);
  return k;
}

// cuDNN 9's unity-stride rewrite of a strided data gradient (unity_stride_dgrad_candidate,
// conv_algo.cpp): dX's stride_h x stride_w phases become output channels of one unit-stride data
// gradient over N x ceil(H/sh) x ceil(W/sw) pixels, with a filter of ceil(R/sh) x ceil(S/sw) taps per
// phase (zeros where a phase has fewer; their grids: ceil(N ceil(H/2) ceil(W/2) / 128) CTAs of the
// 128x64 tile for the DeepSpeech layer at every batch). It runs as CUTLASS's sm_80 kernel
// (mma.sync), between two tensorTransformGeneric kernels, and an NCHW output gradient is first
// converted as for the other NHWC kernels; dX needs no conversion back (the transform writes it).
// Where C is small this fills the tile's padded channels with phases instead of zeros: the
// one-channel DeepSpeech layer runs 4 phases in the 8 channels one phase would pad to, on a quarter
// of the pixels.
void lower_dgrad_unity_stride(const GpuConfig& g, const Dims& d, ConvLowering& L, GemmShape& s) {
  const ConvShape& c = d.c;
  const i64 phases = c.stride_h * c.stride_w, taps = ceil_div(d.R, c.stride_h) * ceil_div(d.S, c.stride_w);
  const i64 channels = c.channels / c.groups, phase_channels = channels * phases;
  s.m = d.N * ceil_div(d.H, c.stride_h) * ceil_div(d.W, c.stride_w);
  s.n = round_up(phase_channels, i64{8});
  s.k = taps * round_up(d.kg, kTensorChannelBlock);
  s.a_footprint = d.y, s.b_footprint = double(taps) * double(d.kg) * double(s.n) * d.e;
  s.a_k_contiguous = true, s.b_k_contiguous = false;  // dY channels-last; the phase filters KRSC
  s.sm80_kernel = true;
  const double filter = double(d.kg) * double(channels) * double(d.R * d.S);
  const double phase_filter = double(d.kg) * double(phase_channels) * double(taps);
  const double dx = double(d.N) * double(channels) * double(d.H * d.W);
  if (d.sm90_nchw_tensor())
    L.helpers.push_back(layout_conversion("NCHW->NHWC transpose of the output gradient", d, d.y_conversion()));
  L.helpers.push_back(generic_transform(g, "filter cut into its stride phases (tensorTransformGeneric)", filter, phase_filter, d.e));
  L.helpers.push_back(generic_transform(g, "stride phases put back into dX (tensorTransformGeneric)",
                                        double(s.m) * double(phase_channels), dx, d.e));
  L.notes.push_back("unity-stride data gradient: " + std::to_string(phases) + " stride phases x C = " +
                    std::to_string(channels) + " as " + std::to_string(phase_channels) + " output channels (padded to " +
                    std::to_string(s.n) + "), " + std::to_string(s.m) + " pixels, " + std::to_string(taps) +
                    " filter taps per phase");
}

// The CTA tiles of cuDNN 9's 16-bit sm90_xmma implicit-GEMM convolution kernels per pass
// (library_limits).
std::vector<std::pair<int, int>> sm90_xmma_conv_tiles(Pass pass) {
  if (pass == Pass::weight_grad) return {{64, 64}, {64, 128}, {128, 64}, {128, 128}, {256, 128}, {64, 256}};
  if (pass == Pass::data_grad)
    return {{64, 64}, {64, 128}, {128, 64}, {128, 128}, {256, 32}, {256, 64}, {256, 128}, {128, 256}, {64, 256}};
  return {{64, 64}, {64, 128}, {128, 64}, {128, 128}, {128, 256}, {256, 64}, {256, 96}, {256, 128}};
}

// What the library's kernels allow the GEMM machinery to choose.
void library_limits(const GpuConfig& g, const Dims& d, ConvLowering& L) {
  const bool implicit = L.choice.algo == ConvAlgo::implicit_gemm || L.choice.algo == ConvAlgo::implicit_precomp_gemm;
  L.gemm.sliced_k = false;  // cuBLAS's sliced-K SGEMMs are not among cuDNN's kernels
  if (d.tensor && implicit && g.arch == "sm_70") {
    // cuDNN 7's Volta tensor-core convolution kernels come in CTA tiles (pixels x channels) of
    // 256x128, 256x64, 128x128 and 128x64 (volta_fp16_s884cudnn_fp16_256x128_ldg8_...,
    // ..._256x64_..., ..._128x128_ldg8_wgrad_idx_...: nvprof listings in apache/mxnet#9774,
    // NVIDIA/apex#666, pytorch/pytorch#54324); the weight gradient (M = output channels) also
    // has 64-row tiles, learnt, in its kernels that read NCHW operands as they are (1x1 GEMMs, and
    // x of a unit-stride gradient): the strided gradients' NHWC kernel (..._wgrad_idx_..._nhwc_nt,
    // named with a 128x128 tile) does not (sim/gpu/README.md, "The strided weight gradient's tiles").
    L.gemm.cta_tiles = {{256, 128}, {256, 64}, {128, 128}, {128, 64}};
    if (d.pass == Pass::weight_grad && !d.transposes_both_wgrad_operands()) L.gemm.cta_tiles.push_back({64, 128});
    // The data gradient without the narrowest tile: what fits DeepBench's V100 sheets (small 1x1
    // data gradients with K > C ran 25-50% slower than the 128x64 tile predicts; README).
    if (d.pass == Pass::data_grad) L.gemm.cta_tiles = {{256, 128}, {256, 64}, {128, 128}};
  }
  // cuDNN 9's 16-bit sm90_xmma_{fprop,dgrad,wgrad}_*_tilesize<M>x<N>x<K> kernels come in these CTA
  // tiles (M x N of the pass's GEMM; every tile named in the H100 and H200 traces: DeepBench's
  // convolutions in fp16 and bf16, ResNet-50 and MobileNet-v2 steps; validation/measured/H*/);
  // 128x192, which the wgmma candidates include, is not among them. Which of them cuDNN's heuristic
  // picks is not modelled: the cheapest for the model, as elsewhere. The TF32 kernels' own set is
  // not applied: with it the model's ResNet-18 and VGG-16 TF32 steps go +0.7 -> +5.0% and -0.2 ->
  // +9.1% (sim/gpu/README.md, "Convolutions").
  if (d.sm90 && d.tensor && implicit && !nchw_gemm(d) && d.e == 2) L.gemm.cta_tiles = sm90_xmma_conv_tiles(d.pass);
  // The SIMT forward and data-gradient kernels tile 128 pixels per CTA (volta_scudnn_128x128_*,
  // volta_fp16_scudnn_fp16_128x64_* in apache/mxnet#9774; *_scudnn_128x{128,64,32}_* in NeuSight's
  // cuDNN 8.9 listings, the narrow one with 64 threads).
  if (!d.tensor && implicit && d.pass != Pass::weight_grad) {
    L.gemm.cta_tiles = {{128, 128}, {128, 64}, {128, 32}};
    L.gemm.problem.simt = SimtKernels::cudnn;  // with cuDNN's thread counts (gemm/mapping.cpp)
  }
  // The unity-stride rewrite's CUTLASS kernels (cutlass_tensorop_*_s16816dgrad_optimized_<tile>_
  // nhwc_unity_stride_align8 in the H100 and H200 traces: 128x64, 256x64, 64x64, 128x128, 64x128).
  if (L.choice.algo == ConvAlgo::dgrad_unity_stride) L.gemm.cta_tiles = {{128, 64}, {256, 64}, {64, 64}, {128, 128}, {64, 128}};
  // dgrad_engine's one tile (lower_dgrad_col2im_atomic), one register-staged stage.
  if (L.choice.algo == ConvAlgo::dgrad_col2im_atomic) {
    L.gemm.cta_tiles = {{64, 32}};
    L.gemm.problem.simt = SimtKernels::cudnn;
    L.gemm.problem.single_stage = true;
  }
  // Likewise the SIMT data gradient keeps the 128x32 tile only for narrow outputs (C <= 32).
  if (!d.tensor && implicit && d.pass == Pass::data_grad && d.cg > 32) L.gemm.cta_tiles = {{128, 128}, {128, 64}};
  // The fused Winograd kernel's one CTA shape (lower_winograd_fused); the data gradient is assumed
  // to run the same kernel on the flipped filters (not in any listing we have).
  if (L.choice.algo == ConvAlgo::winograd) L.gemm.cta_tiles = {{128, 128}};
  // cuDNN's SIMT kernels load global -> registers -> shared memory (two stages), cp.async or not:
  // the fused Winograd kernel transforms its input tiles on the way (its name,
  // *_scudnn_winograd_128x128_ldg1_ldg4_*, gives the LDG widths), and the implicit-GEMM ones are
  // the Volta-era scudnn family (the same ..._scudnn_128x{128,64,32}_relu_{small,medium,...}
  // names on sm_70 and sm_80). On sm_80 this took NeuSight's A100 80GB fused Winograd rows of
  // C >= 128 from -10% to -7% bias (sim/gpu/README.md, "Convolutions").
  if (!d.tensor && (implicit || L.choice.algo == ConvAlgo::winograd)) L.gemm.problem.register_staged = true;
  // Split-K: the weight gradient reduces N*P*Q across CTAs (as cuBLAS would split); the data
  // gradient does not split; the forward pass splits on the tensor-core kernels only (the rules
  // that fit DeepBench's V100 sheets, see README "Convolutions").
  if (d.pass == Pass::data_grad || (d.pass == Pass::forward && !d.tensor)) L.gemm.max_split_k = 1;
  // The batched GEMMs of nonfused Winograd and FFT (36 or 544 products, cuBLAS strided-batched
  // sgemm/cgemm with the batch on the grid's z axis) do not split K either: cuBLAS 12's batched
  // SGEMM never does (gemm/cublas_choice.cpp); before this the weight gradient's did, and its
  // DeepBench FP32 rows were 1 point worse.
  if (L.choice.algo == ConvAlgo::winograd_nonfused || L.choice.algo == ConvAlgo::fft_tiling) L.gemm.max_split_k = 1;
  // Nonfused Winograd's 36 products are a cuBLAS strided-batched SGEMM call, and cuBLAS picks its
  // kernel as for torch.bmm: NeuSight's cuDNN 8.9 listings show ampere_sgemm_128x128_nn in all 2594
  // A100 nonfused calls and volta_sgemm_{64x64,32x128,128x32}_nn in all 2142 V100 ones.
  if (L.choice.algo == ConvAlgo::winograd_nonfused && !d.tensor) apply_cublas_choice(g, L.gemm, false);
}

}  // namespace

ConvLowering lower_conv(const GpuConfig& g, const Kernel& k) {
  check_conv(k);
  return lower_conv(g, k, choose_conv_algo(g, k));
}

ConvLowering lower_conv(const GpuConfig& g, const Kernel& k, const ConvChoice& choice) {
  check_conv(k);
  ConvLowering L;
  L.choice = choice;
  const ConvShape& c = k.conv;
  L.notes.push_back("cuDNN " + std::string(cudnn_name(L.choice.algo)) + ": " + L.choice.why);
  const double e = format_bits(k.a_format) / 8.0;

  if (L.choice.algo == ConvAlgo::direct_depthwise) {
    // Each output reads its R*S window of one channel: the bytes of x, w and y at the memory
    // system's rate, the multiply-adds at the CUDA cores'.
    L.has_gemm = false;
    const double x = double(c.batch) * double(c.ifmap_h) * double(c.ifmap_w) * double(c.channels) * e;
    const double y = double(c.batch) * double(c.out_h()) * double(c.out_w()) * double(c.num_filters) * e;
    const double w = double(c.num_filters) * double(c.filter_h) * double(c.filter_w) * e;
    StreamingKernel& dk = L.direct;
    dk.what = "direct depthwise kernel";
    dk.flops = k.flops();
    if (k.pass == Pass::forward) dk.read_bytes = x + w, dk.write_bytes = y;
    if (k.pass == Pass::data_grad) dk.read_bytes = y + w, dk.write_bytes = x;
    if (k.pass == Pass::weight_grad) dk.read_bytes = x + y, dk.write_bytes = w;
    return L;
  }

  i64 cg = c.channels / c.groups, kg = c.num_filters / c.groups;
  if (L.choice.tensor_cores && (cg % 8 || kg % 8)) {
    L.notes.push_back("C/group " + std::to_string(cg) + " or K/group " + std::to_string(kg) +
                      " not a multiple of 8: padded to " + std::to_string(round_up(cg, 8)) + " and " +
                      std::to_string(round_up(kg, 8)) + " for the tensor cores (the padding is computed)");
    cg = round_up(cg, 8), kg = round_up(kg, 8);
  }
  if (c.groups > 1) L.notes.push_back(std::to_string(c.groups) + " groups run as one batched implicit GEMM");
  const i64 N = c.batch, H = c.ifmap_h, W = c.ifmap_w, P = c.out_h(), Q = c.out_w(), R = c.filter_h, S = c.filter_w;
  const bool ampere = num::parse_arch(g.arch).value_or(num::Arch::sm70) >= num::Arch::sm80;
  // cuDNN 9's heuristic choosing CUDA-core kernels on sm_80+: its sm80_xmma_*_ffma kernels (below).
  const bool cudnn9_cuda_cores = !L.choice.tensor_cores && cudnn9_heuristic(g, k) && ampere;
  const Dims d{c,  k.pass, L.choice.tensor_cores, N,      H, W, P, Q, R, S, cg, kg, c.groups, e,
               double(N) * double(H) * double(W) * double(cg) * e,
               double(N) * double(P) * double(Q) * double(kg) * e, double(kg) * double(cg) * double(R) * double(S) * e,
               g.arch == "sm_90", ampere,
               cudnn9_cuda_cores && k.pass == Pass::weight_grad && c.layout == TensorLayout::nchw,
               cudnn9_cuda_cores && k.pass == Pass::data_grad,
               std::max(kSectorBytes, g.dram_access_granularity)};
  GemmShape s;
  s.batch = c.groups;
  s.out_bytes = e;
  switch (L.choice.algo) {
    case ConvAlgo::implicit_gemm:
    case ConvAlgo::implicit_precomp_gemm:
      lower_implicit(d, L, s);
      // sm_90 (cuDNN 9): the NHWC kernel's result goes back to NCHW through a separate
      // nhwcToNchwKernel, where Volta's epilogue writes NCHW itself (lower_implicit). The H100
      // TF32 ResNet-50 trace: one per 3x3/7x7 forward convolution (17 of 17), none for most 1x1.
      if (d.sm90_nchw_tensor() && !nchw_gemm(d)) {
        if (k.pass == Pass::forward)
          L.helpers.push_back(layout_conversion("NHWC->NCHW transpose of the output", d, d.y_conversion()));
        if (k.pass == Pass::data_grad)
          L.helpers.push_back(layout_conversion("NHWC->NCHW transpose of the input gradient", d, d.x_conversion()));
      }
      break;
    case ConvAlgo::winograd: lower_winograd_fused(d, L, s); break;
    case ConvAlgo::winograd_nonfused: lower_winograd_nonfused(d, L, s, cudnn_version(g, k) >= 8); break;
    case ConvAlgo::fft_tiling: lower_fft_tiling(d, L, s); break;
    case ConvAlgo::direct_depthwise: break;
    case ConvAlgo::dgrad_col2im_atomic: lower_dgrad_col2im_atomic(d, L, s); break;
    case ConvAlgo::dgrad_unity_stride: lower_dgrad_unity_stride(g, d, L, s); break;
  }
  L.gemm = plan_step(g, k, s, L.choice);
  library_limits(g, d, L);
  // cuDNN 9's sm_90 implicit-GEMM convolution kernels split K as "segment-K"
  // (sm90_xmma_{fprop,dgrad,wgrad}_*_execute_segment_k_on_*), and each such call first launches
  // init_device_workspace_kernel, one thread (grid and block [1,1,1]), for the partial sums'
  // workspace: before all 281 segment_k_on kernels of the H100's DeepBench traces (fp16 NHWC and
  // NCHW, bf16, TF32) and ResNet-50 steps (AMP, TF32) and all 214 of the H200's DeepBench traces,
  // before none of their other sm90_xmma convolution kernels (884 on the H200) nor of the GEMM
  // kernels (nvjet, sm90_xmma_gemm, cutlass_80) that run 1x1 layers as plain GEMMs
  // (validation/measured/H*/conv_deepbench, H100/profiles). Its duration (1.4-28 us, median 4.5 in
  // the H100's DeepBench calls) varies between identical calls: charged as a launch, like every kernel.
  const bool implicit = L.choice.algo == ConvAlgo::implicit_gemm || L.choice.algo == ConvAlgo::implicit_precomp_gemm;
  if (d.sm90 && d.tensor && implicit && !nchw_gemm(d)) {
    L.gemm.problem.split_k_init_kernel = true;
    L.fixed_cycles = kCudnnSm90ConvFixedCycles;
    L.notes.push_back("cuDNN 9's sm_90 implicit-GEMM convolution kernel: " + std::to_string(int(kCudnnSm90ConvFixedCycles)) +
                      " cycles beyond its tiles (calibrated, sim/gpu/README.md)");
  }
  if (cudnn9_cuda_cores && implicit) {
    // cuDNN 9's implicit GEMMs on the CUDA cores are sm80_xmma_{fprop,dgrad,wgrad}_implicit_gemm_*_ffma
    // kernels with three cp.async stages (SimtKernels::cudnn_xmma; validation/measured/H100/
    // conv_deepbench, FP32 NCHW). The forward pass (174 of 188 calls) picks among their 32x32 (64
    // threads), 128x32 and 256x64 tiles (128 threads, 2x2 warps); the data gradient (44 calls,
    // ..._nchwkcrs_nchw_tilesize32x32x8_stage3_warpsize1x2x1) and the weight gradient (48 calls,
    // ..._indexed_*_nhwckrsc_nhwc_tilesize32x32x8_...) have the 32x32 one. With cuDNN 8's
    // register-staged scudnn tiles the forward MAPE was 34.2%, the weight gradient's 34.5%.
    L.gemm.cta_tiles.clear();
    if (k.pass != Pass::forward) L.gemm.cta_tiles = {{32, 32}};
    L.gemm.problem.simt = SimtKernels::cudnn_xmma;
    L.gemm.problem.register_staged = false;
  }
  return L;
}

}  // namespace tcsim::gpu
