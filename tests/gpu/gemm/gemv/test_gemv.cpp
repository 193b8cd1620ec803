// GEMMs with M or N of 1 run the library's matrix-vector kernel (sim/gpu/gemm/gemv/): the kernel
// choice against the tiled kernels of N = 8, 16 and large N, the time against the matrix's bytes
// at the DRAM bandwidth, the byte ratio of 8-bit formats, L2-resident matrices, small grids, and
// bad input.
#include <doctest/doctest.h>

#include <string>

#include "common/error.h"
#include "gpu/gemm/cublas_choice.h"
#include "gpu/gemm/gemv/gemv_launch.h"
#include "gpu/gpu_model.h"
#include "gpu/gpu_test_util.h"
#include "numerics/formats/format_id.h"
#include "test_support.h"

namespace tcsim::gpu {
namespace {

FormatId fmt(const char* name) { return *parse_format(name); }

Kernel gemm(std::int64_t m, std::int64_t n, std::int64_t k, const char* ab = "fp16", const char* acc = "fp32",
            Layout layout = Layout::NT) {
  Kernel kernel = make_gemm("g", m, n, k, fmt(ab), fmt(acc));
  kernel.layout = layout;  // nn.Linear: y = x W^T, both operands K-major
  return kernel;
}

GpuConfig fixed_clock(const char* name) {
  GpuConfig g = test::shipped(name);
  g.power.mode = PowerConfig::Mode::fixed;
  return g;
}

bool is_gemv(const KernelResult& r) { return r.mapping.find("gemv") != std::string::npos; }

// Kernel time without its launch overheads.
double kernel_s(const GpuConfig& g, const KernelResult& r) { return r.cycles / g.clock_hz; }

}  // namespace

TEST_CASE("M or N of 1 runs the GEMV kernel; N = 8, 16 and large N run tensor-core tiles") {
  for (const char* gpu : {"v100", "t4", "a100", "h100", "l4"}) {
    const GpuConfig g = fixed_clock(gpu);
    const GpuModel model(g);
    CAPTURE(gpu);
    // A decode step's projection, as PyTorch calls it: tokens x out_features x in_features.
    const KernelResult n1 = model.run(gemm(1, 4096, 4096));
    CAPTURE(n1.mapping);
    CHECK(is_gemv(n1));
    CHECK(n1.mapping.find("gemv2T") != std::string::npos);  // the weight's rows run along K
    CHECK(*n1.get("tensor_util_pct") == 0);
    CHECK(is_gemv(model.run(gemm(4096, 1, 4096))));          // N = 1: the matrix is A
    for (std::int64_t n : {8, 16, 4096}) {
      const KernelResult r = model.run(gemm(n, 4096, 4096));
      CAPTURE(n);
      CAPTURE(r.mapping);
      CHECK(!is_gemv(r));
      CHECK(*r.get("tensor_util_pct") > 0);
    }
  }
  // Not a GEMV: sub-byte operands (their MMAs), 2:4-sparse A (cuSPARSELt), and where neither side is 1.
  const GpuConfig a100 = fixed_clock("a100");
  CHECK(!cublas_gemv(a100, gemm(1, 4096, 4096, "s4", "s32")));
  Kernel sparse = gemm(4096, 1, 4096);
  sparse.sparse_a = true;
  CHECK(!cublas_gemv(a100, sparse));
  CHECK(!cublas_gemv(a100, gemm(2, 4096, 4096)));
}

TEST_CASE("a large GEMV streams its matrix: at least its bytes at the DRAM peak, within 1.05x of the achievable rate") {
  for (const char* gpu : {"v100", "t4", "a100", "a100_80gb", "h100", "l4", "l40s", "a10"}) {
    const GpuConfig g = fixed_clock(gpu);
    for (const char* f : {"fp16", "fp32", "s8"}) {
      if (std::string(f) == "s8" && std::string(gpu) == "v100") continue;  // no int8 MMA row: an InputError
      const Kernel k = gemm(1, 16384, 8192, f, std::string(f) == "s8" ? "s32" : "fp32");
      const KernelResult r = GpuModel(g).run(k);
      const double matrix = 16384.0 * 8192 * format_bits(fmt(f)) / 8;
      const double at_peak = matrix / g.dram_bytes_per_s;
      const double achievable = matrix / (g.dram_bytes_per_s * g.dram_efficiency);
      CAPTURE(gpu);
      CAPTURE(f);
      CAPTURE(r.bound);
      CHECK(kernel_s(g, r) >= at_peak);
      // The stated factor: the vector, the output, the CTAs' first trips and the tail.
      CHECK(kernel_s(g, r) <= 1.05 * achievable);
      CHECK(r.bound == "dram");
      CHECK(*r.get("dram_read_bytes") >= matrix);
    }
  }
}

TEST_CASE("memory-bound INT8 and FP8 GEMVs beat FP16 by their byte ratio") {
  struct Case {
    const char* gpu;
    const char* f8;
    const char* acc;
  };
  for (const Case c : {Case{"a100", "s8", "s32"}, Case{"t4", "s8", "s32"}, Case{"h100", "e4m3", "fp32"},
                       Case{"l4", "e4m3", "fp32"}, Case{"l40s", "s8", "s32"}}) {
    const GpuConfig g = fixed_clock(c.gpu);
    const GpuModel model(g);
    const KernelResult h = model.run(gemm(1, 16384, 8192, "fp16", "fp32"));
    const KernelResult q = model.run(gemm(1, 16384, 8192, c.f8, c.acc));
    CAPTURE(c.gpu);
    CAPTURE(c.f8);
    CHECK(is_gemv(q));
    CHECK(q.bound == "dram");
    // Half the matrix bytes; the vector and the output are a few KB of 128 MB.
    CHECK(kernel_s(g, h) / kernel_s(g, q) == doctest::Approx(2.0).epsilon(0.03));
  }
}

TEST_CASE("an L2-resident GEMV timed back to back is faster than a cold one; one too large for L2 is not") {
  for (const char* gpu : {"a100", "h100", "t4", "l4"}) {
    const GpuConfig g = fixed_clock(gpu);
    const GpuModel model(g);
    CAPTURE(gpu);
    // 1024 x 1024 fp16 (2 MiB) fits every L2 here.
    Kernel cold = gemm(1, 1024, 1024), warm = cold;
    warm.l2_warm = true;
    const KernelResult rc = model.run(cold), rw = model.run(warm);
    CHECK(is_gemv(rw));
    CHECK(*rw.get("dram_read_bytes") == 0);
    CHECK(*rc.get("dram_read_bytes") >= 1024.0 * 1024 * 2);
    CHECK(rw.time_s < rc.time_s);
    // 16384 x 8192 fp16 = 256 MiB stays cold.
    Kernel big = gemm(1, 16384, 8192);
    big.l2_warm = true;
    const KernelResult rb = model.run(big), rbc = model.run(gemm(1, 16384, 8192));
    CHECK(*rb.get("dram_read_bytes") >= 16384.0 * 8192 * 2);
    CHECK(rb.time_s == doctest::Approx(rbc.time_s));
  }
}

TEST_CASE("a GEMV on a grid too small to fill the GPU is bound by its CTAs' round trips") {
  const GpuConfig g = fixed_clock("a100_80gb");
  // Llama-3-8B's fused QKV at tensor parallelism 8: 768 rows, 48 CTAs of 16 rows for 108 SMs.
  const KernelResult r = GpuModel(g).run(gemm(1, 768, 4096));
  CAPTURE(r.mapping);
  CHECK(*r.get("ctas") == 48);
  CHECK(r.bound == "latency");
  const double streaming = 768.0 * 4096 * 2 / (g.dram_bytes_per_s * g.dram_efficiency);
  CHECK(kernel_s(g, r) > streaming);
}

TEST_CASE("a GEMV whose matrix runs along the output splits K over the grid and reduces in a second kernel") {
  const GpuConfig g = fixed_clock("a100");
  // N = 1 with A stored K x M (TN): each thread walks down K over 16 bytes of outputs.
  const KernelResult r = GpuModel(g).run(gemm(4096, 1, 4096, "fp16", "fp32", Layout::TN));
  CAPTURE(r.mapping);
  CHECK(r.mapping.find("gemv2N") != std::string::npos);
  CHECK(r.mapping.find("splitKreduce") != std::string::npos);
  CHECK(*r.get("launch_overhead_us") == doctest::Approx(2 * g.launch_overhead_s * 1e6));
  // Its DRAM-bound time is the matrix's at the achievable rate, plus the partial sums and their reduction.
  const double achievable = 4096.0 * 4096 * 2 / (g.dram_bytes_per_s * g.dram_efficiency);
  CHECK(kernel_s(g, r) >= achievable);
  CHECK(kernel_s(g, r) <= 1.5 * achievable);
}

TEST_CASE("sm_90: 16-bit matrix-vector products run one kernel whatever the layout (cuBLAS's nvjet)") {
  // validation/measured/H100/op_profile: every 16-bit M = 1 call ran nvjet_sm90_hsh_*x8_*, the
  // N-major and K-major calls of a shape in the same time (BERT-base 1 x 768 x 768: 3.14 us both).
  const GpuConfig g = fixed_clock("h100");
  const KernelResult nn = GpuModel(g).run(gemm(1, 768, 768, "fp16", "fp32", Layout::NN));
  const KernelResult nt = GpuModel(g).run(gemm(1, 768, 768, "fp16", "fp32", Layout::NT));
  CAPTURE(nn.mapping);
  CHECK(nn.mapping.find("splitKreduce") == std::string::npos);
  CHECK(*nn.get("launch_overhead_us") == doctest::Approx(g.launch_overhead_s * 1e6));
  CHECK(nn.time_s == doctest::Approx(nt.time_s));
  CHECK(nn.time_s < 5e-6);  // measured 3.14 us (the gemv2N + reduce pair gave 9.3)
  // TF32 and FP32 keep the gemv2N path there (the measured TF32 calls ran other kernels); A100 too.
  CHECK(GpuModel(g).run(gemm(1, 768, 768, "fp32", "fp32", Layout::NN)).mapping.find("gemv2N") != std::string::npos);
  CHECK(GpuModel(fixed_clock("a100")).run(gemm(1, 768, 768, "fp16", "fp32", Layout::NN)).mapping.find("gemv2N") !=
        std::string::npos);
}

TEST_CASE("sm_90: cuBLASLt splits a long-K GEMV over few tiles and reduces the partials in a second kernel") {
  // The traced split rule (gemv_launch.cpp): K > 2560 and ceil(rows / 64) <= SMs / 2.
  const GpuConfig g = fixed_clock("h200");
  CHECK(nvjet_gemv_split_k(g, 4096, 4096) >= 2);    // Llama-2-7B o_proj: _splitK_ + splitKreduce
  CHECK(nvjet_gemv_split_k(g, 4096, 11008) >= 2);   // down_proj
  CHECK(nvjet_gemv_split_k(g, 3072, 4096) >= 2);    // QKV at TP 4
  CHECK(nvjet_gemv_split_k(g, 4096, 2048) == 1);    // o_proj at TP 2: K too short
  CHECK(nvjet_gemv_split_k(g, 2560, 2560) == 1);    // phi-2's o_proj
  CHECK(nvjet_gemv_split_k(g, 6144, 4096) == 1);    // 96 tiles: the SMs are busy without a split
  CHECK(nvjet_gemv_split_k(g, 11008, 4096) == 1);   // up_proj
  // Llama-2-7B's o_proj at one token: two launches (measured on the H200: 10.5 + 1.6 us), the
  // split kernel's CTAs each over a K chunk; its time stays within the matrix's bytes at 0.8-1.05x
  // the achievable DRAM rate plus the reduce.
  const KernelResult split = GpuModel(g).run(gemm(1, 4096, 4096));
  CAPTURE(split.mapping);
  CHECK(split.mapping.find("nvjet") != std::string::npos);
  CHECK(split.mapping.find("splitKreduce") != std::string::npos);
  CHECK(*split.get("launch_overhead_us") == doctest::Approx(2 * g.launch_overhead_s * 1e6));
  const double achievable = 4096.0 * 4096 * 2 / (g.dram_bytes_per_s * g.dram_efficiency);
  CHECK(kernel_s(g, split) >= 0.95 * achievable);
  CHECK(kernel_s(g, split) <= 1.25 * achievable);
  // A split-free one of the same kind: one launch.
  const KernelResult whole = GpuModel(g).run(gemm(1, 11008, 4096));
  CHECK(whole.mapping.find("splitKreduce") == std::string::npos);
  CHECK(*whole.get("launch_overhead_us") == doctest::Approx(g.launch_overhead_s * 1e6));
  // The split shortens the small grid's chain of loads: Llama-2-7B's QKV at TP 8 (1536 x 4096,
  // measured 5.6 + 1.6 us) is not bound by 96 CTAs each walking all of K (with the reduce added to
  // that chain it took 9.5 us).
  const KernelResult qkv8 = GpuModel(g).run(gemm(1, 1536, 4096));
  CHECK(qkv8.mapping.find("K split") != std::string::npos);
  CHECK(qkv8.time_s == doctest::Approx(7.2e-6).epsilon(0.2));
}

TEST_CASE("bad GEMV input stays an InputError, exit code 2") {
  const GpuModel a100(fixed_clock("a100"));
  CHECK_THROWS_AS(a100.run(gemm(1, 4096, 4096, "e4m3", "fp32")), InputError);  // no FP8 before sm_89
  CHECK_THROWS_AS(a100.run(gemm(1, 0, 4096)), InputError);
  const auto cfg = (tcsim::test::source_dir() / "configs" / "gpu" / "a100.yaml").string();
  CHECK(tcsim::test::run_tcsim("run -c " + cfg + " --gemm 1x0x4096").exit_code == 2);
  CHECK(tcsim::test::run_tcsim("run -c " + cfg + " --gemm 1x4096x4096 --formats e4m3.e4m3.f32").exit_code == 2);
  const auto ok = tcsim::test::run_tcsim("run -c " + cfg + " --gemm 1x4096x4096");
  CHECK(ok.exit_code == 0);
  CHECK(ok.out.find("gemv") != std::string::npos);
  // A GEMV has no tile program: `trace dump` says so instead of showing the padded tile's.
  const auto dump = tcsim::test::run_tcsim("trace dump -c " + cfg + " --gemm 1x4096x4096");
  CHECK(dump.exit_code == 2);
  CHECK(dump.err.find("matrix-vector") != std::string::npos);
}

}  // namespace tcsim::gpu
