// tcsim trace dump: the per-warp program of one GEMM, as text; bad input exits 2.
#include <doctest/doctest.h>

#include <regex>

#include "test_support.h"

using tcsim::test::run_tcsim;

TEST_CASE("tcsim trace dump prints the mapping and the prologue / loop / epilogue of a warp") {
  const std::string cfg = (tcsim::test::source_dir() / "configs/gpu/v100.yaml").string();
  const auto r = run_tcsim("trace dump -c " + cfg + " --gemm 4096x4096x4096 --formats f16.f16.f32");
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("# mapping: HMMA.884.F32.F32") != std::string::npos);
  CHECK(r.out.find("prologue:") != std::string::npos);
  CHECK(r.out.find("loop (") != std::string::npos);
  CHECK(r.out.find("LDG") != std::string::npos);
  CHECK(r.out.find("MMA x") != std::string::npos);
  CHECK(r.out.find("BAR.SYNC") != std::string::npos);
  CHECK(r.out.find("epilogue:") != std::string::npos);
  const auto t = run_tcsim("trace dump -c " + cfg + " --gemm 256x256x256 --timeline 10");
  REQUIRE(t.exit_code == 0);
  CHECK(t.out.find("# issue timeline of warp 0") != std::string::npos);
}

TEST_CASE("tcsim trace dump on H100: TMA from warp 0 only, wgmma with commit/wait") {
  const std::string cfg = (tcsim::test::source_dir() / "configs/gpu/h100.yaml").string();
  const auto w0 = run_tcsim("trace dump -c " + cfg + " --gemm 8192x8192x8192");
  REQUIRE(w0.exit_code == 0);
  CHECK(w0.out.find("TMA.LOAD") != std::string::npos);
  CHECK(w0.out.find("WGMMA.WAIT") != std::string::npos);
  const auto w1 = run_tcsim("trace dump -c " + cfg + " --gemm 8192x8192x8192 --warp 1");
  REQUIRE(w1.exit_code == 0);
  CHECK(w1.out.find("TMA.LOAD") == std::string::npos);
  // Each warp of a warpgroup stores its quarter of the warpgroup's fp32 tile ("warp WMxWN" in the
  // mapping line): WM x WN x 4 B / 4 (it stored all of it, four times the bytes).
  const auto k64 = run_tcsim("trace dump -c " + cfg + " --gemm 8192x8192x64");
  REQUIRE(k64.exit_code == 0);
  std::smatch tile, stg;
  REQUIRE(std::regex_search(k64.out, tile, std::regex("warp ([0-9]+)x([0-9]+)")));
  REQUIRE(std::regex_search(k64.out, stg, std::regex("STG ([0-9]+)B")));
  CHECK(std::stoi(stg[1]) == std::stoi(tile[1]) * std::stoi(tile[2]));
}

TEST_CASE("tcsim trace dump on H100: the tensor maps are fetched before the first TMA copy issues") {
  // CUTLASS's sm90 kernels prefetch their TMA descriptors (prefetch.tensormap) from the parameter
  // buffer the launch wrote: an L2 hit before any bulk copy can start.
  const std::string cfg = (tcsim::test::source_dir() / "configs/gpu/h100.yaml").string();
  const auto r = run_tcsim("trace dump -c " + cfg + " --gemm 256x256x256 --timeline 3");
  REQUIRE(r.exit_code == 0);
  std::smatch pre, first, ldg;
  REQUIRE(std::regex_search(r.out, pre, std::regex("prologue:\\n  LDG 128B -> (s[0-9]+) \\(warp 0 only\\)  ; tensor-map prefetch")));
  REQUIRE(std::regex_search(r.out, first, std::regex("TMA.LOAD [0-9]+B -> s0 <- (s[0-9]+)")));
  CHECK(first[1] == pre[1]);
  // In the timeline the first copy issues one L2 hit after the prefetch (~265 cycles on the H100).
  std::smatch tma;
  REQUIRE(std::regex_search(r.out, ldg, std::regex("\\n +([0-9]+)  prologue LDG")));
  REQUIRE(std::regex_search(r.out, tma, std::regex("\\n +([0-9]+)  prologue TMA.LOAD")));
  CHECK(std::stoi(tma[1]) - std::stoi(ldg[1]) >= 200);
  CHECK(std::stoi(tma[1]) - std::stoi(ldg[1]) <= 700);
  // sm_80 cp.async kernels have no tensor maps.
  const auto a100 = run_tcsim("trace dump -c " + (tcsim::test::source_dir() / "configs/gpu/a100.yaml").string() +
                              " --gemm 256x256x256");
  REQUIRE(a100.exit_code == 0);
  CHECK(a100.out.find("tensor-map") == std::string::npos);
}

TEST_CASE("tcsim trace dump --layout: an H100 tf32 GEMM with both operands M/N-major transposes one through shared memory") {
  // wgmma reads tf32 operands K-major only (gemm/mapping.h, wgmma_transpose): NT (both K-major)
  // has no transposition, TN (A M-major, B N-major) reads one tile to registers and writes it back.
  const std::string cfg = (tcsim::test::source_dir() / "configs/gpu/h100.yaml").string();
  const auto k = run_tcsim("trace dump -c " + cfg + " --gemm 4096x4096x4096 --formats tf32.tf32.f32 --layout NT");
  REQUIRE(k.exit_code == 0);
  CHECK(k.out.find("written K-major") == std::string::npos);
  const auto mn = run_tcsim("trace dump -c " + cfg + " --gemm 4096x4096x4096 --formats tf32.tf32.f32 --layout tn");
  REQUIRE(mn.exit_code == 0);
  CHECK(mn.out.find("tf32 tile written K-major") != std::string::npos);
  CHECK(mn.out.find("A fragments (LDS.32)") != std::string::npos);
  const auto bad = run_tcsim("trace dump -c " + cfg + " --gemm 64x64x64 --layout NX");
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("--layout") != std::string::npos);
}

TEST_CASE("tcsim trace dump: bad input is a clear error with exit code 2") {
  const std::string cfg = (tcsim::test::source_dir() / "configs/gpu/v100.yaml").string();
  auto r = run_tcsim("trace dump -c " + cfg + " --gemm 0x16x16");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("--gemm") != std::string::npos);
  r = run_tcsim("trace dump -c " + cfg + " --gemm 64x64x64 --formats f16.f16.f99");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("--formats") != std::string::npos);
  r = run_tcsim("trace dump -c " + cfg + " --gemm 4096x4096x4096 --warp 99");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("--warp") != std::string::npos);
  r = run_tcsim("trace dump -c " + cfg + " --gemm 64x64x64 --set sm.max_warps=1000");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("sm.max_warps") != std::string::npos);
}
