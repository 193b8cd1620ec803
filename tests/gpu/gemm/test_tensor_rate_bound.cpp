// No kernel may beat the tensor cores' peak: a regression test for the steady-state extrapolation
// when several CTAs share an SM under GTO (the oldest CTA runs ahead; measuring its period alone
// made fp16-accumulate GEMMs on A100 run at 128% of the tensor pipe, 398 of 312 TFLOP/s).
#include <doctest/doctest.h>

#include <string>

#include "gpu/gpu_model.h"
#include "gpu/gpu_test_util.h"
#include "numerics/formats/format_id.h"

namespace tcsim::gpu {

TEST_CASE("large GEMMs stay under the tensor peak for every accumulator, scheduler and GPU") {
  struct Case {
    const char* gpu;
    double peak_tflops;  // dense fp16 at the config's clock [timing.md section 1]
  };
  for (const Case c : {Case{"v100", 125.3}, Case{"t4", 65.2}, Case{"a100", 312.0}, Case{"h100", 989.5}}) {
    GpuConfig cfg = test::shipped(c.gpu);
    for (const auto policy : {SchedulerPolicy::gto, SchedulerPolicy::lrr}) {
      cfg.scheduler_policy = policy;
      const GpuModel model(cfg);
      for (const FormatId acc : {FormatId::fp16, FormatId::fp32}) {
        for (const std::int64_t n : {4096, 8192}) {
          const KernelResult r = model.run(make_gemm("sq", n, n, n, FormatId::fp16, acc));
          CAPTURE(c.gpu);
          CAPTURE(int(policy));
          CAPTURE(format_name(acc));
          CAPTURE(n);
          CHECK(r.tflops() <= c.peak_tflops * 1.001);
          const auto util = r.get("tensor_util_pct");
          REQUIRE(util.has_value());
          CHECK(*util <= 100.0 + 1e-9);
          CHECK(r.tflops() >= 0.5 * c.peak_tflops);  // and large GEMMs get at least half of it (T4: DRAM-bound)
        }
      }
    }
  }
}

}  // namespace tcsim::gpu
