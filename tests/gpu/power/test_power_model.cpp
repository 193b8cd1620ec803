// The power model inside GpuModel: energy and power of real kernels on the shipped configs, the
// clock the board's limit allows, and the mechanism behind the PCIe/SXM gap of one chip.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "gpu/gpu_model.h"
#include "gpu/gpu_test_util.h"
#include "workload/kernel.h"

namespace tcsim::gpu {
namespace {

double metric(const KernelResult& r, const char* name) {
  const auto v = r.get(name);
  REQUIRE_MESSAGE(v.has_value(), name);
  return *v;
}

KernelResult run(const std::string& config, const Kernel& k, bool fixed = false) {
  GpuConfig g = test::shipped(config);
  if (fixed) g.power.mode = PowerConfig::Mode::fixed;
  return GpuModel(g).run(k);
}

}  // namespace

TEST_CASE("every kernel reports its clock, energy, power and energy per unit") {
  const Kernel k = make_gemm("g", 4096, 4096, 4096, FormatId::fp16, FormatId::fp32);
  const KernelResult r = run("v100", k);
  CHECK(metric(r, "clock_mhz") == doctest::Approx(1530));
  CHECK(metric(r, "power_bound") == 0);
  const double e = metric(r, "energy_j");
  CHECK(e > 0);
  CHECK(metric(r, "avg_power_w") == doctest::Approx(e / r.time_s));
  CHECK(metric(r, "busy_power_w") <= 300);
  double shares = 0;
  for (const char* unit : {"issue", "cuda_core", "sfu", "register_file", "tensor", "shared_memory", "l2", "dram",
                           "leakage", "idle"})
    shares += metric(r, (std::string("energy_") + unit + "_pct").c_str());
  CHECK(shares == doctest::Approx(100));
  // A tensor-core GEMM spends most of its dynamic energy in the tensor cores, an SGEMM in issuing
  // FFMA instructions (their fetch, decode and operand delivery, not the arithmetic).
  CHECK(metric(r, "energy_tensor_pct") > metric(r, "energy_issue_pct"));
  const KernelResult s = run("v100", make_gemm("s", 4096, 4096, 4096, FormatId::fp32, FormatId::fp32));
  CHECK(metric(s, "energy_issue_pct") > 5 * metric(s, "energy_cuda_core_pct"));
  CHECK(metric(s, "tensor_fma_ops") == 0);
  CHECK(metric(s, "ffma_ops") >= 4096.0 * 4096 * 4096);
  // Mixed precision saves energy, not only time: the same GEMM in fp16 costs a fraction.
  CHECK(metric(r, "energy_j") < 0.3 * metric(s, "energy_j"));
}

TEST_CASE("one chip on two boards: the 250 W PCIe A100 runs a long SGEMM below boost, the 400 W SXM does not") {
  // The clock NeuSight's long A100 PCIe SGEMMs imply: the rows >= 10 ms of plain cuBLAS kernels that
  // split no K, each run on its listed kernel, are right at the fixed 1410 MHz but for 4-6% (the
  // calibration of the A100's instruction energy, configs/gpu/a100.yaml; the governor held them near
  // 1245 MHz with 960 pJ, 9% too slow).
  const Kernel k = make_gemm("sgemm", 8192, 8192, 8192, FormatId::fp32, FormatId::fp32);
  const KernelResult pcie = run("a100_pcie_40gb", k), pcie_fixed = run("a100_pcie_40gb", k, true);
  const KernelResult sxm = run("a100", k);
  CHECK(metric(pcie, "power_bound") == 1);
  CHECK(metric(pcie, "clock_mhz") >= 1320);
  CHECK(metric(pcie, "clock_mhz") <= 1380);
  CHECK(metric(pcie, "busy_power_w") <= 250);
  CHECK(metric(pcie_fixed, "busy_power_w") > 250);  // what boost would draw
  CHECK(metric(pcie_fixed, "clock_mhz") == 1410);
  CHECK(pcie.time_s > 1.03 * pcie_fixed.time_s);
  CHECK(metric(sxm, "clock_mhz") >= 1380);
  CHECK(sxm.time_s < pcie.time_s);
  // The note says why.
  bool noted = false;
  for (const auto& n : pcie.notes) noted |= n.find("power-limited") != std::string::npos;
  CHECK(noted);
  // A lower clock costs less energy per FMA (V^2), so the PCIe board's run takes longer but less energy.
  CHECK(metric(pcie, "energy_j") < metric(pcie_fixed, "energy_j"));
}

TEST_CASE("the H200's measured SGEMM at its 700 W cap (held out: nothing in the power model was fitted)") {
  // validation/measured/H200/clocks_during.csv, 02:11:08.26-11.26: gemm_bench's 16384^3 FP32 SGEMM
  // (20 launches of 175 ms) drew 686-704 W with the SW power cap active, the SM clock at 1845-1965
  // MHz (mean of the 16 samples 1896 MHz at 698 W). The config's `clock` is the spec's 1830 MHz;
  // the board boosts to 1980 (ubench under load: 1979.6), the ceiling the governor is given here.
  GpuConfig g = test::shipped("h200");
  g.clock_hz = 1980e6;
  const KernelResult r = GpuModel(g).run(make_gemm("sgemm", 16384, 16384, 16384, FormatId::fp32, FormatId::fp32));
  CHECK(metric(r, "power_bound") == 1);
  CHECK(metric(r, "clock_mhz") >= 1845);
  CHECK(metric(r, "clock_mhz") <= 1965);
  CHECK(metric(r, "busy_power_w") == doctest::Approx(698).epsilon(0.02));
}

TEST_CASE("a DRAM-bound kernel is not slowed by a lower clock as much as a compute-bound one") {
  // A skinny GEMM streams its operand from DRAM; the governor re-runs the timing at the lower clock.
  const Kernel skinny = make_gemm("gemv", 8, 16384, 16384, FormatId::fp16, FormatId::fp32);
  GpuConfig g = test::shipped("t4");
  const KernelResult boost = GpuModel(g).run(skinny);
  g.clock_hz = 1000e6;
  g.power.mode = PowerConfig::Mode::fixed;
  const KernelResult slow = GpuModel(g).run(skinny);
  CHECK(slow.time_s < boost.time_s * 1590.0 / 1000.0 * 0.9);
}

TEST_CASE("the power model is deterministic") {
  const Kernel k = make_gemm("sgemm", 6000, 5000, 3000, FormatId::fp32, FormatId::fp32);
  const KernelResult a = run("t4", k), b = run("t4", k);
  CHECK(a.time_s == b.time_s);
  CHECK(metric(a, "energy_j") == metric(b, "energy_j"));
  CHECK(metric(a, "clock_mhz") == metric(b, "clock_mhz"));
}

}  // namespace tcsim::gpu
