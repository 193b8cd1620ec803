// The shipped GPU configs load; impossible configs are rejected with the offending key.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

#include "common/error.h"
#include "config/config.h"
#include "gpu/gpu_test_util.h"
#include "workload/host_op_class.h"

namespace tcsim::gpu {
namespace {

std::string v100_text() { return test::config_text("v100"); }
using test::load_error;
using test::replace;

}  // namespace

TEST_CASE("the four shipped GPU configs load and describe their GPUs") {
  const GpuConfig v = test::shipped("v100");
  CHECK(v.sm_count == 80);
  CHECK(v.clock_hz == doctest::Approx(1.53e9));
  CHECK(v.mma.size() == 2);
  CHECK(v.peak_tensor_fma_per_clk(FormatId::fp16, FormatId::fp32) == doctest::Approx(478.7).epsilon(0.001));
  const GpuConfig t = test::shipped("t4");
  CHECK(t.max_warps_per_sm == 32);
  const GpuConfig a = test::shipped("a100");
  CHECK(a.copy_engine == CopyEngine::cp_async);
  CHECK(a.find_mma(FormatId::tf32, FormatId::fp32) != nullptr);
  const GpuConfig h = test::shipped("h100");
  CHECK(h.copy_engine == CopyEngine::tma);
  CHECK(h.find_mma(FormatId::fp16, FormatId::fp32)->kind == MmaKind::wgmma);
  CHECK(h.peak_tensor_fma_per_clk(FormatId::fp16, FormatId::fp32) == doctest::Approx(2048));
  CHECK(h.peak_tensor_fma_per_clk(FormatId::e4m3, FormatId::fp32) == doctest::Approx(4096));
}

TEST_CASE("impossible configs are errors naming the key") {
  const std::string text = v100_text();
  CHECK(load_error(text) == "");
  const std::string warps = load_error(text, {"sm.max_warps=128"});
  CHECK(warps.find("sm.max_warps") != std::string::npos);
  CHECK(warps.find("more warps") != std::string::npos);
  const std::string smem = load_error(text, {"sm.max_shared_memory=1KiB", "sm.max_shared_memory_per_cta=1KiB"});
  CHECK(smem.find("too small for any tile") != std::string::npos);
  CHECK(load_error(text, {"sm.max_shared_memory_per_cta=200KiB"}).find("sm.max_shared_memory") != std::string::npos);
  // An MMA row faster than its declared rate.
  const std::string fast = load_error(replace(text, "issue_interval: 2.139cycles", "issue_interval: 1cycles"));
  CHECK(fast.find("mma") != std::string::npos);
  CHECK(fast.find("fma_per_clk") != std::string::npos);
  CHECK(load_error(replace(text, "shape: m16n16k16", "shape: m16n16")).find("shape") != std::string::npos);
  CHECK(load_error(replace(text, "ab: fp16\n", "ab: fp17\n")).find("fp17") != std::string::npos);
  CHECK(load_error(text, {"tensor.copy_engine=tma"}).find("sm_90") != std::string::npos);
  CHECK(load_error(text, {"dram.latency=100cycles"}).find("dram.latency") != std::string::npos);
  // More shared-memory bandwidth than the banks deliver (32 x 4 B per clock).
  const std::string banks = load_error(text, {"shared_memory.bandwidth=256B/clk"});
  CHECK(banks.find("shared_memory.bandwidth") != std::string::npos);
  CHECK(banks.find("bank_width") != std::string::npos);
  CHECK(load_error(text, {"shared_memory.bandwidth=256B/clk", "shared_memory.bank_width=8B"}) == "");
  // Out-of-range and wrong units are the loader's errors, with the key.
  CHECK(load_error(text, {"sm.count=0"}).find("sm.count") != std::string::npos);
  CHECK(load_error(text, {"dram.bandwidth=900MHz"}).find("dram.bandwidth") != std::string::npos);
}

TEST_CASE("library.pytorch_version is a release (major.minor), not a decimal number") {
  CHECK(test::shipped("v100").pytorch_version == 201);  // the default: NeuSight's PyTorch 2.1
  CHECK(test::shipped("h100").pytorch_version == 211);  // the measured H100/H200 steps' 2.11, after 2.4
  CHECK(test::shipped("h200").pytorch_version == 211);  // inherited from h100.yaml
  const std::string text = v100_text();
  CHECK(load_error(text, {"library.pytorch_version=2.4"}) == "");
  for (const char* bad : {"2", "2.", "two.1", "2.1.0", "0.4", "2.123"}) {
    const std::string e = load_error(text, {std::string("library.pytorch_version=") + bad});
    CHECK(e.find("library.pytorch_version") != std::string::npos);
    CHECK(e.find("major.minor") != std::string::npos);
  }
}

TEST_CASE("host.op_overhead.<class>: a class left at 0 costs host.kernel_overhead; a bad value names its key") {
  const GpuConfig v100 = test::shipped("v100");
  for (tcsim::HostOpClass c : tcsim::kHostOpClasses)
    CHECK(v100.host_op_overhead_s[std::size_t(c)] == doctest::Approx(v100.host_kernel_overhead_s));
  const std::string text = v100_text();
  CHECK(load_error(text, {"host.op_overhead.gemm=40us", "host.op_overhead.elementwise=15us"}) == "");
  const GpuConfig set = GpuConfig::from(config::Config::from_yaml_text(text, config_schema(), "v100.yaml", {"host.op_overhead.gemm=40us"}));
  CHECK(set.host_op_overhead_s[std::size_t(tcsim::HostOpClass::gemm)] == doctest::Approx(40e-6));
  CHECK(set.host_op_overhead_s[std::size_t(tcsim::HostOpClass::convolution)] == doctest::Approx(v100.host_kernel_overhead_s));
  for (const char* bad : {"host.op_overhead.gemm=-1us", "host.op_overhead.gemm=40", "host.op_overhead.gemm=2s"})
    CHECK_MESSAGE(load_error(text, {bad}).find("host.op_overhead.gemm") != std::string::npos, bad);
  CHECK(load_error(text, {"host.op_overhead.matmul=40us"}).find("host.op_overhead.matmul") != std::string::npos);
}

TEST_CASE("library.cublas_version: the default, an override, and out-of-range releases") {
  CHECK(test::shipped("t4").cublas_version == doctest::Approx(12.1));  // PyTorch 2.1's CUDA 12.1
  const std::string text = v100_text();
  CHECK(load_error(text, {"library.cublas_version=10.2"}) == "");
  for (const char* bad : {"8", "21", "ten", "10.2GHz"}) {
    CAPTURE(std::string(bad));
    CHECK(load_error(text, {std::string("library.cublas_version=") + bad}).find("library.cublas_version") !=
          std::string::npos);
  }
}

TEST_CASE("library.sgemm_tile is auto or a CTA tile MxN[-sliced]") {
  const GpuConfig v = test::shipped("v100");
  CHECK(v.sgemm_tile_m == 0);  // auto: the model's choice
  const std::string text = v100_text();
  CHECK(load_error(text, {"library.sgemm_tile=32x128"}) == "");
  CHECK(load_error(text, {"library.sgemm_tile=32x32-sliced"}) == "");
  for (const char* bad : {"", "32", "32x", "x32", "0x32", "32x32x8", "32x32sliced", "-32x32", "big"}) {
    CAPTURE(std::string(bad));
    const std::string e = load_error(text, {std::string("library.sgemm_tile=") + bad});
    CHECK(e.find("library.sgemm_tile") != std::string::npos);
  }
}

}  // namespace tcsim::gpu
