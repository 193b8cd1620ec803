// End-to-end `tcsim run` on the shipped V100 config (GPU backend, sim/cli/run/run_gpu.cpp).
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include "test_support.h"

namespace fs = std::filesystem;
using tcsim::test::run_tcsim;

namespace {
std::string v100() { return (tcsim::test::source_dir() / "configs/gpu/v100.yaml").string(); }
std::string trace(const char* name) { return (tcsim::test::source_dir() / "traces/gemm" / name).string(); }
bool have_v100() {
  if (fs::exists(v100())) return true;
  MESSAGE("configs/gpu/v100.yaml not found: skipping");
  return false;
}
fs::path temp_dir(const std::string& tag) { return tcsim::test::temp_dir("run_gpu_" + tag); }
using tcsim::test::slurp;
int count_lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}
const std::string kHeader = "name,m,n,k,batch,a_format,b_format,c_format,d_format,layout,count\n";
}  // namespace

TEST_CASE("tcsim run (gpu): a trace prints one row per GEMM and a summary on stderr") {
  if (!have_v100()) return;
  auto r = run_tcsim("run -c '" + v100() + "' '" + trace("transformer_layer.csv") + "'");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  for (const char* name : {"qkv_projection", "attention_scores", "attention_context", "ffn_down"})
    CHECK(r.out.find(name) != std::string::npos);
  CHECK(r.out.find("time_us") != std::string::npos);
  CHECK(r.out.find("tflops") != std::string::npos);
  CHECK(r.out.find("bound") != std::string::npos);
  CHECK(r.out.find("mapping") != std::string::npos);
  CHECK(count_lines(r.out) == 2 + 6);  // header, rule, 6 GEMMs
  CHECK(r.err.find("tcsim run: 6 kernels on ") != std::string::npos);
  CHECK(r.err.find("cycles/s") != std::string::npos);
}

TEST_CASE("tcsim run (gpu): csv output, determinism across threads, --set") {
  if (!have_v100()) return;
  const std::string base = "run -c '" + v100() + "' '" + trace("square.csv") + "' --format csv";
  auto one = run_tcsim(base + " -j 1");
  auto two = run_tcsim(base + " -j 3");
  REQUIRE_MESSAGE(one.exit_code == 0, one.err);
  REQUIRE(two.exit_code == 0);
  CHECK(one.out.starts_with("name,m,n,k,batch,formats,layout,count,cycles,time_us,tflops,bound,"));
  CHECK(count_lines(one.out) == 1 + 7);
  CHECK(one.out == two.out);  // bit for bit
  auto half = run_tcsim(base + " -j 1 --set sm.count=40");
  REQUIRE_MESSAGE(half.exit_code == 0, half.err);
  CHECK(half.out != one.out);
}

TEST_CASE("tcsim run (gpu): -o writes the result folder; --gemm and --formats") {
  if (!have_v100()) return;
  const fs::path d = temp_dir("out");
  auto r = run_tcsim("run -c '" + v100() + "' --gemm 4096x4096x4096 --gemm 512x512x64x16 --formats f16.f16.f32 -o '" +
                     (d / "o").string() + "'");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  for (const char* f : {"summary.csv", "summary.json", "results.h5", "config.resolved.yaml", "totals.csv"})
    CHECK_MESSAGE(fs::exists(d / "o" / f), f);
  const std::string csv = slurp(d / "o/summary.csv");
  CHECK(csv.find("gemm_4096x4096x4096,4096,4096,4096,1,fp16.fp16.fp32.fp32,NN,1,") != std::string::npos);
  CHECK(csv.find("gemm_512x512x64x16,512,512,64,16,") != std::string::npos);
  CHECK(slurp(d / "o/config.resolved.yaml").find("kind: gpu") != std::string::npos);
  CHECK(slurp(d / "o/summary.json").find("\"command_line\"") != std::string::npos);
  // No temporary files are left behind.
  for (const auto& e : fs::directory_iterator(d / "o")) CHECK(e.path().filename().string().find("tmp") == std::string::npos);
  fs::remove_all(d);
}

