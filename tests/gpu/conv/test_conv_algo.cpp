// cuDNN algorithm choice (conv_algo.h) on hand-picked shapes, and bad convolutions.
#include <doctest/doctest.h>

#include <string>

#include "common/error.h"
#include "gpu/conv/conv_algo.h"
#include "gpu/gpu_model.h"
#include "conv_test_util.h"
#include "gpu/gpu_test_util.h"

namespace tcsim::gpu {
namespace {

std::string algo(const GpuConfig& g, const test::ConvArgs& a) {
  return cudnn_name(choose_conv_algo(g, test::conv_kernel(a)).algo);
}

}  // namespace

TEST_CASE("tensor-core formats run cuDNN's precomputed-index implicit GEMM") {
  const GpuConfig g = test::shipped("v100");
  for (Pass p : {Pass::forward, Pass::data_grad, Pass::weight_grad}) {
    test::ConvArgs a;
    a.pass = p;
    const ConvChoice c = choose_conv_algo(g, test::conv_kernel(a));
    CHECK(std::string(cudnn_name(c.algo)) == "IMPLICIT_PRECOMP_GEMM");
    CHECK(c.tensor_cores);
  }
  test::ConvArgs a;
  a.r = a.s = 5, a.pad = 2, a.c = 512;  // a Winograd shape in FP32 stays an implicit GEMM in FP16
  CHECK(algo(g, a) == "IMPLICIT_PRECOMP_GEMM");
}

TEST_CASE("FP32 rules: Winograd for 3x3 stride 1, FFT tiling or Winograd for 5x5, implicit GEMM otherwise") {
  const GpuConfig g = test::shipped("v100");
  test::ConvArgs a;
  a.format = FormatId::fp32;
  a.c = 256, a.k = 512, a.n = 16;
  CHECK(algo(g, a) == "WINOGRAD_NONFUSED");
  a.c = 64, a.n = 8;  // C x batch <= 512: the fused kernel
  CHECK(algo(g, a) == "WINOGRAD");
  a.pass = Pass::weight_grad;  // no fused weight-gradient kernel
  CHECK(algo(g, a) == "WINOGRAD_NONFUSED");
  a.pass = Pass::forward;
  a.c = 16;  // too few channels to amortise the transforms
  CHECK(algo(g, a) == "IMPLICIT_GEMM");
  a.c = 256, a.stride = 2;  // Winograd needs unit stride
  CHECK(algo(g, a) == "IMPLICIT_GEMM");
  a.stride = 1, a.dilation = 2, a.pad = 2;  // ... and no dilation
  CHECK(algo(g, a) == "IMPLICIT_GEMM");
  a.dilation = 1, a.r = a.s = 5, a.pad = 2, a.c = 192, a.k = 32;
  CHECK(algo(g, a) == "FFT_TILING");
  a.c = 512;
  CHECK(algo(g, a) == "WINOGRAD_NONFUSED");
  a.r = a.s = 1, a.pad = 0, a.c = 64, a.k = 256;  // widening 1x1
  CHECK(algo(g, a) == "IMPLICIT_PRECOMP_GEMM");
  a.k = 64;
  CHECK(algo(g, a) == "IMPLICIT_GEMM");
}

TEST_CASE("candidates: one algorithm for cuDNN < 8 and tensor cores; cuDNN 8 FP32 3x3 tries three") {
  GpuConfig g = test::shipped("v100");
  CHECK(g.cudnn_version == doctest::Approx(8.9));  // library.cudnn_version's default
  test::ConvArgs a;
  a.format = FormatId::fp32, a.c = 128;  // C x N > 512: the 7.6 rule says nonfused
  Kernel k = test::conv_kernel(a);
  auto names = [&](const Kernel& kk) {
    std::string s;
    for (const auto& c : conv_candidates(g, kk)) s += std::string(cudnn_name(c.algo)) + " ";
    return s;
  };
  CHECK(names(k) == "WINOGRAD_NONFUSED IMPLICIT_PRECOMP_GEMM WINOGRAD ");
  k.pass = Pass::weight_grad;  // no fused weight-gradient kernel
  CHECK(names(k) == "WINOGRAD_NONFUSED IMPLICIT_PRECOMP_GEMM ");
  k.pass = Pass::forward;
  k.conv.stride_h = k.conv.stride_w = 2;  // no Winograd
  CHECK(names(k) == "IMPLICIT_GEMM ");  // the two implicit GEMMs cost the same: one candidate
  k.conv.stride_h = k.conv.stride_w = 1;
  k.conv.cudnn_version = 7.6;  // a measured set's release wins over the config
  CHECK(names(k) == "WINOGRAD_NONFUSED ");
  k.conv.cudnn_version = 0;
  g.cudnn_version = 7.6;
  CHECK(names(k) == "WINOGRAD_NONFUSED ");
  g.cudnn_version = 8.9;
  a.format = FormatId::fp16;
  CHECK(names(test::conv_kernel(a)) == "IMPLICIT_PRECOMP_GEMM ");
}

TEST_CASE("cuDNN 9's heuristic (benchmark off) runs FP32 forward convolutions as implicit GEMM") {
  GpuConfig g = test::shipped("h100");  // cuDNN 9.19, benchmark off: the measured runs' settings
  CHECK(g.cudnn_version == doctest::Approx(9.19));
  CHECK_FALSE(g.cudnn_benchmark);
  test::ConvArgs a;
  a.format = FormatId::fp32, a.c = 128;
  auto names = [&](const Kernel& kk) {
    std::string s;
    for (const auto& c : conv_candidates(g, kk)) s += std::string(cudnn_name(c.algo)) + " ";
    return s;
  };
  Kernel k = test::conv_kernel(a);
  CHECK(names(k) == "IMPLICIT_GEMM ");  // 3x3 stride 1: no Winograd
  k.conv.filter_h = k.conv.filter_w = 5, k.conv.pad_h = k.conv.pad_w = 2;
  CHECK(names(k) == "IMPLICIT_PRECOMP_GEMM ");  // 5x5: no FFT either
  k = test::conv_kernel(a);
  k.pass = Pass::data_grad;  // the xmma implicit GEMM or the legacy dgrad_engine, never Winograd
  CHECK(names(k) == "IMPLICIT_GEMM BWD_DATA_ALGO_0 ");
  k.pass = Pass::weight_grad;  // not learnt: the benchmark candidates stand in
  CHECK(names(k) == "WINOGRAD_NONFUSED IMPLICIT_PRECOMP_GEMM ");
  k.pass = Pass::forward;
  g.cudnn_benchmark = true;  // cudnn.benchmark = True: the fastest modelled candidate
  CHECK(names(k) == "WINOGRAD_NONFUSED IMPLICIT_PRECOMP_GEMM WINOGRAD ");
  g.cudnn_benchmark = false;
  g.cudnn_version = 8.9;  // no cuDNN 8 heuristic is modelled: benchmark mode stands in
  CHECK(names(k) == "WINOGRAD_NONFUSED IMPLICIT_PRECOMP_GEMM WINOGRAD ");
  g.cudnn_version = 9.19;
  a.format = FormatId::fp16;  // tensor cores: unchanged
  CHECK(names(test::conv_kernel(a)) == "IMPLICIT_PRECOMP_GEMM ");
}

TEST_CASE("depthwise convolutions run a direct kernel, not tensor cores") {
  const GpuConfig g = test::shipped("v100");
  test::ConvArgs a;
  a.c = a.k = a.groups = 96;
  const ConvChoice c = choose_conv_algo(g, test::conv_kernel(a));
  CHECK(std::string(cudnn_name(c.algo)) == "DIRECT_DEPTHWISE");
  CHECK_FALSE(c.tensor_cores);
  a.groups = 4;  // grouped, not depthwise: still an implicit GEMM
  CHECK(algo(g, a) == "IMPLICIT_PRECOMP_GEMM");
}

TEST_CASE("bad convolutions are InputErrors, also through GpuModel::run") {
  GpuModel model(test::shipped("v100"));
  auto bad = [&](test::ConvArgs a, const char* what) {
    INFO(what);
    CHECK_THROWS_AS(check_conv(test::conv_kernel(a)), InputError);
    CHECK_THROWS_AS(model.run(test::conv_kernel(a)), InputError);
  };
  test::ConvArgs a;
  a.n = 0;
  bad(a, "zero batch");
  a = {};
  a.c = 0;
  bad(a, "zero channels");
  a = {};
  a.k = -3;
  bad(a, "negative filters");
  a = {};
  a.h = 2, a.pad = 0;
  bad(a, "3x3 filter taller than an unpadded 2-row input");
  a = {};
  a.w = 4, a.pad = 1, a.dilation = 3;
  bad(a, "dilated filter (span 7) wider than the padded input (6)");
  a = {};
  a.groups = 3;
  bad(a, "channels not a multiple of groups");
  a = {};
  a.stride = 0;
  bad(a, "zero stride");
  a = {};
  a.n = a.h = a.w = a.c = std::int64_t{1} << 20;
  bad(a, "tensors beyond int64 element counts");
  a = {};
  a.pad = -1;
  bad(a, "negative padding");
  std::string message;
  try {
    check_conv(test::conv_kernel(a));
  } catch (const InputError& e) {
    message = e.what();
  }
  CHECK(message.find("padding") != std::string::npos);
}

TEST_CASE("benchmark mode with TF32 allowed also times the FP32 algorithms and keeps the faster") {
  // An RGB first layer: on the tensor cores C = 3 is padded to 8 and each tap to a 32-channel block
  // (10.7x the work); the A10's TF32 rate is only twice its FP32 one, so the FP32 kernel wins.
  GpuModel a10(test::shipped("a10"));
  test::ConvArgs first;
  first.n = 32, first.h = first.w = 224, first.c = 3, first.k = 64, first.r = first.s = 7, first.stride = 2, first.pad = 3;
  first.format = FormatId::tf32;
  const KernelResult tf32 = a10.run(test::conv_kernel(first));
  CHECK(tf32.mapping.find("FFMA") != std::string::npos);
  bool listed = false;
  for (const std::string& n : tf32.notes)
    listed |= n.find("(TF32)") != std::string::npos && n.find("(FP32)") != std::string::npos;
  CHECK(listed);  // the note names both kinds of candidate
  first.format = FormatId::fp32;
  CHECK(tf32.time_s == doctest::Approx(a10.run(test::conv_kernel(first)).time_s));

  // A wide 3x3 layer stays on the tensor cores, where TF32 is 8x the FP32 rate (A100).
  GpuModel a100(test::shipped("a100"));
  test::ConvArgs wide;
  wide.n = 64, wide.c = wide.k = 256, wide.format = FormatId::tf32;
  CHECK(a100.run(test::conv_kernel(wide)).mapping.find("TF32") != std::string::npos);
  // cuDNN 9's heuristic (the H100 config: benchmark off) is modelled from its traces: no FP32 candidates.
  GpuModel h100(test::shipped("h100"));
  first.format = FormatId::tf32;
  const KernelResult heuristic = h100.run(test::conv_kernel(first));
  CHECK(heuristic.mapping.find("FFMA") == std::string::npos);
  for (const std::string& n : heuristic.notes) CHECK(n.find("(FP32)") == std::string::npos);
}

TEST_CASE("cuDNN 9 on sm_90 rewrites strided 16-bit data gradients of unaligned channels to unit stride") {
  const GpuConfig g = test::shipped("h100");
  auto names = [&](const test::ConvArgs& a) {
    std::string s;
    for (const auto& c : conv_candidates(g, test::conv_kernel(a))) s += std::string(cudnn_name(c.algo)) + " ";
    return s;
  };
  // DeepSpeech's one-channel layer (NCHW): the strided sm90 kernel or the rewrite.
  test::ConvArgs a;
  a.n = 4, a.c = 1, a.h = 161, a.w = 700, a.k = 32, a.r = 5, a.s = 20, a.stride = 2, a.pad = 0;
  a.pass = Pass::data_grad;
  CHECK(names(a) == "IMPLICIT_PRECOMP_GEMM IMPLICIT_GEMM_UNITY_STRIDE ");
  test::ConvArgs rgb;  // channels-last C = 3: the sm90 kernels cannot address dX, the rewrite alone
  rgb.n = 8, rgb.c = 3, rgb.h = rgb.w = 108, rgb.k = 64, rgb.stride = 2, rgb.layout = TensorLayout::nhwc;
  rgb.pass = Pass::data_grad;
  CHECK(names(rgb) == "IMPLICIT_GEMM_UNITY_STRIDE ");
  rgb.layout = TensorLayout::nchw;  // through cuDNN's padded layout conversions: both
  CHECK(names(rgb) == "IMPLICIT_PRECOMP_GEMM IMPLICIT_GEMM_UNITY_STRIDE ");
  // Not rewritten: aligned channels, unit stride, other passes, FP32/TF32, sm_80, cuDNN 8.
  test::ConvArgs b = rgb;
  b.c = 64;
  CHECK(names(b) == "IMPLICIT_PRECOMP_GEMM ");
  b = rgb, b.stride = 1;
  CHECK(names(b) == "IMPLICIT_PRECOMP_GEMM ");
  b = rgb, b.pass = Pass::weight_grad;
  CHECK(names(b) == "IMPLICIT_PRECOMP_GEMM ");
  b = rgb, b.format = FormatId::tf32;
  CHECK(names(b) == "IMPLICIT_PRECOMP_GEMM ");
  CHECK(cudnn_name(conv_candidates(test::shipped("a100"), test::conv_kernel(rgb)).back().algo) ==
        std::string("IMPLICIT_PRECOMP_GEMM"));
  GpuConfig old = g;
  old.cudnn_version = 8.9;
  CHECK(conv_candidates(old, test::conv_kernel(rgb)).size() == 1);
}

}  // namespace tcsim::gpu
