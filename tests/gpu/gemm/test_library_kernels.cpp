// Which library kernels the GPU model runs (cuBLAS's batched SGEMM choice), the CUTLASS main-loop
// order of cp.async kernels, and a steady-state extrapolation that cannot beat the FFMA pipe.
#include <doctest/doctest.h>

#include <string>

#include "config/config.h"
#include "gpu/gpu_model.h"
#include "gpu/kernel_program.h"
#include "gpu/gpu_test_util.h"

namespace tcsim::gpu {
namespace {

Kernel sgemm(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t batch) {
  Kernel g;
  g.kind = Kernel::Kind::gemm;
  g.name = "sgemm";
  g.m = m, g.n = n, g.k = k, g.batch = batch;
  g.a_format = g.b_format = g.c_format = g.d_format = FormatId::fp32;
  return g;
}

GpuConfig with(const std::string& name, const std::vector<std::string>& sets) {
  const auto path = tcsim::test::source_dir() / "configs" / "gpu" / (name + ".yaml");
  return GpuConfig::from(config::Config::load(path, config_schema(), sets));
}

}  // namespace

TEST_CASE("batched SGEMM runs cuBLAS's 128x128 kernel on sm_80, whatever the shape") {
  const GpuConfig a100 = test::shipped("a100_pcie_40gb");
  // A batch of 472 GEMMs with N = 14: the 128x128 tile is mostly padding, as on the hardware
  // (NeuSight: ampere_sgemm_128x128_nn), where the fastest tile of the architecture would be 128x32.
  const KernelProgram batched = kernel_program(a100, sgemm(510, 14, 439, 472));
  CHECK(batched.chosen.mapping.bm == 128);
  CHECK(batched.chosen.mapping.bn == 128);
  CHECK(batched.chosen.mapping.split_k == 1);
  // A single GEMM of the same shape may take any tile.
  const KernelProgram single = kernel_program(a100, sgemm(510, 14, 439, 1));
  CHECK(single.chosen.mapping.bn < 128);
  // Volta's batched SGEMM uses the 64x64, 128x32 and 32x128 kernels only.
  const KernelProgram volta = kernel_program(test::shipped("v100_pcie"), sgemm(2048, 2048, 512, 16));
  CHECK(volta.chosen.mapping.bm * volta.chosen.mapping.bn == 4096);
}

TEST_CASE("rounds of CTAs overlap: a small-K batched SGEMM streams its output at the SM's bandwidth share") {
  const GpuConfig a100 = test::shipped("a100_pcie_40gb");
  // 52 GEMMs of 501 x 966 x 2 (NeuSight bmm.csv): 1664 CTAs of 128x128, 16 per SM in 8 rounds of 2.
  // Each CTA does almost no math and stores a 64 KiB fp32 tile, so the kernel is its stores.
  const KernelProgram kp = kernel_program(a100, sgemm(501, 966, 2, 52));
  const Estimate& e = kp.chosen;
  REQUIRE(e.ctas_per_sm == 2);
  CHECK(e.overlap_cycles > 0);
  // Every round's loads hide under the previous round's stores: the 16 tiles' stores at the SM's
  // share of the bandwidth, plus at most one round run alone.
  const double stores = 16.0 * 128 * 128 * 4 / e.env.global_bytes_per_clk;
  CHECK(e.cycles < stores + e.full.cycles);
  CHECK(e.cycles > stores);
}

TEST_CASE("cp.async main loops sync before the last k-step and prefetch the next tile's first fragment") {
  const KernelProgram kp = kernel_program(test::shipped("a100"), sgemm(4096, 4096, 4096, 1));
  REQUIRE(kp.chosen.mapping.copy == CopyEngine::cp_async);
  const auto& body = kp.program.body;
  std::size_t bar = body.size(), last_math = 0, wrap_lds = body.size();
  for (std::size_t i = 0; i < body.size(); ++i) {
    if (body[i].op == Op::bar) bar = i;
    if (body[i].op == Op::ffma) last_math = i;
    if (body[i].op == Op::lds && body[i].distance == 1) wrap_lds = i;
  }
  CHECK(bar < wrap_lds);
  CHECK(wrap_lds < last_math);  // the next tile's k-step 0 loads under the last k-step's math
}

TEST_CASE("no SIMT GEMM beats the FFMA pipe, however unsteady its schedule") {
  // With an efficiency of 1 the CUDA cores may be at most 100% busy. An 8-iteration window of an
  // unsteady schedule once extrapolated the A100's 128x64 sgemm to 107.8%.
  for (const char* name : {"a100", "a100_pcie_40gb", "h100", "v100"}) {
    const GpuModel model(with(name, {"calibration.ffma_efficiency=1", "power.mode=fixed"}));
    const KernelResult r = model.run(sgemm(4096, 4096, 4096, 1));
    INFO(std::string(name), r.mapping);
    CHECK(r.get("cuda_core_util_pct").value() <= 100.0);
    CHECK(r.get("cuda_core_util_pct").value() > 75.0);  // H100: shared-memory-bound LDS.128 fragments (README)
  }
}

}  // namespace tcsim::gpu