TEST_CASE("tcsim run (gpu): bad input exits 2 with file:line: field") {
  if (!have_v100()) return;
  const fs::path d = temp_dir("bad");
  auto missing = run_tcsim("run -c '" + v100() + "' /nonexistent/trace.csv");
  CHECK(missing.exit_code == 2);
  CHECK(missing.err == "tcsim: error: /nonexistent/trace.csv: file not found\n");

  std::ofstream(d / "zero.csv") << kHeader << "a,8,8,8,1,f16,f16,f32,f32,NN,1\nb,8,0,8,1,f16,f16,f32,f32,NN,1\n";
  auto zero = run_tcsim("run -c '" + v100() + "' '" + (d / "zero.csv").string() + "'");
  CHECK(zero.exit_code == 2);
  CHECK(zero.err.find((d / "zero.csv").string() + ":3: n: expected an integer in [1, 2147483648], got 0") !=
        std::string::npos);
  CHECK(zero.out.empty());

  std::ofstream(d / "fmt.csv") << kHeader << "a,8,8,8,1,f16,fp99,f32,f32,NN,1\n";
  auto fmt = run_tcsim("run -c '" + v100() + "' '" + (d / "fmt.csv").string() + "'");
  CHECK(fmt.exit_code == 2);
  CHECK(fmt.err.find(":2: b_format: unknown number format 'fp99'") != std::string::npos);

  auto gemm = run_tcsim("run -c '" + v100() + "' --gemm 4096x-1x8");
  CHECK(gemm.exit_code == 2);
  CHECK(gemm.err.starts_with("tcsim: error: --gemm: n: expected an integer"));
  auto formats = run_tcsim("run -c '" + v100() + "' --gemm 8x8x8 --formats f16.f16");
  CHECK(formats.exit_code == 2);
  CHECK(formats.err.starts_with("tcsim: error: --formats:"));
  auto nothing = run_tcsim("run -c '" + v100() + "'");
  CHECK(nothing.exit_code == 2);
  CHECK(nothing.err.find("nothing to simulate") != std::string::npos);
  auto topo = run_tcsim("run -c '" + v100() + "' --topology x.csv");
  CHECK(topo.exit_code == 2);
  CHECK(topo.err.starts_with("tcsim: error: --topology:"));
  fs::remove_all(d);
}

TEST_CASE("tcsim run (gpu): low-precision formats, --sparse 2:4, --warm-l2, and what an architecture lacks") {
  const std::string t4 = (tcsim::test::source_dir() / "configs/gpu/t4.yaml").string();
  const std::string a100 = (tcsim::test::source_dir() / "configs/gpu/a100.yaml").string();
  for (const char* f : {"s4.s4.s32", "b1.b1.s32", "s8.s8.s32"}) {
    auto r = run_tcsim("run -c '" + t4 + "' --gemm 1024x1024x1024 --formats " + f + " --format csv");
    CAPTURE(f);
    REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  }
  auto sparse = run_tcsim("run -c '" + a100 + "' --gemm 4096x4096x4096 --sparse 2:4 --format csv");
  REQUIRE_MESSAGE(sparse.exit_code == 0, sparse.err);
  CHECK(sparse.out.find("HMMA.SP.16832.F32") != std::string::npos);
  auto warm = run_tcsim("run -c '" + a100 + "' --gemm 1024x8x1024 --formats s8.s8.s32 --warm-l2 --format csv");
  REQUIRE_MESSAGE(warm.exit_code == 0, warm.err);
  CHECK(warm.out.find("back to back") != std::string::npos);
  auto no_fp8 = run_tcsim("run -c '" + t4 + "' --gemm 64x64x64 --formats e4m3.e4m3.f32");
  CHECK(no_fp8.exit_code == 2);
  CHECK(no_fp8.err.find("no tensor-core instruction of T4 takes e4m3") != std::string::npos);
  auto no_sp = run_tcsim("run -c '" + t4 + "' --gemm 64x64x64 --sparse 2:4");
  CHECK(no_sp.exit_code == 2);
  CHECK(no_sp.err.find("2:4 sparse A: no sparse tensor-core instruction") != std::string::npos);
  auto bad_sp = run_tcsim("run -c '" + a100 + "' --gemm 64x64x64 --sparse 1:4");
  CHECK(bad_sp.exit_code == 2);
  CHECK(bad_sp.err.starts_with("tcsim: error: --sparse: expected 2:4"));
}

TEST_CASE("tcsim run: clock and power columns, energy totals, and --clock fixed") {
  const std::string cfg = "'" + (tcsim::test::source_dir() / "configs/gpu/a100_pcie_40gb.yaml").string() + "'";
  const auto boost = tcsim::test::run_tcsim("run -c " + cfg + " --gemm 8192x8192x8192 --formats f32.f32.f32");
  REQUIRE_MESSAGE(boost.exit_code == 0, boost.err);
  CHECK(boost.out.find("clock_mhz") != std::string::npos);
  CHECK(boost.out.find("avg_power_w") != std::string::npos);
  CHECK(boost.err.find(" J at ") != std::string::npos);
  const auto fixed = tcsim::test::run_tcsim("run -c " + cfg + " --gemm 8192x8192x8192 --formats f32.f32.f32 --clock fixed");
  REQUIRE_MESSAGE(fixed.exit_code == 0, fixed.err);
  CHECK(fixed.out.find(" 1410 ") != std::string::npos);
  CHECK(boost.out.find(" 1410 ") == std::string::npos);
  // --clock on a systolic config: power.mode is not one of its keys.
  const std::string sys = "'" + (tcsim::test::source_dir() / "configs/systolic/tpu_v1.yaml").string() + "'";
  const auto bad = tcsim::test::run_tcsim("run -c " + sys + " --gemm 64x64x64 --clock fixed");
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("power.mode") != std::string::npos);
}
