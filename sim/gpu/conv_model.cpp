#include "gpu/conv_model.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "gpu/gemm_result.h"
#include "gpu/kernel_program.h"

namespace tcsim::gpu {
namespace {

using i64 = std::int64_t;

i64 round_up(i64 v, i64 m) { return (v + m - 1) / m * m; }
i64 ceil_div(i64 a, i64 b) { return (a + b - 1) / b; }

// CUTLASS's NHWC implicit-GEMM iterators (cutlass/conv/convolution.h, implicit_gemm_k_iterations,
// Optimized iterator) walk the reduction as filter taps x channel blocks of the CTA's K tile: a
// tap's channels are padded to a whole block. cuDNN's sm_70 tensor-core kernels use K tiles of 32.
constexpr i64 kTensorChannelBlock = 32;

// The shape of a GEMM step before planning. Footprints are per batch instance.
struct GemmShape {
  i64 m = 0, n = 0, k = 0, batch = 1;
  double a_footprint = 0, b_footprint = 0;
  bool a_k_contiguous = false, b_k_contiguous = false;
  double out_bytes = 0;  // bytes per stored GEMM output element
};

GemmPlan plan_step(const GpuConfig& g, const Kernel& conv, const GemmShape& s, bool tensor) {
  // Plan with M rounded to 8 (the conv kernels predicate the rows of their last tile; the padding
  // rule of plain cuBLAS GEMMs does not apply) and N, K already padded by the caller.
  Kernel gk = make_gemm(conv.name, round_up(s.m, tensor ? 8 : 1), s.n, round_up(s.k, tensor ? 8 : 1), conv.a_format,
                        conv.c_format);
  gk.b_format = conv.b_format;
  gk.d_format = conv.a_format;
  gk.batch = s.batch;
  GemmPlan p = plan_gemm(g, gk);
  p.problem.m = s.m;
  p.problem.k = s.k;
  p.problem.a_footprint_bytes = s.a_footprint;
  p.problem.b_footprint_bytes = s.b_footprint;
  p.problem.a_k_contiguous = s.a_k_contiguous;
  p.problem.b_k_contiguous = s.b_k_contiguous;
  if (s.out_bytes > 0) p.problem.c_bytes = s.out_bytes;
  return p;
}

std::string fmt(const char* f, double v) {
  char b[96];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

}  // namespace

ConvLowering lower_conv(const GpuConfig& g, const Kernel& k) {
  check_conv(k);
  ConvLowering L;
  L.choice = choose_conv_algo(g, k);
  const ConvShape& c = k.conv;
  const bool tensor = L.choice.tensor_cores;
  const double e = format_bits(k.a_format) / 8.0;  // x, w and y share the data format (cuDNN)
  const i64 groups = c.groups, N = c.batch, H = c.ifmap_h, W = c.ifmap_w, P = c.out_h(), Q = c.out_w();
  const i64 R = c.filter_h, S = c.filter_w;
  i64 cg = c.channels / groups, kg = c.num_filters / groups;
  const Pass pass = k.pass;
  L.notes.push_back("cuDNN " + std::string(cudnn_name(L.choice.algo)) + ": " + L.choice.why);

  if (L.choice.algo == ConvAlgo::direct_depthwise) {
    L.has_gemm = false;
    const double x = double(N * H * W * c.channels) * e, y = double(N * P * Q * c.num_filters) * e;
    const double w = double(c.num_filters * R * S) * e;
    StreamingKernel& d = L.direct;
    d.what = "direct depthwise kernel";
    d.flops = k.flops();
    if (pass == Pass::forward) d.read_bytes = x + w, d.write_bytes = y;
    if (pass == Pass::data_grad) d.read_bytes = y + w, d.write_bytes = x;
    if (pass == Pass::weight_grad) d.read_bytes = x + y, d.write_bytes = w;
    return L;
  }

  if (tensor && (cg % 8 || kg % 8)) {
    L.notes.push_back("C/group " + std::to_string(cg) + " or K/group " + std::to_string(kg) +
                      " not a multiple of 8: padded to " + std::to_string(round_up(cg, 8)) + " and " +
                      std::to_string(round_up(kg, 8)) + " for the tensor cores (the padding is computed)");
    cg = round_up(cg, 8), kg = round_up(kg, 8);
  }
  if (groups > 1) L.notes.push_back(std::to_string(groups) + " groups run as one batched implicit GEMM");
  const double x = double(N * H * W * cg) * e, y = double(N * P * Q * kg) * e, w = double(kg * cg * R * S) * e;
  const bool unit_stride = c.stride_h == 1 && c.stride_w == 1;
  const bool pointwise = R == 1 && S == 1 && !std::getenv("TCSIM_PW");
  // NHWC kernels read channels contiguously; NCHW ones read along W.
  const bool nhwc_kernel = tensor || c.layout == TensorLayout::nhwc;
  GemmShape s;
  s.batch = groups;
  s.out_bytes = e;

  switch (L.choice.algo) {
    case ConvAlgo::implicit_gemm:
    case ConvAlgo::implicit_precomp_gemm: {
      const i64 block = tensor && !pointwise ? kTensorChannelBlock : 1;
      if (pass == Pass::forward) {
        s.m = N * P * Q, s.n = kg, s.k = R * S * round_up(cg, block);
        s.a_footprint = x, s.b_footprint = w;
        s.a_k_contiguous = nhwc_kernel, s.b_k_contiguous = true;
      } else if (pass == Pass::data_grad) {
        // Strided data gradients run as stride_h x stride_w phases, each reducing over the filter
        // taps that land on its pixels: at most ceil(R/sh) x ceil(S/sw) (CUTLASS strided dgrad).
        // Phases that no tap reaches (R < stride) only store zeros.
        const bool full = !tensor && !std::getenv("TCSIM_PH") && (R < c.stride_h || S < c.stride_w);
        const i64 taps = ceil_div(R, c.stride_h) * ceil_div(S, c.stride_w);
        const i64 phases = full ? 1 : c.stride_h * c.stride_w;
        const i64 active = full ? 1 : std::min(R, c.stride_h) * std::min(S, c.stride_w);
        const i64 sub_h = full ? H : ceil_div(H, c.stride_h), sub_w = full ? W : ceil_div(W, c.stride_w);
        s.m = N * sub_h * sub_w * active, s.n = cg, s.k = taps * round_up(kg, block);
        if (active < phases)
          L.helpers.push_back({"zero fill of the input-gradient pixels no filter tap reaches", 0,
                               x * double(phases - active) / double(phases), 0});
        s.a_footprint = y, s.b_footprint = w;
        s.a_k_contiguous = nhwc_kernel, s.b_k_contiguous = !nhwc_kernel;
        if (!unit_stride)
          L.notes.push_back("strided data gradient: " + std::to_string(c.stride_h * c.stride_w) + " phases of at most " +
                            std::to_string(taps) + " filter taps");
      } else {
        const i64 wb = std::getenv("TCSIM_WB") ? block : 1;
        s.m = kg, s.n = R * S * round_up(cg, wb), s.k = N * P * Q;
        s.b_footprint = x;
        s.a_k_contiguous = !nhwc_kernel, s.b_k_contiguous = !nhwc_kernel;
      }
      if (block > 1 && pass != Pass::weight_grad && (pass == Pass::forward ? cg : kg) % block)
        L.notes.push_back("reduction over filter taps x " + std::to_string(block) + "-channel blocks: " +
                          std::to_string(pass == Pass::forward ? cg : kg) + " channels per tap padded to " +
                          std::to_string(round_up(pass == Pass::forward ? cg : kg, block)));
      const char* pwx = std::getenv("TCSIM_PWX");
      const int pwmode = pwx ? std::atoi(pwx) : 0;  // 1: dgrad, 2: wgrad, 3: both transpose for 1x1
      const bool tr = !pointwise || (pass == Pass::data_grad && (pwmode & 1)) || (pass == Pass::weight_grad && (pwmode & 2));
      if (tensor && c.layout == TensorLayout::nchw && tr) {
        // The sm_70 tensor-core kernels read NHWC: cuDNN transposes the NCHW operands first
        // (nchwToNhwcKernel) and the kernel's epilogue writes NCHW directly (*_nhwc2nchw_*).
        auto transpose = [&](const char* what, double bytes) { L.helpers.push_back({what, bytes, bytes, 0}); };
        if (pass == Pass::forward) transpose("NCHW->NHWC transpose of the input", x);
        if (pass == Pass::data_grad) transpose("NCHW->NHWC transpose of the output gradient", y);
        if (pass == Pass::weight_grad) {
          transpose("NCHW->NHWC transpose of the input", x);
          transpose("NCHW->NHWC transpose of the output gradient", y);
        }
        if (pass != Pass::weight_grad && std::getenv("TCSIM_FILT")) transpose("KCRS->KRSC transpose of the filters", w);
      } else if (tensor && c.layout == TensorLayout::nchw) {
        L.notes.push_back("1x1 convolution on NCHW tensors: a (strided) GEMM per image, no transposes");
        s.a_k_contiguous = pass == Pass::weight_grad;  // NCHW: H*W contiguous
        if (pass == Pass::weight_grad) s.b_k_contiguous = true;
      }
      break;
    }
    case ConvAlgo::winograd: {
      // Fused F(2x2,3x3): one kernel transforms 4x4 input tiles in shared memory, runs the 16
      // element-wise products as GEMMs over channels and writes the 2x2 outputs of each tile.
      const bool fwd = pass == Pass::forward;
      const i64 tiles = N * ceil_div(fwd ? P : H, 2) * ceil_div(fwd ? Q : W, 2);
      s.batch = 16 * groups, s.m = tiles, s.n = fwd ? kg : cg, s.k = fwd ? cg : kg;
      s.a_footprint = (fwd ? x : y) / 16;
      s.out_bytes = e * 4 / 16;  // 4 outputs stored per 16 products (the inverse transform is in-kernel)
      L.notes.push_back("fused Winograd F(2x2,3x3): 16 GEMMs over " + std::to_string(tiles) + " tiles");
      break;
    }
    case ConvAlgo::winograd_nonfused: {
      const i64 mt = R == 3 ? (std::getenv("TCSIM_F2") ? 2 : 4) : 2, alpha = mt + R - 1, a2 = alpha * alpha;  // F(4x4,3x3), F(2x2,5x5)
      const bool fwd = pass == Pass::forward, wgrad = pass == Pass::weight_grad;
      const i64 th = ceil_div(pass == Pass::data_grad ? H : P, mt), tw = ceil_div(pass == Pass::data_grad ? W : Q, mt);
      const i64 tiles = N * th * tw;
      const double ti = double(a2 * tiles * cg) * e, to = double(a2 * tiles * kg) * e, tw_ = double(a2 * kg * cg) * e;
      if (wgrad) {
        L.helpers.push_back({"Winograd transform of the input", x, ti, 0});
        L.helpers.push_back({"Winograd transform of the output gradient", y, to, 0});
        s.m = kg, s.n = cg, s.k = tiles;
      } else {
        L.helpers.push_back({fwd ? "Winograd transform of the input" : "Winograd transform of the output gradient",
                             fwd ? x : y, fwd ? ti : to, 0});
        L.helpers.push_back({"Winograd transform of the filters", w, tw_, 0});
        s.m = tiles, s.n = fwd ? kg : cg, s.k = fwd ? cg : kg;
      }
      s.batch = a2 * groups;
      L.helpers.push_back({"inverse Winograd transform", wgrad ? tw_ : fwd ? to : ti, wgrad ? w : fwd ? y : x, 0});
      L.notes.push_back("nonfused Winograd F(" + std::to_string(mt) + "x" + std::to_string(mt) + "," + std::to_string(R) +
                        "x" + std::to_string(S) + "): " + std::to_string(a2) + " batched GEMMs over " +
                        std::to_string(tiles) + " tiles");
      break;
    }
    case ConvAlgo::fft_tiling: {
      // 32x32 real FFT tiles (32 x 17 complex bins), each bin a complex GEMM over channels; a
      // complex multiply-add is 4 real ones (a real GEMM with doubled N and K).
      const i64 T = 32, bins = T * (T / 2 + 1), step = T - R + 1;
      const bool fwd = pass == Pass::forward, wgrad = pass == Pass::weight_grad;
      const i64 tiles = N * ceil_div(pass == Pass::data_grad ? H : P, step) * ceil_div(pass == Pass::data_grad ? W : Q, step);
      const double cplx = 2 * e;
      const double fi = double(bins * tiles * cg) * cplx, fo = double(bins * tiles * kg) * cplx;
      const double fw = double(bins * kg * cg) * cplx;
      const double fft_flops = 5.0 * double(T * T) * 10;  // 5 n log2 n per 32x32 transform
      if (wgrad) {
        L.helpers.push_back({"FFT of the input tiles", x, fi, fft_flops * double(tiles * cg)});
        L.helpers.push_back({"FFT of the output-gradient tiles", y, fo, fft_flops * double(tiles * kg)});
        s.m = kg, s.n = 2 * cg, s.k = 2 * tiles;
      } else {
        L.helpers.push_back({fwd ? "FFT of the input tiles" : "FFT of the output-gradient tiles", fwd ? x : y,
                             fwd ? fi : fo, fft_flops * double(tiles * (fwd ? cg : kg))});
        L.helpers.push_back({"FFT of the filters", w, fw, fft_flops * double(kg * cg)});
        s.m = tiles, s.n = 2 * (fwd ? kg : cg), s.k = 2 * (fwd ? cg : kg);
      }
      s.batch = bins * groups;
      L.helpers.push_back({"inverse FFT", wgrad ? fw : fwd ? fo : fi, wgrad ? w : fwd ? y : x,
                           fft_flops * double(wgrad ? kg * cg : tiles * (fwd ? kg : cg))});
      L.notes.push_back("FFT tiling: " + std::to_string(bins) + " complex GEMMs over " + std::to_string(tiles) + " tiles");
      break;
    }
    case ConvAlgo::direct_depthwise: break;
  }
  L.gemm = plan_step(g, k, s, tensor);
  const char* at = std::getenv("TCSIM_ALLTILES");
  const int amode = at ? std::atoi(at) : 0;  // 0 restrict all, 1 none, 2 restrict wgrad only, 3 restrict fwd/dgrad only
  if (tensor && g.arch == "sm_70" && (L.choice.algo == ConvAlgo::implicit_precomp_gemm) && amode != 1 &&
      (amode == 0 || (amode == 2) == (pass == Pass::weight_grad)))
  {
    L.gemm.cta_tiles = {{256, 128}, {256, 64}, {128, 128}, {128, 64}};
    const char* wt = std::getenv("TCSIM_WT");
    if (wt && pass == Pass::weight_grad) {
      if (std::atoi(wt) == 1) L.gemm.cta_tiles = {{128, 128}, {64, 128}};
      if (std::atoi(wt) == 2) L.gemm.cta_tiles = {{128, 128}, {64, 128}, {128, 64}, {64, 64}};
      if (std::atoi(wt) == 3) L.gemm.cta_tiles = {{256, 128}, {256, 64}, {128, 128}, {128, 64}, {64, 128}};
    }
  }
  // cuDNN's forward and data-gradient kernels do not split their reduction; its weight-gradient
  // kernels split the reduction over N*P*Q by images (at most one slice per image).
  {
    const char* ev = std::getenv("TCSIM_WG");
    const int mode = ev ? std::atoi(ev) : 0;
    const char* fs = std::getenv("TCSIM_FS");
    const int fmode = fs ? std::atoi(fs) : 0;
    const char* ds = std::getenv("TCSIM_DS");
    const int dmode = ds ? std::atoi(ds) : 1;
    L.gemm.max_split_k = pass == Pass::weight_grad ? (mode == 1 ? int(std::min<i64>(N, 1 << 20)) : mode == 0 ? 0 : mode) : pass == Pass::forward ? fmode : dmode;
  }
  return L;
}

KernelResult run_conv(const GpuConfig& g, const Kernel& k, SmTimeCache& cache) {
  const ConvLowering L = lower_conv(g, k);
  KernelResult r;
  double helper_s = 0, helper_cycles = 0, helper_read = 0, helper_write = 0;
  std::vector<std::string> helper_notes;
  for (const auto& h : L.helpers) {
    const StreamingCost c = streaming_cost(g, h);
    helper_s += c.time_s, helper_cycles += c.cycles;
    helper_read += h.read_bytes, helper_write += h.write_bytes;
    helper_notes.push_back(h.what + ": " + fmt("%.1f us", c.time_s * 1e6) + (c.in_l2 ? " (in L2)" : ""));
  }
  if (L.has_gemm) {
    const Estimate best = choose_mapping(g, L.gemm, cache);
    r = gemm_result(g, L.gemm, best);
    r.mapping = "cuDNN " + std::string(cudnn_name(L.choice.algo)) + ": " + r.mapping;
  } else {
    const StreamingCost c = streaming_cost(g, L.direct);
    r.cycles = c.cycles;
    r.time_s = c.time_s;
    r.bound = c.math_bound ? "cuda_core" : c.in_l2 ? "l2" : "dram";
    r.mapping = "cuDNN " + std::string(cudnn_name(L.choice.algo)) + ": streaming kernel";
    r.set("dram_read_bytes", L.direct.read_bytes);
    r.set("dram_write_bytes", L.direct.write_bytes);
    r.set("launch_overhead_us", g.launch_overhead_s * 1e6);
  }
  r.name = k.name;
  r.flops = k.flops();
  r.notes.insert(r.notes.begin(), L.notes.begin(), L.notes.end());
  if (!L.helpers.empty()) {
    // Launches are asynchronous: in a stream of calls the host enqueues the helper while the
    // previous kernel runs, so a helper adds its GPU time; the host's launch rate (one
    // launch_overhead per kernel) is the floor of the whole call.
    const int launches = int(L.helpers.size()) + int(std::lround(r.get("launch_overhead_us").value_or(0) /
                                                                 std::max(g.launch_overhead_s * 1e6, 1e-9)));
    r.time_s = std::max(r.time_s + helper_cycles / g.clock_hz, launches * g.launch_overhead_s);
    r.cycles += helper_cycles;
    std::string names;
    for (const auto& h : L.helpers) names += (names.empty() ? "" : ", ") + h.what;
    r.mapping += "; + " + names;
    r.notes.insert(r.notes.end(), helper_notes.begin(), helper_notes.end());
    r.set("dram_read_bytes", r.get("dram_read_bytes").value_or(0) + helper_read);
    r.set("dram_write_bytes", r.get("dram_write_bytes").value_or(0) + helper_write);
    r.set("launch_overhead_us", r.get("launch_overhead_us").value_or(0) + double(L.helpers.size()) * g.launch_overhead_s * 1e6);
  }
  r.set("helper_kernels", double(L.helpers.size()));
  r.set("helper_time_us", helper_s * 1e6);
  return r;
}

}  // namespace tcsim::gpu
