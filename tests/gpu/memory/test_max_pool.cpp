// PyTorch's max-pooling kernels (sim/gpu/memory/max_pool_launch.h): the launches the library makes,
// the windows covering an input, and the times against the lent H100's traces.
#include <doctest/doctest.h>

#include "gpu/gpu_model.h"
#include "gpu/memory/max_pool_launch.h"
#include "gpu/gpu_test_util.h"

using namespace tcsim;
using namespace tcsim::gpu;

namespace {

// ResNet-50's stem pool: 3x3, stride 2, padding 1, 112x112 -> 56x56 over 64 channels.
PoolShape resnet_pool(std::int64_t batch, bool channels_last, bool backward) {
  PoolShape p;
  p.n = batch, p.c = 64, p.h = 112, p.w = 112, p.p = 56, p.q = 56;
  p.kernel_h = p.kernel_w = 3, p.stride_h = p.stride_w = 2, p.pad_h = p.pad_w = 1;
  p.channels_last = channels_last, p.backward = backward;
  return p;
}

Kernel pool_kernel(const PoolShape& p, FormatId f) {
  Kernel k;
  k.kind = Kernel::Kind::memory;
  k.name = "maxpool";
  k.a_format = k.b_format = k.c_format = k.d_format = f;
  k.memory.op = "max_pool";
  k.memory.pool = p;
  const double e = format_bits(f) / 8.0, in = double(p.n * p.c * p.h * p.w), out = double(p.n * p.c * p.p * p.q);
  k.memory.elements = std::int64_t(p.backward ? in : out);
  k.bytes_read = std::uint64_t(p.backward ? out * (e + 8) : in * e);
  k.bytes_written = std::uint64_t(p.backward ? in * e : out * (e + 8));
  return k;
}

}  // namespace

TEST_CASE("max pool: the launches PyTorch 2.11 makes, as the H100 traces recorded them") {
  // validation/measured/H100/profiles: resnet50_amp-fp16_cl_b256 and resnet50_tf32_b128.
  MemoryLaunch f = max_pool_launch(resnet_pool(256, true, false));
  CHECK(f.kernel == "max_pool_forward_nhwc (grid 256x1x28, CTAs of 32x32x1 threads)");
  CHECK(f.ctas == 256 * 28);
  CHECK(f.threads_per_cta == 1024);
  MemoryLaunch b = max_pool_launch(resnet_pool(256, true, true));
  CHECK(b.kernel == "max_pool_backward_nhwc (grid 256x2x56, CTAs of 32x32x1 threads)");
  MemoryLaunch nf = max_pool_launch(resnet_pool(128, false, false));
  CHECK(nf.ctas == 100352);
  CHECK(nf.threads_per_cta == 256);
  CHECK(nf.dependent_loads == 3);  // a trip per window row; the row's other taps hit L1
  CHECK(nf.reread_trips == 6);
  MemoryLaunch nb = max_pool_launch(resnet_pool(128, false, true));
  CHECK(nb.kernel == "max_pool_backward_nchw (grid 49x128x64, CTAs of 256x1x1 threads)");
  CHECK(nb.dependent_loads == doctest::Approx(2 * (167.0 / 112) * (167.0 / 112)));  // index and gradient per candidate
  // A 64-channel channels-last thread loops over two chunks of 32 channels, so it issues more per
  // element than a channels-first thread's one output.
  CHECK(f.issue_instructions_per_element > 0);
  CHECK(nf.issue_instructions_per_element == doctest::Approx(180 + 3 * 16 + 9 * 14));
}

TEST_CASE("max pool: windows per input coordinate, borders and long dimensions") {
  // Alternately one and two, but the first window hangs over the padding: 56 x 3 - 1 taps on the input.
  CHECK(windows_per_input(112, 56, 3, 2, 1) == doctest::Approx(167.0 / 112).epsilon(1e-12));
  CHECK(windows_per_input(112, 56, 2, 2, 0) == doctest::Approx(1.0));  // tiling windows
  CHECK(windows_per_input(7, 3, 3, 2, 0) == doctest::Approx(9.0 / 7));  // every window whole
  // A long dimension (the periodic middle is not walked): 500001 windows of 3, one tap clipped at
  // each end.
  CHECK(windows_per_input(1000001, 500001, 3, 2, 1) == doctest::Approx(1500001.0 / 1000001).epsilon(1e-12));
  // A window of 2^30 taps over 2^30 coordinates: not walked, one whole window.
  CHECK(windows_per_input(std::int64_t{1} << 30, 1, 1 << 30, 1, 0) == doctest::Approx(1.0));
}

TEST_CASE("max pool: ResNet-50's stem pool against the lent H100's kernel durations" * doctest::test_suite("accuracy")) {
  // CUPTI durations from validation/measured/H100/profiles (one step each, nothing fitted): the
  // model's time without the launch within 20% of each.
  const GpuModel m(gpu::test::shipped("h100"));
  struct Case {
    PoolShape p;
    FormatId f;
    double measured_us;
  };
  const Case cases[] = {{resnet_pool(256, true, false), FormatId::fp16, 859.4},
                        {resnet_pool(256, true, true), FormatId::fp16, 1836.6},
                        {resnet_pool(128, false, false), FormatId::fp32, 407.4},
                        {resnet_pool(128, false, true), FormatId::fp32, 1151.5}};
  for (const auto& c : cases) {
    const KernelResult r = m.run(pool_kernel(c.p, c.f));
    const double us = r.time_s * 1e6;
    CHECK_MESSAGE(us == doctest::Approx(c.measured_us).epsilon(0.20), r.mapping << ": " << us << " us");
  }
  // The generic path (no window given) is what these kernels cost before: a third of the time or less.
  Kernel generic = pool_kernel(resnet_pool(256, true, true), FormatId::fp16);
  generic.memory.pool = PoolShape{};
  CHECK(m.run(generic).time_s * 1e6 < 0.5 * 1836.6);
}
