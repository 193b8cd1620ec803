// The microbenchmark figures of timing.md section 2.1, reproduced by running microbenchmark-like
// programs through the SM model (gpu/microbench.h) on the shipped configs.
#include <doctest/doctest.h>

#include <cmath>

#include "gpu/sm/microbench.h"
#include "gpu/gpu_test_util.h"

namespace tcsim::gpu {

TEST_CASE("V100: wmma 16x16x16 dependent-chain latency (TITAN V: 35.35 fp32 acc, 33.0 fp16 acc)") {
  const GpuConfig g = test::shipped("v100");
  CHECK(std::abs(wmma_chain_cycles(g, FormatId::fp16, FormatId::fp32) - 35.35) <= 1.0);
  CHECK(std::abs(wmma_chain_cycles(g, FormatId::fp16, FormatId::fp16) - 33.0) <= 1.0);
}

TEST_CASE("V100: tensor throughput (TITAN V: 478.7 and 509.4 FMA/clk/SM)") {
  const GpuConfig g = test::shipped("v100");
  CHECK(wmma_throughput_fma_per_clk(g, FormatId::fp16, FormatId::fp32) == doctest::Approx(478.7).epsilon(0.02));
  CHECK(wmma_throughput_fma_per_clk(g, FormatId::fp16, FormatId::fp16) == doctest::Approx(509.4).epsilon(0.02));
}

TEST_CASE("A100: wmma f16/bf16 = 2 x HMMA.16816, 16 cycles per wmma; 1024 FMA/clk/SM (312 TF)") {
  const GpuConfig g = test::shipped("a100");
  CHECK(std::abs(wmma_chain_cycles(g, FormatId::fp16, FormatId::fp32) - 16.0) <= 1.0);
  CHECK(std::abs(wmma_chain_cycles(g, FormatId::bf16, FormatId::fp32) - 16.0) <= 1.0);
  CHECK(wmma_throughput_fma_per_clk(g, FormatId::fp16, FormatId::fp32) == doctest::Approx(1024).epsilon(0.02));
  // 312 TF = 108 SMs x 1024 FMA x 2 x 1.41 GHz (timing.md 1)
  const double tf = wmma_throughput_fma_per_clk(g, FormatId::fp16, FormatId::fp32) * 2 * g.sm_count * g.clock_hz / 1e12;
  CHECK(tf == doctest::Approx(312).epsilon(0.02));
}

TEST_CASE("H100/H200: wgmma m64nNk16 wait ~75 cycles at N=64 and ~107 at N=128") {
  const GpuConfig g = test::shipped("h100");
  CHECK(std::abs(wgmma_wait_cycles(g, FormatId::fp16, FormatId::fp32, 64) - 75) <= 2);
  CHECK(std::abs(wgmma_wait_cycles(g, FormatId::fp16, FormatId::fp32, 128) - 107) <= 2);
}

TEST_CASE("T4: dense fp16 tensor rate 512 FMA/clk/SM (65 TF)") {
  const GpuConfig g = test::shipped("t4");
  CHECK(wmma_throughput_fma_per_clk(g, FormatId::fp16, FormatId::fp32) == doctest::Approx(512).epsilon(0.02));
}

}  // namespace tcsim::gpu
