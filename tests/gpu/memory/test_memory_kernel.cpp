// Memory-bound kernels (sim/gpu/memory_launch.h, memory_kernel.h): PyTorch's launch geometry, and
// the closed forms of the timing (DRAM rate, L2-resident rate, latency of a tiny kernel, row
// re-reads, far-partition copies in a partitioned L2).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <tuple>
#include <vector>

#include "common/error.h"
#include "common/text/strings.h"
#include "gpu/gpu_model.h"
#include "gpu/memory/memory_kernel.h"
#include "gpu/memory/memory_launch.h"
#include "gpu/memory/warp_queue.h"
#include "gpu/gpu_test_util.h"

using namespace tcsim;
using namespace tcsim::gpu;

namespace {

Kernel memory_kernel(const std::string& op, std::int64_t elements, std::int64_t row, int inputs, FormatId f = FormatId::fp32) {
  Kernel k;
  k.kind = Kernel::Kind::memory;
  k.name = op;
  k.a_format = f;
  k.memory = {op, elements, row};
  const std::uint64_t b = std::uint64_t(format_bits(f) / 8);
  k.bytes_read = b * std::uint64_t(elements) * std::uint64_t(inputs);
  k.bytes_written = b * std::uint64_t(elements);
  k.flops_nontensor = double(elements);
  return k;
}

}  // namespace

TEST_CASE("memory launch: grids of PyTorch's kernels as NeuSight's profiles recorded them") {
  const GpuConfig g = gpu::test::shipped("v100");
  // V100-PCIE-32GB rows of shared/data/neusight/kernels (Grid x, Block x*y):
  // add (127, 168): vectorized_elementwise_kernel<4>, grid 42, 128 threads.
  MemoryLaunch l = memory_launch(g, memory_kernel("add", 127 * 168, 0, 2));
  CHECK(l.ctas == 42);
  CHECK(l.threads_per_cta == 128);
  // softmax (127, 168): softmax_warp_forward, grid 32 of 32x4; (223, 114): two rows per warp, grid 28.
  l = memory_launch(g, memory_kernel("softmax", 127 * 168, 168, 1));
  CHECK(l.ctas == 32);
  CHECK(l.kernel.find("softmax_warp_forward") != std::string::npos);
  CHECK(memory_launch(g, memory_kernel("softmax", 223 * 114, 114, 1)).ctas == 28);
  // softmax (40, 1421): cunn_SoftMaxForward, a CTA of 256 threads per row.
  l = memory_launch(g, memory_kernel("softmax", 40 * 1421, 1421, 1));
  CHECK(l.ctas == 40);
  CHECK(l.threads_per_cta == 256);
  CHECK(l.reread_passes == 2);
  // ln (60, 272): vectorized_layer_norm_kernel, grid 60 of 32x4.
  l = memory_launch(g, memory_kernel("layer_norm", 60 * 272, 272, 1));
  CHECK(l.ctas == 60);
  CHECK(l.threads_per_cta == 128);
  CHECK(l.reread_passes == 1);
  // Sarathi's rms_norm_kernel: a CTA of min(R, 1024) threads per token.
  l = memory_launch(g, memory_kernel("rms_norm", 8 * 4096, 4096, 1, FormatId::fp16));
  CHECK(l.ctas == 8);
  CHECK(l.threads_per_cta == 1024);
  CHECK(l.dependent_loads == 4);
  CHECK(l.instructions_per_element == 9 + 18);  // its two SASS loops (scripts/sass_loops.py)
}

TEST_CASE("memory launch: a reduction's elements are its outputs, each a row of row_length inputs") {
  const GpuConfig g = gpu::test::shipped("v100");  // 1024 threads per CTA: reduce_kernel uses up to 512
  // A linear layer's bias gradient over 16384 tokens x 1024 features (rows longer than the outputs
  // are many): a CTA of 512 threads per output, 16384 / (512 x 4) = 8 serial loads.
  MemoryLaunch l = memory_launch(g, memory_kernel("reduce", 1024, 16384, 16));
  CHECK(l.ctas == 1024);
  CHECK(l.threads_per_cta == 512);
  CHECK(l.dependent_loads == 8);
  // Global average pooling of 256 x 2048 channels over 7 x 7: rows of 49 share CTAs, 16 rows of
  // 32 threads per 512-thread CTA.
  l = memory_launch(g, memory_kernel("reduce", 256 * 2048, 49, 49));
  CHECK(l.ctas == 256 * 2048 / 16);
  CHECK(l.threads_per_cta == 512);
  CHECK(l.dependent_loads == 1);
  // row_length 0: the whole tensor is one row.
  l = memory_launch(g, memory_kernel("reduce", 4096, 0, 1));
  CHECK(l.ctas == 1);
  // More inputs than one kernel operand may hold (2^40) is an input error, not an overflow.
  CHECK_THROWS_WITH_AS(memory_launch(g, memory_kernel("reduce", std::int64_t(1) << 20, std::int64_t(1) << 21, 1)),
                       doctest::Contains("for a reduction of 1048576 outputs"), InputError);
}

TEST_CASE("memory launch: impossible shapes are input errors") {
  const GpuConfig g = gpu::test::shipped("v100");
  CHECK_THROWS_AS(memory_launch(g, memory_kernel("add", 0, 0, 2)), InputError);
  CHECK_THROWS_AS(memory_launch(g, memory_kernel("softmax", 100, 200, 1)), InputError);
}

TEST_CASE("memory kernel: a large elementwise op runs at the DRAM rate") {
  const GpuConfig g = gpu::test::shipped("v100");
  const Kernel k = memory_kernel("add", std::int64_t(1) << 26, 0, 2);  // 768 MiB of traffic
  const KernelResult r = run_memory_kernel(g, k);
  const double bytes = double(k.bytes_read + k.bytes_written);
  CHECK(r.bound == "dram");
  CHECK(r.time_s == doctest::Approx(bytes / (g.dram_bytes_per_s * g.dram_efficiency) + g.launch_overhead_s).epsilon(1e-9));
  CHECK(r.get("dram_read_bytes").value() == double(k.bytes_read));
}

TEST_CASE("memory kernel: a footprint that fits in L2 runs at the L2 rate") {
  const GpuConfig g = gpu::test::shipped("v100");
  const Kernel k = memory_kernel("add", 400000, 0, 2);  // 4.8 MB < 6 MiB
  const KernelResult r = run_memory_kernel(g, k);
  const double bytes = double(k.bytes_read + k.bytes_written);
  CHECK(r.bound == "l2");
  CHECK(r.cycles == doctest::Approx(bytes / (g.l2_bytes_per_clk * g.l2_efficiency)).epsilon(1e-9));
  CHECK(r.get("dram_read_bytes").value() == 0);
  // The same bytes from DRAM would take longer.
  CHECK(r.cycles < bytes / (g.dram_bytes_per_clk() * g.dram_efficiency));
}

TEST_CASE("memory kernel: a tiny op costs its launch and one CTA's round trips") {
  const GpuConfig g = gpu::test::shipped("v100");
  const KernelResult r = run_memory_kernel(g, memory_kernel("relu", 1000, 0, 1));
  CHECK(r.bound == "latency");
  // 2 CTAs, one round: the load from L2 (warm), the store's trip to L2.
  CHECK(r.cycles == doctest::Approx(2 * g.l2_hit_latency()));
  CHECK(r.time_s == doctest::Approx(r.cycles / g.clock_hz + g.launch_overhead_s));
}

TEST_CASE("memory kernel: few CTAs leave the GPU latency-bound (Little's law)") {
  const GpuConfig g = gpu::test::shipped("v100");
  // 8 rows of 64K elements through softmax: 8 CTAs, each 512 threads looping over its row (re-read
  // from L2: 8 x 512 KB fit there); one CTA per SM cannot keep enough bytes in flight.
  const Kernel k = memory_kernel("softmax", 8 << 16, 1 << 16, 1);
  const KernelResult r = run_memory_kernel(g, k);
  CHECK(r.bound == "latency");
  const double bytes = double(k.bytes_read + k.bytes_written);
  CHECK(r.time_s > 2 * (bytes / (g.dram_bytes_per_s * g.dram_efficiency) + g.launch_overhead_s));
}

TEST_CASE("memory kernel: second passes over rows come from L1, else L2, else DRAM") {
  const GpuConfig g = gpu::test::shipped("v100");
  // 16 resident CTAs x 2 KB rows fit in L1: the re-read costs no DRAM bytes.
  Kernel small = memory_kernel("layer_norm", 20000 * 512, 512, 1);
  CHECK(run_memory_kernel(g, small).get("dram_read_bytes").value() == doctest::Approx(double(small.bytes_read)));
  // 16 x 16 KB rows exceed L1, and 80 SMs' worth exceed the 6 MB L2: read twice from DRAM.
  Kernel big = memory_kernel("layer_norm", 20000 * 4096, 4096, 1);
  CHECK(run_memory_kernel(g, big).get("dram_read_bytes").value() == doctest::Approx(2.0 * double(big.bytes_read)));
}

TEST_CASE("memory kernel: the last pass's writes turn the L2 over gradually, not at a cliff") {
  GpuConfig g = gpu::test::shipped("v100");
  // layer_norm over 20000 rows of 3072 floats (245 MB: not L2-resident): 12 KB rows, too many for L1
  // on every SM count below. Its one re-read pass is the pass that writes: a line a fraction x into
  // the row comes back after all resident CTAs' rows were read and x of their outputs written.
  const Kernel k = memory_kernel("layer_norm", 20000 * 3072, 3072, 1);
  const double row = 3072.0 * 4, l2 = double(g.l2_size);
  double previous = 0;
  int between = 0;
  for (int sms : {8, 12, 16, 20, 24, 32, 48}) {
    g.sm_count = sms;
    const KernelResult r = run_memory_kernel(g, k);
    const double rows = r.get("ctas_per_sm").value() * sms * row;  // read = written per resident CTA
    const double miss = std::clamp((2 * rows - l2) / rows, 0.0, 1.0);
    CAPTURE(sms);
    CHECK(r.get("dram_read_bytes").value() == doctest::Approx(double(k.bytes_read) * (1 + miss)));
    CHECK(miss >= previous);  // more SMs, more resident rows, more misses
    if (miss > 0 && miss < 1) ++between;
    previous = miss;
  }
  CHECK(between >= 2);  // no cliff: two SM counts miss only a part of the re-reads
  CHECK(previous == 1);  // once the rows read fill the L2, every re-read misses
}

TEST_CASE("memory kernel: rows with CTA-wide barriers alternate a bandwidth phase and an issue phase") {
  const GpuConfig g = gpu::test::shipped("v100");
  // cunn_SoftMaxForward over 20000 rows of 4096 floats: 512-thread CTAs, 4 resident per SM (64
  // warps), 250 CTAs per SM = 62 rounds of 4 and one of 2; 2 trips per pass; the 4 x 16 KB rows of a
  // round stay in L1 for the two re-reads; 655 MB in and out: DRAM.
  const Kernel k = memory_kernel("softmax", 20000 * 4096, 4096, 1);
  const KernelResult r = run_memory_kernel(g, k);
  const double cta_bytes = 4096.0 * 8;  // its row in, its row out (the write-back L2 evicts the
                                        // previous round's outputs during this round's reads)
  const double sm_bw = g.dram_bytes_per_clk() * g.dram_efficiency / g.sm_count;
  // One CTA's counted instructions, spread over its 6 trips; 16 warps = 4 per sub-core.
  const double issue = 4096 * (150.0 / 4) / g.peak_ffma_per_clk() / 6;
  auto trip = [&](int n, double latency) { return std::max(n * issue, latency + issue / 4); };
  // The first pass waits for the round's bytes; then two block reductions, the two L1 re-read
  // passes with their issue, and the store's trip to L2.
  auto round = [&](int n) {
    return std::max(n * cta_bytes / sm_bw, 2 * trip(n, g.dram_latency)) + 4 * trip(n, g.l1_latency) +
           2 * 12 * g.smem_latency + g.l2_hit_latency();
  };
  CHECK(r.bound == "phases");
  CHECK(r.cycles == doctest::Approx(62 * round(4) + round(2)));
  CHECK(r.get("phased_round_cycles").value() == doctest::Approx(round(4)));
  // The same bytes without barriers (an elementwise op) stream at the DRAM rate.
  const KernelResult flat = run_memory_kernel(g, memory_kernel("relu", 20000 * 4096, 0, 1));
  CHECK(flat.bound == "dram");
  CHECK(r.cycles > 1.3 * flat.cycles);
}

TEST_CASE("memory kernel: far-partition copies shrink what stays warm in a partitioned L2") {
  GpuConfig g = gpu::test::shipped("a100");
  REQUIRE(g.l2_partitions == 2);
  REQUIRE(g.l2_size == 40u << 20);
  // add: 2/3 of the footprint is read; reads take 1.5x the space: warm up to 30 MiB.
  const std::int64_t warm = (28ll << 20) / 12, cold = (32ll << 20) / 12;
  CHECK(run_memory_kernel(g, memory_kernel("add", warm, 0, 2)).bound == "l2");
  CHECK(run_memory_kernel(g, memory_kernel("add", cold, 0, 2)).bound == "dram");
  g.l2_partitions = 1;  // one partition: the whole 40 MiB
  CHECK(run_memory_kernel(g, memory_kernel("add", cold, 0, 2)).bound == "l2");
}

TEST_CASE("memory kernel: FP32 work and special-function results bound arithmetic-heavy ops") {
  const GpuConfig g = gpu::test::shipped("v100");
  Kernel k = memory_kernel("add", std::int64_t(1) << 24, 0, 2);
  k.flops_nontensor = 1e12;  // far more work than the bytes
  const KernelResult r = run_memory_kernel(g, k);
  CHECK(r.bound != "dram");  // the issue of the counted work, per trip or in all
  CHECK(r.cycles == doctest::Approx(1e12 / (g.peak_ffma_per_clk() * g.sm_count)));
  // tanh: an ex2 and a reciprocal per element at 16 MUFU results per clock per SM: the pipe's
  // throughput is a floor, and its work is also part of each CTA's trip, so the rounds' latency
  // adds to it (latency-bound) without exceeding the floor by more than a trip per round.
  Kernel e = memory_kernel("tanh", std::int64_t(1) << 24, 0, 1, FormatId::int8);
  e.bytes_read = e.bytes_written = 1;
  e.flops_nontensor = 0;
  const KernelResult re = run_memory_kernel(g, e);
  const double sfu_floor = 2.0 * double(1 << 24) / (g.sfu_per_clk() * g.sm_count);
  CHECK(re.cycles >= doctest::Approx(sfu_floor));
  CHECK(re.cycles < 1.3 * sfu_floor);
  // exp: one MUFU result per element, half tanh's special-function work.
  e.memory.op = "exp";
  CHECK(run_memory_kernel(g, e).cycles < 0.6 * re.cycles);
}

TEST_CASE("memory kernel: PyTorch's SiLU is bound by its special-function pipe, not by the L2") {
  // x / (1 + expf(-x)) in fp32: expf's MUFU.EX2, the IEEE division's MUFU.RCP and FCHK, 3 per
  // element on the 16-lane pipe; 23.75 instructions per element (Nsight Compute on the lent H200,
  // validation/measured/H200/ncu/ncu_llm_ops.csv.xz: XU 66.8% when issue is 66.2%, where GELU's one
  // MUFU gives 17.8 / 66.0).
  const GpuConfig g = gpu::test::shipped("h200");
  const MemoryLaunch l = memory_launch(g, memory_kernel("silu", 8388608, 0, 1, FormatId::fp16));
  CHECK(l.sfu_per_element == 3);
  CHECK(l.issue_instructions_per_element == doctest::Approx(23.75));
  // 8M fp16 elements back to back (L2-resident, 32 MiB): measured 9.06-9.54 us warm on the H200
  // (validation/measured/H200/op_profile/llm_ops_warm.json.xz); an add of the same bytes is L2-bound.
  const KernelResult silu = run_memory_kernel(g, memory_kernel("silu", 8388608, 0, 1, FormatId::fp16));
  const KernelResult add = run_memory_kernel(g, memory_kernel("relu", 8388608, 0, 1, FormatId::fp16));
  CHECK(silu.time_s > 1.4 * add.time_s);
  CHECK(silu.time_s == doctest::Approx(9.06e-6).epsilon(0.15));
}

TEST_CASE("memory launch: embedding takes index_select's small-index kernel up to 16 indices") {
  const GpuConfig g = gpu::test::shipped("a100_80gb");
  // 16 tokens of a 4096-wide table: indexSelectSmallIndex, 32 CTAs of 128 threads over the row,
  // the 16 indices in turn, each an index trip and a row trip (from DRAM).
  MemoryLaunch l = memory_launch(g, memory_kernel("embedding", 16 * 4096, 4096, 0, FormatId::fp16));
  CHECK(l.kernel.find("indexSelectSmallIndex") != std::string::npos);
  CHECK(l.ctas == 32);
  CHECK(l.threads_per_cta == 128);
  CHECK(l.dependent_loads == 2 * 16);
  CHECK(l.dram_trips == 16);
  // 17 tokens: indexSelectLargeIndex, min(ceil(N / 128), 8 x SMs) CTAs, one element per thread.
  l = memory_launch(g, memory_kernel("embedding", 17 * 4096, 4096, 0, FormatId::fp16));
  CHECK(l.kernel.find("indexSelectLargeIndex") != std::string::npos);
  CHECK(l.ctas == 17 * 4096 / 128);
  CHECK(l.instructions_per_element == 100);  // the SASS loop's hot path (scripts/sass_loops.py)
  CHECK(l.dependent_loads == 2);
  // 4096 tokens: the grid is capped at 8 CTAs per SM, a grid-stride loop of ceil(N / threads) steps.
  l = memory_launch(g, memory_kernel("embedding", 4096 * 4096, 4096, 0, FormatId::fp16));
  CHECK(l.ctas == 8 * g.sm_count);
  CHECK(l.dram_trips == std::ceil(4096.0 * 4096 / (8 * g.sm_count * 128)));
  // The small-index kernel's time grows with the indices (serial), the large one's does not.
  const double t8 = run_memory_kernel(g, memory_kernel("embedding", 8 * 4096, 4096, 0, FormatId::fp16)).cycles;
  const double t16 = run_memory_kernel(g, memory_kernel("embedding", 16 * 4096, 4096, 0, FormatId::fp16)).cycles;
  CHECK(t16 - g.l2_hit_latency() == doctest::Approx(2 * (t8 - g.l2_hit_latency())));
}

TEST_CASE("memory launch: PyTorch 2.8+ gathers more than 16 embedding rows with vectorized_gather_kernel<16>") {
  // h100.yaml: library.pytorch_version 2.11 (pytorch/pytorch#151490). 4096 rows of 4096 fp16 = 8 KiB
  // each: a CTA per index and 4 KiB chunk (2 per row) of 256 threads, one 16-byte vector per thread.
  const GpuConfig g = gpu::test::shipped("h100");
  REQUIRE(g.pytorch_version >= 208);
  MemoryLaunch l = memory_launch(g, memory_kernel("embedding", 4096 * 4096, 4096, 0, FormatId::fp16));
  CHECK(l.kernel.find("vectorized_gather_kernel<16>") != std::string::npos);
  CHECK(l.ctas == 4096 * 2);
  CHECK(l.threads_per_cta == 256);
  CHECK(l.dependent_loads == 2);  // the index, then the row's vector
  CHECK(l.instructions_per_element == 0);
  // A 2560-wide row (5 KiB): 2 chunks of 320 vectors over 256 threads, two vectors for some threads.
  l = memory_launch(g, memory_kernel("embedding", 64 * 2560, 2560, 0, FormatId::fp16));
  CHECK(l.ctas == 64 * 2);
  CHECK(l.dependent_loads == 2);
  // Up to 16 indices, rows that are not whole vectors, the backward and PyTorch 2.1: as before.
  CHECK(memory_launch(g, memory_kernel("embedding", 16 * 4096, 4096, 0, FormatId::fp16)).kernel.find("indexSelectSmallIndex") == 0);
  CHECK(memory_launch(g, memory_kernel("embedding", 64 * 4100, 4100, 0, FormatId::fp16)).kernel.find("indexSelectLargeIndex") == 0);
  CHECK(memory_launch(g, memory_kernel("embedding_backward", 4096 * 4096, 4096, 1, FormatId::fp16)).kernel.find("indexSelectLargeIndex") == 0);
  CHECK(memory_launch(gpu::test::shipped("a100_80gb"), memory_kernel("embedding", 4096 * 4096, 4096, 0, FormatId::fp16))
            .kernel.find("indexSelectLargeIndex") == 0);
  // Bandwidth-bound: 4096 x 4096 fp16 gathered (32 MiB in and out, cold rows) within 1.5x of the
  // DRAM time, where the index_select kernel's integer work made it 4x (the H100's llm_ops trace:
  // 24.5 us measured).
  const KernelResult r = run_memory_kernel(g, memory_kernel("embedding", 4096 * 4096, 4096, 1, FormatId::fp16));
  const double dram_s = 2.0 * 4096 * 4096 * 2 / (g.dram_bytes_per_s * g.dram_efficiency);
  CHECK(r.time_s < 1.5 * dram_s + g.launch_overhead_s);
  // 1024 rows (16 MiB in and out) fit in L2, but a gather's rows do not stay there (random rows of a
  // table of hundreds of MB) and neither do its writes: DRAM time, not L2 time (the H200's Vidur-style
  // layer: 5.7-5.9 us measured at 1024 tokens; 4.1 us predicted from L2).
  const KernelResult small = run_memory_kernel(g, memory_kernel("embedding", 1024 * 4096, 4096, 1, FormatId::fp16));
  const double small_dram_s = 2.0 * 1024 * 4096 * 2 / (g.dram_bytes_per_s * g.dram_efficiency);
  CHECK(small.time_s >= small_dram_s);
  CHECK(small.bound == "dram");
  CHECK(small.get("dram_read_bytes").value_or(0) == doctest::Approx(1024.0 * 4096 * 2));
}

TEST_CASE("warp queue: a trip's cycle between one warp's path and the scheduler's work (exact MVA)") {
  // One warp: its wait and its own issue, one after the other.
  CHECK(warp_trip_cycles(1, 10, 100) == doctest::Approx(110));
  // Two warps, service 1, delay 1, by hand: the first alone spends 1 of its 2 cycles queued or in
  // service (Q = 0.5); the second arrives to find it there half the time: R = 1.5, cycle 2.5,
  // above max(2 x 1, 1 + 1) = 2.
  CHECK(warp_trip_cycles(2, 1, 1) == doctest::Approx(2.5));
  // Many warps: the scheduler's work, warps x service; no work: the wait alone.
  CHECK(warp_trip_cycles(64, 10, 100) == doctest::Approx(640).epsilon(1e-6));
  CHECK(warp_trip_cycles(16, 0, 100) == 100);
  // Never below either bound, and longer as warps are added.
  double last = 0;
  for (int w = 1; w <= 32; ++w) {
    const double c = warp_trip_cycles(w, 7, 120);
    CHECK(c >= std::max(w * 7.0, 127.0) - 1e-9);
    CHECK(c <= w * 7.0 + 120 + 1e-9);
    CHECK(c >= last);
    last = c;
  }
}

TEST_CASE("memory kernel: counted instructions make the Sarathi loop kernels issue-bound") {
  const GpuConfig g = gpu::test::shipped("a100_80gb");
  // silu_and_mul over 11008-wide rows: 47 instructions per element (its SASS loop) on the 64 lanes per SM.
  const MemoryLaunch l = memory_launch(g, memory_kernel("silu_and_mul", 4096 * 11008, 11008, 2, FormatId::fp16));
  CHECK(l.instructions_per_element == 47);
  CHECK(l.threads_per_cta == 1024);
  Kernel k = memory_kernel("silu_and_mul", 4096 * 11008, 11008, 2, FormatId::fp16);
  k.flops_nontensor = 0;
  const KernelResult r = run_memory_kernel(g, k);
  // 4096 CTAs of 11 iterations, 2 resident per SM: their trips share the pipes, so each full round
  // takes 11 x 2 x (11008 x 47 / 64 / 11) cycles of issue, and the kernel at least the SM-level work.
  const double per_sm_work = std::ceil(4096.0 / g.sm_count) * 11008 * 47 / g.peak_ffma_per_clk();
  CHECK(r.cycles >= per_sm_work * 0.999);
  CHECK(r.cycles > 1.2 * double(k.bytes_read + k.bytes_written) / g.dram_bytes_per_clk());
  // One token: a single CTA, its 11 trips each the cycle of its 8 warps per sub-core between the
  // trip's wait and their share of the work on the scheduler (warp_queue.h): the wait is the latency
  // plus what a warp's dependent chain (sm.ffma_latency apart) adds to its own share. Longer than
  // the longer of the two, shorter than both in turn.
  Kernel one = memory_kernel("silu_and_mul", 11008, 11008, 2, FormatId::fp16);
  one.flops_nontensor = 0;
  const double issue = 11008 * 47 / g.peak_ffma_per_clk() / 11;
  const double mem = g.l2_hit_latency();  // 44 KB: warm in L2
  const double dependent = std::max(1.0, double(g.ffma_latency) / double(memory_launch(g, one).independent_chains));
  const double wait = mem + issue / 8 * (dependent - 1);
  const double trip = warp_trip_cycles(8, issue / 8, wait);
  CHECK(trip > std::max(issue, wait + issue / 8) * 1.05);
  CHECK(trip < issue + wait);
  // (Each trip's burst, one SM's 4 KB at the L2's rate, adds under a cycle to its wait.)
  CHECK(run_memory_kernel(g, one).cycles == doctest::Approx(11 * trip + mem).epsilon(0.002));
  // PyTorch's GELU (erf) bounds a large fp16 tensor by its instructions: per element 14 on the FP32
  // pipe and 11.5 on the integer/logic pipe, both 16 lanes per sub-core on the A100 and charged one
  // after the other (Nsight Compute's SASS count on the H200, memory_launch.cpp).
  Kernel gelu = memory_kernel("gelu", std::int64_t(4096) * 10240, 0, 1, FormatId::fp16);
  gelu.flops_nontensor = 0;
  const MemoryLaunch lg = memory_launch(g, gelu);
  CHECK(lg.instructions_per_element == 14);
  CHECK(lg.logic_instructions_per_element == 11.5);
  // 16 resident CTAs per round share the pipes, then the round's stores travel to L2 (lockstep
  // rounds): a little above the SM-level work, above the DRAM time.
  const KernelResult rg = run_memory_kernel(g, gelu);
  const double gelu_work = 4096.0 * 10240 * (14 + 11.5) / (g.peak_ffma_per_clk() * g.sm_count);
  CHECK(rg.bound != "dram");
  CHECK(rg.cycles >= gelu_work * 0.999);
  CHECK(rg.cycles <= gelu_work * 1.1);
  CHECK(rg.cycles > 1.1 * double(gelu.bytes_read + gelu.bytes_written) / g.dram_bytes_per_clk());
  // On sm_90 the FP32 pipe has 32 lanes, the logic pipe 16: 14/32 + 11.5/16 cycles per warp for
  // 29.6 instructions, 80% of the issue rate (Nsight Compute measured 72% on the H200: 54.8 us).
  const GpuConfig h = gpu::test::shipped("h200");
  const KernelResult rh = run_memory_kernel(h, gelu);
  const double h_work = 4096.0 * 10240 * (14.0 / h.peak_ffma_per_clk() + 11.5 / h.int32_per_clk()) / h.sm_count;
  CHECK(h_work > 4096.0 * 10240 * 29.625 / h.issue_lanes_per_clk() / h.sm_count * 1.2);
  CHECK(rh.cycles >= h_work * 0.999);
  CHECK(rh.time_s * 1e6 == doctest::Approx(54.8).epsilon(0.12));
}

TEST_CASE("memory launch: Sarathi's rotary embedding sizes its CTA by the query heads, one trip per loop iteration") {
  const GpuConfig g = gpu::test::shipped("a100_80gb");
  // Llama-2-7B at TP 8: 4 query and 4 key heads of 128 per token. The CTA has min(4 x 64, 512)
  // = 256 threads; the position load, then one iteration over the query pairs and one over the key
  // pairs: 3 dependent trips.
  Kernel k = memory_kernel("rope", 1024 * 1024, 1024, 1, FormatId::fp16);
  k.memory.rope_query = 512;
  MemoryLaunch l = memory_launch(g, k);
  CHECK(l.threads_per_cta == 256);
  CHECK(l.ctas == 1024);
  CHECK(l.dependent_loads == 3);
  CHECK(l.instructions_per_element == 64 / 2);  // 64 SASS instructions per pair (scripts/sass_loops.py)
  // and 63 per thread per row beyond the loops (Nsight Compute on the H200): 63 x 256 over the row's 1024.
  CHECK(l.issue_instructions_per_element == doctest::Approx(63.0 * 256 / 1024));
  // Llama-3-8B at TP 1: 32 query heads (2048 pairs: 512 threads, 4 iterations) and 8 key heads
  // (512 pairs: 1 iteration): 1 + 4 + 1 trips.
  k = memory_kernel("rope", 16 * 5120, 5120, 1, FormatId::fp16);
  k.memory.rope_query = 4096;
  l = memory_launch(g, k);
  CHECK(l.threads_per_cta == 512);
  CHECK(l.dependent_loads == 6);
  // Without the split (a network's q_rope or k_rope layer) the row is one tensor: 4096 elements,
  // 2048 pairs on 512 threads, the position and 4 iterations.
  l = memory_launch(g, memory_kernel("rope", 16 * 4096, 4096, 1, FormatId::fp16));
  CHECK(l.threads_per_cta == 512);
  CHECK(l.dependent_loads == 5);
  // A split at or past the row's end (rope_query >= row) leaves no key part: the same as one tensor.
  k = memory_kernel("rope", 16 * 4096, 4096, 1, FormatId::fp16);
  k.memory.rope_query = 4096;
  CHECK(memory_launch(g, k).dependent_loads == 5);
}

TEST_CASE("memory kernel: a scalar loop's trip waits for the SM's burst of reads (Sarathi's kernels, index_select)") {
  const GpuConfig g = gpu::test::shipped("h200");
  // The loops whose SASS issues one element's loads per iteration, and not PyTorch's vectorized kernels.
  CHECK(memory_launch(g, memory_kernel("rms_norm", 64 * 4096, 4096, 1, FormatId::fp16)).scalar_loop);
  CHECK(memory_launch(g, memory_kernel("silu_and_mul", 64 * 11008, 11008, 2, FormatId::fp16)).scalar_loop);
  CHECK(memory_launch(g, memory_kernel("rope", 64 * 4096, 4096, 1, FormatId::fp16)).scalar_loop);
  CHECK_FALSE(memory_launch(g, memory_kernel("layer_norm", 64 * 4096, 4096, 1, FormatId::fp16)).scalar_loop);
  CHECK_FALSE(memory_launch(g, memory_kernel("add", 64 * 4096, 0, 2, FormatId::fp16)).scalar_loop);
  // SiLU x up over 4096 x 11008 (Llama-2-7B, TP 1): 270 MB, from DRAM. Two CTAs of 1024 threads per
  // SM load 2 x 11008 x 2 B / 11 iterations each per trip, together: the trip lasts at least the
  // DRAM latency plus those bytes at the SM's share of the DRAM rate (without the burst the trip
  // was the round's instruction issue, 2 x 11008 x 47 / 128 / 11 cycles, shorter).
  Kernel k = memory_kernel("silu_and_mul", std::int64_t(4096) * 11008, 11008, 2, FormatId::fp16);
  k.flops_nontensor = 0;
  const KernelResult r = run_memory_kernel(g, k);
  const double share = g.dram_bytes_per_clk() * g.dram_efficiency / g.sm_count;
  const double burst = 2 * (2.0 * 11008 * 2 / 11) / share;
  const double issue_trip = 2 * 11008 * 47.0 / g.issue_lanes_per_clk() / 11;
  REQUIRE(r.get("cta_latency_cycles").has_value());
  CHECK(*r.get("cta_latency_cycles") >= 11 * (g.dram_latency + burst));
  CHECK(g.dram_latency + burst > issue_trip);
  // Held out: the lent H200 measured 126.3 us (validation/measured/H200/vidur_layer, the
  // profiler's kernel time); 86.8 us before the burst.
  MESSAGE("H200 SiLU x up 4096 x 11008: " << r.time_s * 1e6 << " us (126.3 measured)");
  CHECK(r.time_s * 1e6 == doctest::Approx(126.3).epsilon(0.15));
}

TEST_CASE("gpu model: host overhead and launch delay come from the config") {
  GpuConfig g = gpu::test::shipped("v100");
  const GpuModel m(g);
  CHECK(m.host_overhead_s() == doctest::Approx(32.5e-6));
  CHECK(m.host_launch_delay_s() == doctest::Approx(12.5e-6));
  CHECK(m.host_autograd_factor() == doctest::Approx(1.5));  // the schema's default, every shipped config
  g.host_autograd_factor = 2;
  CHECK(GpuModel(g).host_autograd_factor() == doctest::Approx(2));
  CHECK(m.run(memory_kernel("add", 1 << 20, 0, 2)).time_s ==
        doctest::Approx(run_memory_kernel(g, memory_kernel("add", 1 << 20, 0, 2)).time_s));
}

TEST_CASE("memory kernel: cuDNN's channels-first batch norm runs a CTA per channel, latency-bound with few channels") {
  const GpuConfig g = gpu::test::shipped("h100");
  // ResNet-50's stem batch norm at batch 128: 64 channels of 128 x 112 x 112 fp32 elements, both
  // passes counted in the bytes (lowering_memory.cpp): the grid the H100 trace shows is 64 CTAs.
  const std::int64_t n = std::int64_t(128) * 64 * 112 * 112, per_channel = n / 64;
  const Kernel fwd = memory_kernel("batch_norm_nchw", n, per_channel, 2);
  const Kernel bwd = memory_kernel("batch_norm_nchw_backward", n, per_channel, 4);
  const MemoryLaunch lf = memory_launch(g, fwd), lb = memory_launch(g, bwd);
  CHECK(lf.ctas == 64);
  CHECK(lf.threads_per_cta == 512);
  CHECK(lb.ctas == 64);
  CHECK(lf.dependent_loads == doctest::Approx(2 * std::ceil(double(per_channel) / 1536)));
  CHECK(lb.dependent_loads == doctest::Approx(2 * std::ceil(double(per_channel) / 512)));
  const KernelResult rf = run_memory_kernel(g, fwd), rb = run_memory_kernel(g, bwd);
  CHECK(rf.bound == "latency");
  CHECK(rb.bound == "latency");
  // Measured on the H100 (validation/measured/H100/profiles/resnet50_tf32_b128): 959.6 and 2411 us,
  // the calibration points of the elements per trip; within 20%.
  CHECK(rf.time_s == doctest::Approx(959.6e-6).epsilon(0.2));
  CHECK(rb.time_s == doctest::Approx(2411e-6).epsilon(0.2));
  // The same tensor through the element-parallel kernel (NHWC, or another framework) takes the DRAM
  // rate: more than twice as fast.
  const Kernel flat = memory_kernel("batch_norm", n, per_channel, 2);
  CHECK(run_memory_kernel(g, flat).time_s * 2 < rf.time_s);
  // With enough channels to fill the GPU the per-channel kernel is bandwidth-bound again.
  const Kernel wide = memory_kernel("batch_norm_nchw", n, n / 1024, 2);
  CHECK(memory_launch(g, wide).ctas == 1024);
  CHECK(run_memory_kernel(g, wide).time_s < rf.time_s / 2);
}

TEST_CASE("memory kernel: a row kernel's first round of CTAs waits for its bursts and its weights, later rounds overlap") {
  // PyTorch's layer norm over rows of 4096 fp16 on the H200, back to back (L2-resident): the SM's
  // first round of CTAs starts together, so each trip of its first pass waits for the latency plus
  // the round's bytes at the SM's share of the L2, and each trip of its second pass for gamma and
  // beta from L2. Later rounds are staggered: their trips cost the latency, the lockstep phases
  // bound them by bandwidth. llm_ops warm (validation/measured/H200/op_profile): 1024 rows 9.38-9.50
  // us, 256 rows 6.59-8.03 us.
  const GpuConfig g = gpu::test::shipped("h200");
  auto ln = [&](std::int64_t rows) {
    return run_memory_kernel(g, memory_kernel("layer_norm", rows * 4096, 4096, 1, FormatId::fp16));
  };
  const KernelResult one = ln(1024), two = ln(4 * 1024);
  CHECK(one.get("waves").value() == 1);
  CHECK(two.get("waves").value() > 1);
  CHECK(one.cycles > 1.1 * one.get("cta_latency_cycles").value());  // the first round's path, not a later one's
  CHECK(two.cycles - one.cycles < 3 * one.cycles);          // three later rounds cost less than three first ones
  CHECK(one.time_s == doctest::Approx(9.4e-6).epsilon(0.25));
}

TEST_CASE("memory launch: PyTorch's layer-norm weight gradients walk all rows in a few CTAs (GammaBetaBackward)") {
  const GpuConfig g = gpu::test::shipped("h100");
  // BERT-base at 16384 tokens (validation/measured/H100/profiles/bertbase_amp-fp16_b128): grid [24]
  // of 32 x 32 threads. Elements are the 768 outputs, each a column of 16384 rows; dY and X are read.
  Kernel k = memory_kernel("layer_norm_gamma_beta", 768, 16384, 2 * 16384);
  MemoryLaunch l = memory_launch(g, k);
  CHECK(l.ctas == 24);
  CHECK(l.threads_per_cta == 1024);
  CHECK(l.dependent_loads == 64);  // 256 rows per trip
  CHECK(l.block_reductions == 1);
  // Features not a multiple of 32: the 16 x 32 kernel; fewer than 128 rows: a thread per feature.
  l = memory_launch(g, memory_kernel("layer_norm_gamma_beta", 1000, 4096, 2 * 4096));
  CHECK(l.ctas == 63);
  CHECK(l.threads_per_cta == 512);
  l = memory_launch(g, memory_kernel("layer_norm_gamma_beta", 1024, 64, 2 * 64));
  CHECK(l.ctas == 4);
  CHECK(l.threads_per_cta == 256);
  CHECK(l.dependent_loads == 16);
  // The same bytes over fewer features (8 CTAs, 192 trips each) leave most SMs idle: latency-bound
  // and slower than the 24-CTA grid, which itself is no faster than its bytes at the DRAM rate.
  const KernelResult r24 = run_memory_kernel(g, k);
  const KernelResult r8 = run_memory_kernel(g, memory_kernel("layer_norm_gamma_beta", 256, 3 * 16384, 2 * 3 * 16384));
  CHECK(r8.bound == "latency");
  CHECK(r8.time_s > 1.5 * r24.time_s);
  CHECK(r24.time_s > double(k.bytes_read) / g.dram_bytes_per_s);
}

TEST_CASE("memory launch: layer norm's per-row Welford reductions and its input-gradient kernel (Nsight Compute counts)") {
  // validation/measured/H200/ncu: 519 warp instructions per warp of vectorized_layer_norm_kernel
  // at 768 features (4.6x the per-element count), 43.4 per element in the input gradient.
  const GpuConfig h200 = gpu::test::shipped("h200");
  const Kernel fwd = memory_kernel("layer_norm", 4096 * 768, 768, 1);
  const MemoryLaunch l = memory_launch(h200, fwd);
  CHECK(l.threads_per_cta == 128);
  CHECK(l.instructions_per_element + l.issue_instructions_per_element == doctest::Approx(519.0 / 6));
  const MemoryLaunch b = memory_launch(h200, memory_kernel("layer_norm_backward", 4096 * 768, 768, 2));
  CHECK(b.kernel.rfind("layer_norm_grad_input_kernel_vectorized", 0) == 0);
  CHECK(b.issue_instructions_per_element == doctest::Approx(43.4));
  // Held out: the H200 trace of the same BERT-base step (bertbase_amp-fp16_b32) times them at 13.0
  // and 10.7 us (medians of 25); the model was 7.2 us for the forward before the count.
  const double f_us = run_memory_kernel(h200, fwd).time_s * 1e6;
  const double b_us = run_memory_kernel(h200, memory_kernel("layer_norm_backward", 4096 * 768, 768, 2)).time_s * 1e6;
  MESSAGE("H200 layer norm at 4096 x 768: forward " << f_us << " us (13.0 measured), input gradient " << b_us
                                                    << " us (10.7)");
  CHECK(f_us == doctest::Approx(13.0).epsilon(0.2));
  CHECK(b_us == doctest::Approx(10.7).epsilon(0.2));
  // The per-row work is issue slots, not FP32 lanes: on V100 (64 lanes, 128 issue slots per clock)
  // it costs half what the FP32 rate would charge.
  const GpuConfig v100 = gpu::test::shipped("v100");
  CHECK(v100.issue_lanes_per_clk() == 2 * v100.peak_ffma_per_clk());
  CHECK(h200.issue_lanes_per_clk() == h200.peak_ffma_per_clk());
}

TEST_CASE("memory launch: PyTorch 2.11's fp32 layer norm holds 12 CTAs per SM, its registers' limit") {
  // 39 registers per thread (1280 per warp as allocated, 5120 per 128-thread CTA): 12 CTAs of 65536 registers,
  // not the 16 that warps and CTA slots allow. The fp16 form (32 registers) and PyTorch 2.1's kernel
  // (count not known) are not limited.
  const GpuConfig h200 = gpu::test::shipped("h200");
  const Kernel fwd = memory_kernel("layer_norm", 8192 * 768, 768, 1);
  CHECK(memory_launch(h200, fwd).max_resident == 12);
  CHECK(memory_launch(h200, memory_kernel("layer_norm", 8192 * 768, 768, 1, FormatId::fp16)).max_resident == 0);
  CHECK(memory_launch(h200, memory_kernel("layer_norm_backward", 8192 * 768, 768, 2)).max_resident == 0);
  CHECK(memory_launch(gpu::test::shipped("a100"), fwd).max_resident == 0);
  const KernelResult r = run_memory_kernel(h200, fwd);
  CHECK(r.get("ctas_per_sm").value() == 12);
  CHECK(r.get("waves").value() == 6);  // 8192 rows over 132 x 12 slots (4 rounds at 16)
  // Six rounds of 12 take longer than four of 16. Held out: in the H200 BERT-base TF32 b64 and
  // GPT-2 TF32 b8 traces this kernel (8192 rows of 768 fp32) takes 25.6 and 25.8 us (means of 25
  // calls), modelled there 23.0 us at 16 CTAs per SM and 25.0 at 12 (scripts/accuracy's traces).
  GpuConfig unlimited = h200;
  unlimited.pytorch_version = 201;  // PyTorch 2.1: its count is not known, so not limited
  const KernelResult r16 = run_memory_kernel(unlimited, fwd);
  CHECK(r16.get("ctas_per_sm").value() == 16);
  MESSAGE("H200 fp32 layer norm 8192 x 768 alone: " << r.time_s * 1e6 << " us at 12 CTAs per SM, " << r16.time_s * 1e6
                                                   << " at 16");
  CHECK(r.time_s > 1.05 * r16.time_s);
}

TEST_CASE("memory launch: PyTorch 2.7+'s register softmax, fp16 layer norm and fused RMS norm (Nsight Compute counts)") {
  // validation/measured/H200/ncu/ncu_llm_ops*.csv.xz (PyTorch 2.11, fp16): warp instructions issued
  // per row of 2560, 4096 and 8192; the model's per-element and per-row counts are a line through them.
  const GpuConfig h100 = gpu::test::shipped("h100");
  struct Row {
    const char* op;
    std::int64_t r;
    double per_row;
  };
  for (const Row& c : {Row{"softmax", 2560, 7501}, Row{"softmax", 4096, 10173}, Row{"softmax", 8192, 19805},
                       Row{"layer_norm", 2560, 3451}, Row{"layer_norm", 4096, 4831}, Row{"layer_norm", 8192, 8511},
                       Row{"layer_norm_rms", 2560, 1358}, Row{"layer_norm_rms", 4096, 1874},
                       Row{"layer_norm_rms", 8192, 3250}}) {
    CAPTURE(c.op);
    CAPTURE(c.r);
    const MemoryLaunch l = memory_launch(h100, memory_kernel(c.op, 64 * c.r, c.r, 1, FormatId::fp16));
    const double per_row = (l.instructions_per_element + l.issue_instructions_per_element) * double(c.r) / 32;
    CHECK(per_row == doctest::Approx(c.per_row).epsilon(0.05));
    if (std::string(c.op) == "softmax") {
      CHECK(l.kernel.rfind("cunn_SoftMaxForwardReg", 0) == 0);
      CHECK(l.max_resident == (c.r == 8192 ? 1 : 0));  // 37 registers per thread at 8192: one CTA per SM
    }
  }
  // fp32 layer norm keeps the count of BERT's rows (one row length measured, 519 per thread at 768).
  const MemoryLaunch f32 = memory_launch(h100, memory_kernel("layer_norm", 64 * 768, 768, 1));
  CHECK((f32.instructions_per_element + f32.issue_instructions_per_element) * 6 == doctest::Approx(519));
  // Held out (the counts are the H200's; the times the H100's, validation/measured/H100/op_profile,
  // llm_ops_warm medians): softmax over 4096 x 4096 56.5 us (the PTX count alone gave 32.5), RMS
  // norm over 16384 x 4096 104.6 us (with layer norm's count 126.4).
  const Kernel soft = memory_kernel("softmax", 4096 * 4096, 4096, 1, FormatId::fp16);
  const Kernel rms = memory_kernel("layer_norm_rms", 16384 * 4096, 4096, 1, FormatId::fp16);
  const double soft_us = run_memory_kernel(h100, soft).time_s * 1e6;
  const double rms_us = run_memory_kernel(h100, rms).time_s * 1e6;
  MESSAGE("H100 softmax 4096 x 4096: " << soft_us << " us (56.5 measured); RMS norm 16384 x 4096: " << rms_us
                                      << " us (104.6)");
  CHECK(soft_us == doctest::Approx(56.5).epsilon(0.15));
  CHECK(rms_us == doctest::Approx(104.6).epsilon(0.15));
}

TEST_CASE("memory kernel: a lone warp waits sm.ffma_latency between dependent instructions") {
  // One row of fp16 layer norm is one CTA of 4 warps: one warp per scheduler, whose Welford chain
  // issues an instruction every few cycles (Nsight Compute, H200: 6.3 besides memory waits).
  // Held out (validation/measured/H100/op_profile, llm_ops_warm, medians): rows of 2560 / 4096 /
  // 8192 take 4.48 / 6.11 / 10.24 us; issuing one instruction per cycle the model gave 3.25 / 3.93 / 5.73.
  GpuConfig h100 = gpu::test::shipped("h100");
  const double measured[] = {4.48, 6.11, 10.24};
  const std::int64_t rows[] = {2560, 4096, 8192};
  for (int i = 0; i < 3; ++i) {
    CAPTURE(rows[i]);
    const Kernel ln = memory_kernel("layer_norm", rows[i], rows[i], 1, FormatId::fp16);
    const double us = run_memory_kernel(h100, ln).time_s * 1e6;
    CHECK(us == doctest::Approx(measured[i]).epsilon(0.15));
  }
  // The wait is the FFMA latency's: at one cycle the row is issue-paced again; an elementwise
  // thread's independent elements hide it (the same add with the latency at 1 and at 4).
  const Kernel ln = memory_kernel("layer_norm", 4096, 4096, 1, FormatId::fp16);
  const Kernel add = memory_kernel("add", 4096, 0, 2, FormatId::fp16);
  const double ln4 = run_memory_kernel(h100, ln).time_s, add4 = run_memory_kernel(h100, add).time_s;
  CHECK(memory_launch(h100, ln).independent_chains == 1);
  CHECK(memory_launch(h100, add).independent_chains == 4);
  h100.ffma_latency = 1;
  CHECK(run_memory_kernel(h100, ln).time_s < 0.75 * ln4);
  CHECK(run_memory_kernel(h100, add).time_s == doctest::Approx(add4));
}

TEST_CASE("memory launch: GELU's gradient is issue-bound on sm_90 (Nsight Compute: 43.9 instructions per element)") {
  // BERT-base AMP b128's 12 GELU gradients of 50M fp16 elements: 87.8-90 us on the H200 (trace;
  // its bytes take 68 us at the DRAM rate), 102 us on the H100 (DRAM-bound there).
  Kernel k = memory_kernel("gelu_backward", 50331648, 0, 2, FormatId::fp16);
  const GpuConfig h200 = gpu::test::shipped("h200");
  CHECK(memory_launch(h200, k).issue_instructions_per_element == doctest::Approx(43.9));
  const KernelResult r = run_memory_kernel(h200, k);
  CHECK(r.bound != "dram");  // the issue of the counted work, per trip or in all
  CHECK(r.time_s * 1e6 == doctest::Approx(88.0).epsilon(0.1));
  // The V100's DRAM is the bound whatever the count.
  CHECK(run_memory_kernel(gpu::test::shipped("v100"), k).bound == "dram");
}

TEST_CASE("memory launch: dropout's Philox generator is counted (fused_dropout_kernel_vec, PTX replica)") {
  // BERT-base AMP b128's FFN dropouts (50M fp16, 5 bytes per element with the mask): 82.9 us on
  // the H200 (trace), 58.6 before the count at the DRAM rate; 100.7 on the H100.
  Kernel k = memory_kernel("native_dropout", 50331648, 0, 1, FormatId::fp16);
  k.bytes_written += 50331648;  // the mask
  const GpuConfig h200 = gpu::test::shipped("h200");
  const MemoryLaunch l = memory_launch(h200, k);
  CHECK(l.threads_per_cta == 256);
  CHECK(l.issue_instructions_per_element == doctest::Approx(40));
  const double us = run_memory_kernel(h200, k).time_s * 1e6;
  MESSAGE("H200 dropout of 50M fp16: " << us << " us (82.9 measured)");
  CHECK(us == doctest::Approx(82.9).epsilon(0.05));
  const double h100_us = run_memory_kernel(gpu::test::shipped("h100"), k).time_s * 1e6;
  MESSAGE("H100: " << h100_us << " us (100.7 measured)");
  CHECK(h100_us == doctest::Approx(100.7).epsilon(0.15));
}

TEST_CASE("memory launch: dropout runs a persistent grid of 4 resident CTAs per SM (the traces' grid 1056, 51-56 registers)") {
  const GpuConfig h200 = gpu::test::shipped("h200");
  Kernel big = memory_kernel("native_dropout", 50331648, 0, 1, FormatId::fp16);
  big.bytes_written += 50331648;
  const MemoryLaunch l = memory_launch(h200, big);
  CHECK(l.ctas == 132 * 8);                 // SMs x 2048 threads / 256, not n / 1024
  CHECK(l.max_resident == 4);               // 65536 registers / (256 threads x 56)
  CHECK(l.scalar_loop);                     // a __syncthreads() ends every iteration
  CHECK(l.dependent_loads == doctest::Approx(47));  // ceil(50331648 / (1056 x 1024)) vectors per thread
  CHECK(l.kernel.find("grid-stride") != std::string::npos);
  // A small tensor gets a CTA per 256 elements: one vector per thread, the grid not filled.
  Kernel small = memory_kernel("native_dropout", 4096, 0, 1, FormatId::fp16);
  const MemoryLaunch s = memory_launch(h200, small);
  CHECK(s.ctas == 16);
  CHECK(s.dependent_loads == doctest::Approx(1));
  // sm_86's 1536 threads per SM: 6 CTAs of 256 in the grid per SM, still 4 resident.
  const GpuConfig a10 = gpu::test::shipped("a10");
  const MemoryLaunch m = memory_launch(a10, big);
  CHECK(m.ctas == std::int64_t(a10.sm_count) * 6);
  CHECK(m.max_resident == 4);
}

TEST_CASE("memory launch: a strided op over mixed dtypes pays the dynamic casts of its operands") {
  // 26 issued instructions per operand and element (the casting copy's 52 for its two, Nsight
  // Compute on the H200). BERT-base AMP b128's fp32 + fp16 residual adds over a permuted view:
  // 64.0 / 60.1 us measured on H100 / H200, 42.5 / 35.8 before the count.
  Kernel k = memory_kernel("add", 12582912, 0, 2);
  k.memory.strided_dims = 3;
  const GpuConfig h200 = gpu::test::shipped("h200");
  const MemoryLaunch plain = memory_launch(h200, k);
  CHECK(plain.issue_instructions_per_element == 0);
  k.memory.cast = true;
  const MemoryLaunch cast = memory_launch(h200, k);
  CHECK(cast.kernel.rfind("elementwise_kernel<128, 4>", 0) == 0);
  CHECK(cast.issue_instructions_per_element == doctest::Approx(26 * cast.accesses_per_element));
  Kernel plain_k = k;
  plain_k.memory.cast = false;
  CHECK(run_memory_kernel(h200, k).time_s > 1.1 * run_memory_kernel(h200, plain_k).time_s);
}

TEST_CASE("memory launch: a contiguous op over mixed dtypes pays the dynamic casts of each tensor it loads or stores") {
  // unrolled_elementwise_kernel: the casting copy's 52 issued instructions per element (Nsight
  // Compute on the H200) are 26 per operand; GPT-2 AMP's bf16 + fp32 adds of 50331648 elements
  // (three operands) took 220 us on the H100, 132 us predicted with a copy's two accesses and no
  // issue cost.
  const GpuConfig h100 = gpu::test::shipped("h100");
  Kernel copy = memory_kernel("copy", 50331648, 0, 1, FormatId::bf16);
  copy.memory.cast = true;
  const MemoryLaunch c = memory_launch(h100, copy);
  CHECK(c.kernel.rfind("unrolled_elementwise_kernel", 0) == 0);
  CHECK(c.accesses_per_element == 2);  // operands unset: a copy's source and destination
  CHECK(c.issue_instructions_per_element == doctest::Approx(52));
  Kernel add = memory_kernel("add", 50331648, 0, 2, FormatId::bf16);
  add.memory.cast = true;
  add.memory.operands = 3;
  const MemoryLaunch a = memory_launch(h100, add);
  CHECK(a.accesses_per_element == 3);
  CHECK(a.issue_instructions_per_element == doctest::Approx(78));
  const double t = run_memory_kernel(h100, add).time_s * 1e6;
  CHECK(t > 1.3 * 132);
  CHECK(std::abs(t / 220 - 1) < 0.2);
  // Operands that need no casts keep the vectorized kernel and its cost.
  add.memory.cast = false;
  CHECK(memory_launch(h100, add).issue_instructions_per_element == 0);
}

TEST_CASE("memory launch: an inference engine's quantize kernel is vectorized, a PyTorch cast to int8 is not") {
  // fp16 activations quantized to int8 (workload/network: the fp8 and int8 modes): 2 bytes read,
  // 1 written per element, at the vectorized kernel's cost; the same bytes through PyTorch's
  // casting copy pay its serial loads and dynamic casts.
  const GpuConfig t4 = gpu::test::shipped("t4");
  Kernel q = memory_kernel("quantize", 128 * 256 * 56 * 56, 0, 1, FormatId::int8);
  q.bytes_read *= 2;
  const MemoryLaunch l = memory_launch(t4, q);
  CHECK(l.kernel.rfind("quantize kernel (vectorized)", 0) == 0);
  CHECK(l.issue_instructions_per_element == 0);
  const KernelResult r = run_memory_kernel(t4, q);
  CHECK(r.bound == "dram");
  const double bytes = double(q.bytes_read + q.bytes_written);
  CHECK(bytes / r.time_s < t4.dram_bytes_per_s);
  CHECK(bytes / r.time_s > 0.8 * t4.dram_bytes_per_s * t4.dram_efficiency);
  Kernel cast = q;
  cast.memory.op = "cast";
  cast.memory.cast = true;
  const MemoryLaunch c = memory_launch(t4, cast);
  CHECK(c.kernel.rfind("unrolled_elementwise_kernel", 0) == 0);
  CHECK(c.issue_instructions_per_element == doctest::Approx(52));
  // Both stream DRAM at the config clock; within the T4's 70 W the cast's instructions cost it
  // the clock (the power model): about twice the quantize kernel's time.
  CHECK(run_memory_kernel(t4, cast).time_s >= r.time_s);
  GpuModel board(t4);
  CHECK(board.run(cast).time_s > 1.5 * board.run(q).time_s);
}

TEST_CASE("memory kernel: a cold footprint (a step's parameters) is read from DRAM however small") {
  // AMP's cast of BERT-base's 3072 x 768 fp32 weight: 9.4 MB read, 4.7 MB written, 6.3-6.8 us on
  // the H100 in the traces; from L2 (back to back) 3.9 us.
  const GpuConfig h100 = gpu::test::shipped("h100");
  Kernel k = memory_kernel("copy", 3072 * 768, 0, 1);
  k.bytes_written /= 2;  // fp16 out
  const KernelResult warm = run_memory_kernel(h100, k);
  CHECK(warm.bound == "l2");
  k.memory.cold = true;
  const KernelResult cold = run_memory_kernel(h100, k);
  CHECK(cold.bound == "dram");
  CHECK(cold.time_s > 1.4 * warm.time_s);
  CHECK(std::abs(cold.time_s * 1e6 / 6.5 - 1) < 0.15);
  CHECK(cold.get("dram_read_bytes").value_or(0) == doctest::Approx(double(k.bytes_read)));
}

TEST_CASE("memory kernel: inputs flushed from L2 by a larger write before the op come from DRAM") {
  // validation/measured/H100/op_profile/llm_ops_cold: torch.add of two [1024, 4096] fp16 tensors
  // (25 MB with the output, inside the L2) after a 256 MiB zero_ takes 11.0 us; back to back 4.8 us.
  const GpuConfig h100 = gpu::test::shipped("h100");
  Kernel k = memory_kernel("add", 1024 * 4096, 0, 2, FormatId::fp16);
  const KernelResult warm = run_memory_kernel(h100, k);
  CHECK(warm.bound == "l2");
  k.memory.evicted_bytes = 0.5 * double(h100.l2_size);  // a smaller write leaves the inputs in L2
  CHECK(run_memory_kernel(h100, k).time_s == warm.time_s);
  k.memory.evicted_bytes = 256.0 * 1024 * 1024;
  const KernelResult flushed = run_memory_kernel(h100, k);
  CHECK(flushed.bound == "dram");
  CHECK(flushed.get("dram_read_bytes").value_or(0) == doctest::Approx(double(k.bytes_read)));
  CHECK(std::abs(flushed.time_s * 1e6 / 11.0 - 1) < 0.15);
}

TEST_CASE("memory kernel: a kernel repeated back to back costs the measured empty-kernel duration, not a launch") {
  // validation/measured/H100/kernel_floor: a one-element add repeated takes 1.12 us (CUPTI,
  // kernel.empty_duration); after another kernel the model charges kernel.launch_overhead (1.64 us).
  const GpuConfig h100 = gpu::test::shipped("h100");
  Kernel k = memory_kernel("add", 1, 0, 2, FormatId::fp16);
  const KernelResult after_other = run_memory_kernel(h100, k);
  k.follows_itself = true;
  const KernelResult repeated = run_memory_kernel(h100, k);
  CHECK(repeated.cycles == after_other.cycles);  // the same work
  CHECK(std::abs(repeated.time_s * 1e6 - 1.12) < 0.02);  // the anchor: the add itself is the measurement
  CHECK(after_other.time_s - repeated.time_s == doctest::Approx(h100.launch_overhead_s - h100.kernel_fixed_s(true)));
  // Held out (validation/measured/H100/op_profile/llm_ops_warm, repeated calls): torch.add of two
  // [256, 4096] fp16 tensors takes 1.89 us (after a mul of other sizes: 3.55).
  Kernel mid = memory_kernel("add", 256 * 4096, 0, 2, FormatId::fp16);
  mid.follows_itself = true;
  CHECK(std::abs(run_memory_kernel(h100, mid).time_s * 1e6 / 1.89 - 1) < 0.15);
  // The A100's published empty kernel (validation/published/kernel_floor: a one-CTA vectorAdd
  // repeated, nsys median 1.82 us) anchors it the same way.
  const GpuConfig a100 = gpu::test::shipped("a100");
  Kernel ka = memory_kernel("add", 1, 0, 2, FormatId::fp16);
  const double a100_after_other = run_memory_kernel(a100, ka).time_s;
  ka.follows_itself = true;
  CHECK(std::abs(run_memory_kernel(a100, ka).time_s * 1e6 - 1.82) < 0.02);
  CHECK(a100_after_other > run_memory_kernel(a100, ka).time_s);
  // A config without the measurement (V100: kernel.empty_duration 0) keeps the launch.
  const GpuConfig v100 = gpu::test::shipped("v100");
  Kernel kv = memory_kernel("add", 1, 0, 2, FormatId::fp16);
  const double launch_time = run_memory_kernel(v100, kv).time_s;
  kv.follows_itself = true;
  CHECK(run_memory_kernel(v100, kv).time_s == launch_time);
}

TEST_CASE("memory kernel: a profiled kernel after a different one costs the empty kernel's duration and a DRAM trip") {
  // A profiler's kernel duration (Kernel::profiled: CUPTI, as torch.profiler and Vidur report it)
  // holds no launch interval; after a different kernel the kernel's code and parameters come cold
  // from DRAM (the kernels before, a GEMM streaming its weights, evicted them). The H200's residual
  // add of one token after a GEMM measures 1.12-1.20 us (validation/measured/H200/vidur_layer), the
  // empty kernel 0.90 us repeated.
  for (const char* board : {"h100", "h200", "a100"}) {
    CAPTURE(board);
    const GpuConfig g = gpu::test::shipped(board);
    Kernel k = memory_kernel("add", 1, 0, 2, FormatId::fp16);
    const KernelResult launched = run_memory_kernel(g, k);
    k.profiled = true;
    const KernelResult profiled = run_memory_kernel(g, k);
    CHECK(profiled.cycles == launched.cycles);  // the same work
    CHECK(profiled.time_s - profiled.cycles / g.clock_hz ==
          doctest::Approx(g.empty_kernel_s + g.dram_latency / g.clock_hz));
    k.follows_itself = true;  // repeated, it is the empty kernel whatever the measurement
    CHECK(std::abs(run_memory_kernel(g, k).time_s - g.empty_kernel_s) < 0.02e-6);
  }
  const GpuConfig h200 = gpu::test::shipped("h200");
  Kernel add = memory_kernel("add", 4096, 0, 2, FormatId::fp16);
  add.profiled = true;
  CHECK(std::abs(run_memory_kernel(h200, add).time_s * 1e6 / 1.15 - 1) < 0.4);
  // A config without the measured empty kernel (V100) keeps the launch.
  const GpuConfig v100 = gpu::test::shipped("v100");
  CHECK(v100.kernel_fixed_s(false, true) == v100.launch_overhead_s);
}

TEST_CASE("memory kernel: a profiled kernel after one that stored little skips the DRAM trip") {
  // A write-back L2 holds the kernel before's stores dirty; the next kernel's first misses (its
  // code, parameters, data) queue behind their write-backs. When that kernel stored less than DRAM
  // absorbs in one trip's latency (a GEMV's output in a decode step) and this kernel's data is
  // L2-resident, only the empty kernel's duration is left: the H200's decode trace runs its
  // elementwise kernels of up to 4096 elements in 0.90-1.15 us (validation/measured/H200/networks).
  for (const char* board : {"h100", "h200", "a100"}) {
    CAPTURE(board);
    const GpuConfig g = gpu::test::shipped(board);
    const double drained = g.dram_latency * g.dram_bytes_per_clk();
    Kernel k = memory_kernel("add", 4096, 0, 2, FormatId::fp16);
    k.profiled = true;
    const KernelResult unknown = run_memory_kernel(g, k);  // written_before -1: not known
    k.written_before = 0.5 * drained;
    const KernelResult quiet = run_memory_kernel(g, k);
    k.written_before = 2 * drained;
    const KernelResult busy = run_memory_kernel(g, k);
    CHECK(quiet.cycles == busy.cycles);  // the same work
    CHECK(busy.time_s == unknown.time_s);
    CHECK(busy.time_s - quiet.time_s == doctest::Approx(g.dram_latency / g.clock_hz));
    CHECK(quiet.time_s - quiet.cycles / g.clock_hz == doctest::Approx(g.empty_kernel_s));
    // Data that does not fit in L2 pays the trip whatever came before.
    Kernel big = memory_kernel("add", std::int64_t(1) << 28, 0, 2, FormatId::fp16);
    big.profiled = true;
    big.written_before = 0;
    const KernelResult r = run_memory_kernel(g, big);
    CHECK(r.time_s - r.cycles / g.clock_hz == doctest::Approx(g.empty_kernel_s + g.dram_latency / g.clock_hz));
  }
  const GpuConfig h200 = gpu::test::shipped("h200");
  CHECK(h200.dirty_drains_quietly(0));
  CHECK_FALSE(h200.dirty_drains_quietly(-1));
  CHECK_FALSE(h200.dirty_drains_quietly(64.0 * 1024 * 1024));
}

TEST_CASE("published empty-kernel durations: the shipped configs carry them (validation/published/kernel_floor)") {
  int rows = 0;
  for (const std::string& line : tcsim::test::csv_data_lines("validation/published/kernel_floor/observations.csv")) {
    const std::vector<std::string> f = split(line, ',');
    REQUIRE(f.size() >= 11);
    const GpuConfig g = gpu::test::shipped(f[0]);
    const double median_us = std::stod(f[6]) * 1e-3;
    CAPTURE(line);
    CHECK(std::abs(g.empty_kernel_s * 1e6 - median_us) < 0.01);  // the config quotes the median
    ++rows;
  }
  CHECK(rows >= 2);
}

TEST_CASE("memory launch: a sum over the rows (a bias gradient) takes reduce_kernel's column grid and its global tail") {
  const GpuConfig g = gpu::test::shipped("h100");
  // The grids of BERT-base's bias gradients in the H100 profile (fp16 dY of 16384 tokens; 32 x 4
  // threads): 768 -> [6, 256], 3072 -> [24, 88], 2304 -> [18, 118].
  const std::int64_t rows = 16384;
  for (auto [columns, gx, gy] : {std::tuple{768, 6, 256}, std::tuple{3072, 24, 88}, std::tuple{2304, 18, 118}}) {
    const int outputs = columns;  // a named copy: CAPTURE cannot take a structured binding (clang 14)
    CAPTURE(outputs);
    const MemoryLaunch l = memory_launch(g, memory_kernel("reduce_columns", outputs, rows, rows, FormatId::fp16));
    CHECK(l.threads_per_cta == 128);
    CHECK(l.ctas == std::int64_t(gx) * gy);
    CHECK(l.tail_trips == 1 + std::ceil(gy / 4.0));
  }
  // The last CTA's serial tail makes it slower than the bytes alone, and slower than the row form.
  const Kernel k = memory_kernel("reduce_columns", 768, rows, rows, FormatId::fp16);
  const KernelResult r = run_memory_kernel(g, k);
  CHECK(r.time_s > run_memory_kernel(g, memory_kernel("reduce", 768, rows, rows, FormatId::fp16)).time_s);
  CHECK(r.time_s > 65.0 * g.l2_hit_latency() / g.clock_hz);
  // Each of the tail's 65 serial trips costs a DRAM latency (the calibration, sim/gpu/README.md
  // "Column reductions"): the H100 trace measured 32.9 us for this kernel.
  CHECK(r.cycles >= 65.0 * g.dram_latency);
  MESSAGE("H100 BERT-base bias gradient, 768 x 16384 fp16: " << r.time_s * 1e6 << " us (32.9 measured)");
  CHECK(r.time_s * 1e6 == doctest::Approx(32.9).epsilon(0.2));
  // Few rows: no split across CTAs, no tail.
  const MemoryLaunch small = memory_launch(g, memory_kernel("reduce_columns", 768, 64, 64, FormatId::fp16));
  CHECK(small.tail_trips == 0);
}

TEST_CASE("memory launch: log-softmax's write pass has no exponential or division (counted instructions)") {
  const GpuConfig g = gpu::test::shipped("h100");
  // BERT's MLM head: rows of 30522 classes, cunn_SoftMaxForward with either epilogue.
  const MemoryLaunch soft = memory_launch(g, memory_kernel("softmax", 64 * 30522, 30522, 1));
  const MemoryLaunch log = memory_launch(g, memory_kernel("log_softmax", 64 * 30522, 30522, 1));
  CHECK(soft.kernel == log.kernel);
  CHECK(soft.instructions_per_element == doctest::Approx(150 / 4.0));
  CHECK(log.instructions_per_element == doctest::Approx(82 / 4.0));
  // Their gradients count no instructions (cunn_SoftMaxBackward: two passes, bytes-bound).
  const MemoryLaunch back = memory_launch(g, memory_kernel("log_softmax_backward", 64 * 30522, 30522, 2));
  CHECK(back.instructions_per_element == 0);
  CHECK(back.reread_passes == 1);
  CHECK(back.sfu_per_element == 1);
  CHECK(back.kernel.rfind("cunn_SoftMaxBackward", 0) == 0);
}

TEST_CASE("memory launch: the softmax kernels of the PyTorch release (library.pytorch_version)") {
  GpuConfig g = gpu::test::shipped("h100");
  REQUIRE(g.pytorch_version == 211);
  // GPT-2's vocabulary rows (50257 bf16, 100 KB) in the H100 traces (PyTorch 2.11): the forward runs
  // 1024 threads and re-reads the row from memory, the gradient keeps 2.1's 512.
  const Kernel vocab = memory_kernel("log_softmax", 16 * 50257, 50257, 1, FormatId::bf16);
  MemoryLaunch l = memory_launch(g, vocab);
  CHECK(l.threads_per_cta == 1024);
  CHECK(l.reread_passes == 2);
  CHECK(l.kernel.rfind("cunn_SoftMaxForward (", 0) == 0);
  const Kernel vocab_grad = memory_kernel("log_softmax_backward", 16 * 50257, 50257, 2, FormatId::bf16);
  l = memory_launch(g, vocab_grad);
  CHECK(l.threads_per_cta == 512);
  CHECK(l.reread_share == doctest::Approx(0.5));  // dY again, not Y
  // A row a thread holds in fewer than 10 registers (2.7 on): one read, the passes in registers.
  l = memory_launch(g, memory_kernel("softmax", 64 * 4096, 4096, 1));
  CHECK(l.kernel.rfind("cunn_SoftMaxForwardReg", 0) == 0);
  CHECK(l.threads_per_cta == 1024);
  CHECK(l.reread_passes == 0);
  // More than 9 per thread but within 48 KiB of shared memory: the Smem kernel.
  l = memory_launch(g, memory_kernel("softmax", 64 * 11000, 11000, 1, FormatId::bf16));
  CHECK(l.kernel.rfind("cunn_SoftMaxForwardSmem", 0) == 0);
  CHECK(l.reread_passes == 0);
  // 2.4-2.6: no register path yet, the 16 KB row goes to shared memory; 80 KB rows re-read memory.
  g.pytorch_version = 205;
  CHECK(memory_launch(g, memory_kernel("softmax", 64 * 4096, 4096, 1)).kernel.rfind("cunn_SoftMaxForwardSmem", 0) == 0);
  l = memory_launch(g, memory_kernel("softmax", 64 * 20000, 20000, 1));
  CHECK(l.kernel.rfind("cunn_SoftMaxForward (", 0) == 0);
  CHECK(l.threads_per_cta == 1024);
  // 2.1 (NeuSight's listings): half the vectorised width, re-read passes for every long row.
  g.pytorch_version = 201;
  l = memory_launch(g, vocab);
  CHECK(l.threads_per_cta == 512);
  l = memory_launch(g, memory_kernel("softmax", 64 * 4096, 4096, 1));
  CHECK(l.threads_per_cta == 512);
  CHECK(l.reread_passes == 2);
}

TEST_CASE("memory launch: cuDNN's channels-last batch norm, a persistent grid in rounds of 64 channels") {
  const GpuConfig g = gpu::test::shipped("h100");
  // The grids of the H100 ResNet-50 AMP b256 trace (validation/measured/H100/profiles).
  const auto bn = [&](std::int64_t channels, std::int64_t pixels, bool backward) {
    return memory_launch(g, memory_kernel(backward ? "batch_norm_nhwc_backward" : "batch_norm_nhwc", channels * pixels,
                                          pixels, backward ? 2 : 1, FormatId::fp16));
  };
  const auto has = [](const MemoryLaunch& l, const char* text) { return l.kernel.find(text) != std::string::npos; };
  CHECK(has(bn(256, 50176, false), "grid 131 x 2"));  // 14x14, 384 pixels kept per CTA
  CHECK(has(bn(512, 12544, false), "grid 33 x 8"));
  CHECK(has(bn(2048, 12544, true), "grid 66 x 4"));   // backward: 192 pixels
  CHECK(has(bn(256, 50176, true), "grid 262 x 1"));
  const MemoryLaunch big = bn(64, 3211264, false);     // 112x112: the grid loops, re-reading what it cannot keep
  CHECK(has(big, "grid 264 x 1"));
  CHECK(big.max_resident == 2);
  CHECK(big.reread_share == doctest::Approx(1 - 384.0 / (3211264.0 / 264)));
  CHECK(bn(256, 50176, false).reread_passes == 0);
  // At equal elements, 16 blocks of channels at 14x14 (8 rounds) take longer than one block at
  // 56x56 (1 round) though they keep everything on chip: measured 146.8 against 110.7 us (1.33x;
  // the model 1.17x).
  const KernelResult many = run_memory_kernel(g, memory_kernel("batch_norm_nhwc", 1024 * 50176, 50176, 1, FormatId::fp16));
  const KernelResult one = run_memory_kernel(g, memory_kernel("batch_norm_nhwc", 64 * 802816, 802816, 1, FormatId::fp16));
  CHECK(many.get("waves").value() == 8);
  CHECK(one.get("waves").value() == 1);
  CHECK(many.time_s > 1.1 * one.time_s);
  CHECK(many.bound == "barriers");
}

TEST_CASE("memory kernel: channels-last batch norm re-reads its uncached pixels from where they survive") {
  const GpuConfig g = gpu::test::shipped("h100");
  // The share of the re-read bytes that comes back from DRAM.
  const auto from_memory = [&](std::int64_t pixels) {
    const Kernel k = memory_kernel("batch_norm_nhwc", 256 * pixels, pixels, 1, FormatId::fp16);
    const KernelResult r = run_memory_kernel(g, k);
    const MemoryLaunch l = memory_launch(g, k);
    const double reread = double(k.bytes_read) * l.reread_share * l.reread_passes;
    const bool noted = std::any_of(r.notes.begin(), r.notes.end(),
                                   [](const std::string& n) { return n.find("re-reads come from memory") != std::string::npos; });
    const double share = (r.get("dram_read_bytes").value() - double(k.bytes_read)) / reread;
    CHECK(noted == (share > 0));
    return share;
  };
  // 28x28 at batch 256: 760 pixels per CTA, 384 kept. The two resident CTAs' 195 KB of rows exceed
  // the 156 KB of L1 the 100 KiB shared-memory carveout leaves (2 x 32 KiB + 1 KiB each), and the
  // round's whole input went through the L2 before the re-read: with its far copies 38.5 MB of the
  // 52.4 MB (50 MiB) L2. The re-read pass writes 25.7 MB: once it has written the 13.9 MB left, 54%
  // of the way into the pixels, the rest of the re-reads come from DRAM.
  CHECK(from_memory(200704) == doctest::Approx(1 - (52.43 - 38.53) / 25.69).epsilon(0.01));
  // 600 pixels per CTA: 154 KB of rows stay in L1.
  CHECK(from_memory(264 * 600) == 0);
}

TEST_CASE("memory launch: cuDNN's channels-last inference batch norm, a grid per image of at most 13 CTAs") {
  const GpuConfig g = gpu::test::shipped("h200");
  const auto bn = [&](std::int64_t n, std::int64_t c, std::int64_t hw) {
    return memory_kernel("batch_norm_inference_nhwc", n * c * hw, c * hw, 1, FormatId::fp16);
  };
  const auto has = [](const MemoryLaunch& l, const char* text) { return l.kernel.find(text) != std::string::npos; };
  // The grids of the H200 ResNet-50 inference traces (validation/measured/H200/networks): N x y,
  // y = ceil(passes of 4096 elements / 2), at most 13.
  CHECK(has(memory_launch(g, bn(1, 64, 112 * 112)), "grid 1 x 13"));
  CHECK(has(memory_launch(g, bn(32, 256, 14 * 14)), "grid 32 x 7"));
  CHECK(has(memory_launch(g, bn(256, 512, 7 * 7)), "grid 256 x 4"));
  CHECK(has(memory_launch(g, bn(1, 2048, 7 * 7)), "grid 1 x 13"));
  CHECK(memory_launch(g, bn(1, 64, 112 * 112)).ctas == 13);
  // Measured (trace, 1980 MHz): 36.8 us at batch 1 for 64 x 112 x 112 (16 passes per CTA), 5.6 us for
  // 256 x 14 x 14 (2 passes); 492 us at batch 256 for the first. Issue- and latency-bound: far
  // slower than its bytes at the DRAM's bandwidth (0.4 us at batch 1).
  const KernelResult big = run_memory_kernel(g, bn(1, 64, 112 * 112));
  const KernelResult small = run_memory_kernel(g, bn(1, 256, 14 * 14));
  const KernelResult full = run_memory_kernel(g, bn(256, 64, 112 * 112));
  CHECK(big.time_s == doctest::Approx(36.8e-6).epsilon(0.2));
  CHECK(small.time_s == doctest::Approx(5.6e-6).epsilon(0.3));
  CHECK(full.time_s == doctest::Approx(492e-6).epsilon(0.2));
  CHECK(big.bound == "latency");
}

TEST_CASE("memory kernel: softmax's gradient re-reads dY only") {
  const GpuConfig g = gpu::test::shipped("h100");
  // 16384 vocabulary rows (GPT-2 AMP b16): 4 resident 512-thread CTAs per SM re-read 100 KB of dY
  // each while writing 100 KB: 106 MB over 132 SMs, more than the 50 MB L2, so the re-read comes
  // from DRAM: dY twice, Y once.
  const Kernel k = memory_kernel("log_softmax_backward", 16384 * 50257, 50257, 2, FormatId::bf16);
  const KernelResult r = run_memory_kernel(g, k);
  CHECK(r.get("dram_read_bytes").value() == doctest::Approx(1.5 * double(k.bytes_read)));
}

TEST_CASE("memory kernel: PyTorch's strided elementwise kernel is bound by its index arithmetic") {
  // BERT-base AMP's QKV permute (validation/measured/H100/profiles/bertbase_amp-fp16_b128):
  // copy_ of 37748736 fp16 elements through elementwise_kernel<128, 4> over 4 dims, 101.5 us
  // measured per call; as one vectorized stream it would take the DRAM time (~49 us).
  const GpuConfig h100 = gpu::test::shipped("h100");
  Kernel k = memory_kernel("copy", 37748736, 0, 1, FormatId::fp16);
  const KernelResult vectorized = run_memory_kernel(h100, k);
  k.memory.strided_dims = 4;
  const MemoryLaunch l = memory_launch(h100, k);
  CHECK(l.kernel.rfind("elementwise_kernel<128, 4>", 0) == 0);
  CHECK(l.accesses_per_element == 2);
  CHECK(l.integer_instructions_per_element == 45);  // 3 + 3 x 2 operands + (7 + 2) x 4 dims
  const KernelResult strided = run_memory_kernel(h100, k);
  CHECK(strided.bound == "int32");
  // 45 integer instructions per element on 64 integer lanes per SM
  CHECK(strided.time_s ==
        doctest::Approx(37748736.0 * 45 / (64 * 132) / h100.clock_hz + h100.launch_overhead_s).epsilon(1e-6));
  CHECK(strided.time_s > 1.5 * vectorized.time_s);
  CHECK(std::abs(strided.time_s * 1e6 / 101.5 - 1) < 0.15);
  // fewer dims, less arithmetic: a 1-dim walk of the same copy is no longer bound by it (its
  // threads' four serial trips are, sim/gpu/README.md "Serial loads in PyTorch's strided and
  // casting kernels")
  k.memory.strided_dims = 1;
  const KernelResult one_dim = run_memory_kernel(h100, k);
  MESSAGE("1-dim strided copy: " << one_dim.time_s * 1e6 << " us, " << one_dim.bound);
  CHECK(one_dim.bound != "int32");
  CHECK(one_dim.time_s < strided.time_s);
  // casting copies pay the narrow requests of their 2-byte accesses on the H100, not on the A100
  Kernel c = memory_kernel("copy", 37748736, 0, 1, FormatId::fp16);
  c.memory.cast = true;
  CHECK(memory_launch(h100, c).kernel.rfind("unrolled_elementwise_kernel", 0) == 0);
  CHECK(run_memory_kernel(h100, c).bound == "l1_requests");
  const GpuConfig a100 = gpu::test::shipped("a100");
  Kernel v = memory_kernel("copy", 37748736, 0, 1, FormatId::fp16);
  const double plain = run_memory_kernel(a100, v).time_s;
  v.memory.cast = true;
  const KernelResult cast = run_memory_kernel(a100, v);
  MESSAGE("A100 casting copy: " << cast.time_s * 1e6 << " us (" << cast.bound << "), plain " << plain * 1e6 << " us");
  CHECK(cast.bound != "l1_requests");
  CHECK(cast.time_s >= plain);
}

TEST_CASE("memory launch: a strided copy whose warp accesses touch many lines is bound by their requests") {
  // The channels-last -> NCHW copy of a [16, 64, 80, 349] fp16 tensor (validation/measured/H100/
  // conv_deepbench, fp16 NHWC trace): 33 lines per warp access (op_kernels counts them), 223.6 us
  // measured per call; the integer work of its 4-dim walk alone gives 68 us.
  const GpuConfig h100 = gpu::test::shipped("h100");
  Kernel k = memory_kernel("copy", 28590080, 0, 1, FormatId::fp16);
  k.memory.strided_dims = 3;
  const KernelResult unknown = run_memory_kernel(h100, k);
  k.memory.lines_per_warp = 33;
  const KernelResult lines = run_memory_kernel(h100, k);
  CHECK(lines.bound == "l1_requests");
  CHECK(lines.time_s == doctest::Approx(28590080.0 / 32 * 33 / h100.l2_line_requests_per_clk / h100.clock_hz +
                                        h100.launch_overhead_s)
                           .epsilon(1e-6));
  CHECK(std::abs(lines.time_s * 1e6 / 223.6 - 1) < 0.10);
  CHECK(unknown.time_s < 0.5 * lines.time_s);
  // a coalesced walk (two lines per warp access) stays bound by its integer work
  k.memory.lines_per_warp = 2;
  CHECK(run_memory_kernel(h100, k).bound == "int32");
  // the H200 enables 60 MB of the chip's L2 against the H100's 50: 1.2x the slices, and its copies
  // measured 190.6-192.0 us
  const GpuConfig h200 = gpu::test::shipped("h200");
  k.memory.lines_per_warp = 33;
  const double h200_s = run_memory_kernel(h200, k).time_s;
  CHECK(std::abs(h200_s * 1e6 / 191.1 - 1) < 0.05);
  // configs without a measured rate do not limit it
  CHECK(gpu::test::shipped("a100").l2_line_requests_per_clk == 0);
}

TEST_CASE("memory launch: PyTorch's strided and casting kernels load one element (and operand) at a time") {
  // elementwise_kernel<128, vt> (vt = 4 for 2-byte outputs, 2 for 4-byte ones) stores each element
  // before it loads the next; fetch_and_cast completes each operand's load inside its dtype switch
  // (memory_launch.cpp). H200 decode step of Llama-2-7B (validation/measured/H200/networks,
  // llama27b_infer_fp16_b1_s1_kv512, CUPTI medians of 64-128 calls): the rotary multiply of 4096
  // fp16 elements on the strided path 2.08 us, the same size vectorized 1.15 us; the hidden state
  // times its rsqrt (fp32, strided) 1.50 us; RMSNorm's fp16 -> fp32 copy (casting) 2.21 us.
  const GpuConfig h200 = gpu::test::shipped("h200");
  Kernel rotary = memory_kernel("mul", 4096, 0, 1, FormatId::fp16);
  rotary.memory.strided_dims = 3;
  const MemoryLaunch lr = memory_launch(h200, rotary);
  CHECK(lr.kernel.rfind("elementwise_kernel<128, 4>", 0) == 0);
  CHECK(lr.dependent_loads == 4);
  CHECK(lr.independent_chains == 1);
  Kernel scale = memory_kernel("mul", 4096, 0, 1, FormatId::fp32);
  scale.memory.strided_dims = 1;
  const MemoryLaunch ls = memory_launch(h200, scale);
  CHECK(ls.kernel.rfind("elementwise_kernel<128, 2>", 0) == 0);
  CHECK(ls.dependent_loads == 2);
  Kernel cast = memory_kernel("copy", 4096, 0, 1, FormatId::fp32);
  cast.memory.cast = true;
  cast.memory.operands = 2;
  CHECK(memory_launch(h200, cast).dependent_loads == 4);
  Kernel mixed = memory_kernel("add", 4096, 0, 1, FormatId::bf16);
  mixed.memory.cast = true;
  mixed.memory.operands = 3;  // two inputs of different dtypes, one output
  CHECK(memory_launch(h200, mixed).dependent_loads == 8);
  // Timed as the profiler times them (after another kernel)
  Kernel vec = memory_kernel("mul", 4096, 0, 1, FormatId::fp16);
  for (Kernel* k : {&rotary, &scale, &cast, &vec}) k->profiled = true;
  const double t_rotary = run_memory_kernel(h200, rotary).time_s * 1e6, t_vec = run_memory_kernel(h200, vec).time_s * 1e6;
  const double t_scale = run_memory_kernel(h200, scale).time_s * 1e6, t_cast = run_memory_kernel(h200, cast).time_s * 1e6;
  MESSAGE("H200 decode: rotary " << t_rotary << " us (2.08), vectorized " << t_vec << " (1.15), rsqrt scale " << t_scale
                                 << " (1.50), cast copy " << t_cast << " (2.21)");
  CHECK(t_rotary > t_vec + 0.5);  // measured 0.93 apart
  CHECK(t_scale < t_rotary);
  // Both 0.3 us long: the fixed cost of a profiled kernel after another one (an empty kernel and a
  // DRAM trip, GpuConfig::kernel_fixed_s) is ~0.4 us more than this step's small kernels show
  // (its vectorized multiply: 1.58 us against 1.15) when what the kernel before stored is not known,
  // as here; in the mapped decode trace they follow GEMVs that store a few KB and skip the trip
  // (Kernel::written_before; sim/gpu/README.md).
  CHECK(std::abs(t_rotary / 2.08 - 1) < 0.2);
  CHECK(std::abs(t_cast / 2.21 - 1) < 0.2);
}

TEST_CASE("memory kernel: an input other kernels evicted streams from DRAM, and the writes follow it") {
  // Vidur's Llama residual add (sim/workload/measured/vidur.cpp) at 1024 tokens on the A100 80GB PCIe: the
  // down projection's output is in L2, the residual was written before the layer's MLP weights went
  // through it. Vidur measures 10-12 us (whole microseconds, TP 1-8); back to back from L2 the
  // model gives 7.4 us.
  const GpuConfig a100 = gpu::test::shipped("a100_80gb_pcie");
  Kernel k = memory_kernel("add", 1024 * 4096, 0, 2, FormatId::fp16);
  const KernelResult warm = run_memory_kernel(a100, k);
  CHECK(warm.bound == "l2");
  CHECK(warm.get("dram_read_bytes").value_or(-1) == 0);
  k.memory.cold_read_bytes = 2.0 * 1024 * 4096;
  const KernelResult cold = run_memory_kernel(a100, k);
  CHECK(cold.bound == "dram");
  CHECK(cold.get("dram_read_bytes").value_or(0) == doctest::Approx(k.memory.cold_read_bytes));
  CHECK(cold.get("dram_write_bytes").value_or(0) == doctest::Approx(double(k.bytes_written)));
  CHECK(cold.time_s > 1.3 * warm.time_s);
  CHECK(cold.time_s * 1e6 > 10.5);
  CHECK(cold.time_s * 1e6 < 13.0);
  // The evicted input need not stay: at 2048 tokens the rest (16 MB read with its far copies, 16 MB
  // written) still fits the 40 MB L2, so only the residual and the writes go to DRAM.
  Kernel big = memory_kernel("add", 2048 * 4096, 0, 2, FormatId::fp16);
  CHECK(run_memory_kernel(a100, big).get("dram_read_bytes").value_or(0) == doctest::Approx(double(big.bytes_read)));
  big.memory.cold_read_bytes = 2.0 * 2048 * 4096;
  CHECK(run_memory_kernel(a100, big).get("dram_read_bytes").value_or(0) == doctest::Approx(big.memory.cold_read_bytes));
}

TEST_CASE("memory kernel: a CTA with barriers issues its warps' work after each trip, not during it") {
  // Nsight Compute on the H200 (validation/measured/H200/vidur_layer/ncu_llm_layer.csv.xz): one
  // Sarathi rms_norm_kernel CTA (a row of 4096, 1024 threads) is active 4750 cycles; its 8 warps
  // per scheduler issue in turn after each of its 8 trips. One warp's chain after each trip gave 2440;
  // the CTA's whole issue gives 3278 (what is still missing is not known: its memory waits are 14
  // cycles per instruction, its barriers are charged as shared-memory steps).
  const GpuConfig h200 = gpu::test::shipped("h200");
  Kernel k = memory_kernel("rms_norm", 4096, 4096, 1, FormatId::fp16);
  k.bytes_read += 2 * 4096;  // the weight
  const KernelResult r = run_memory_kernel(h200, k);
  const double cta = r.get("cta_latency_cycles").value_or(0);
  MESSAGE("lone rms_norm CTA: " << cta << " cycles (Nsight Compute: 4750)");
  CHECK(cta > 1.25 * 2440);
  CHECK(cta < 4750);
  // Without barriers (Sarathi's SiLU x up, a CTA of 1024 threads per token) a trip is the latency
  // plus one warp's chain: more CTAs per SM overlap their trips.
  Kernel silu = memory_kernel("silu_and_mul", 4 * 2048, 2048, 2, FormatId::fp16);
  const MemoryLaunch sl = memory_launch(h200, silu);
  CHECK(sl.block_reductions == 0);
}

TEST_CASE("memory kernel: torch.cat of a KV cache (CatArrayBatchedCopy, non-contiguous path) is index-arithmetic bound") {
  const GpuConfig g = gpu::test::shipped("h200");
  // The H200 traces (validation/measured/H200/networks): Hugging Face's DynamicCache appending one
  // token's keys to 512 cached ones (batch 1, 32 heads x 128) and to 1024 at batch 16, and GPT-2's
  // training-time cache of 1024 tokens (16 x 12 heads x 64).
  const auto cat = [&](std::int64_t elements, FormatId f) {
    return run_memory_kernel(g, memory_kernel("cat", elements, 0, 1, f));
  };
  const KernelResult b1 = cat(32 * 513 * 128, FormatId::fp16);
  const KernelResult b16 = cat(16 * 32 * 1025 * 128, FormatId::fp16);
  const KernelResult gpt2 = cat(16 * 12 * 1024 * 64, FormatId::bf16);
  // Measured 15.5 us, 406 us (the 64 cache cats' mean) and 79.7 us; from the replica's 87 integer
  // instructions per element on the SM's integer lanes, nothing fitted.
  CHECK(b1.time_s == doctest::Approx(15.5e-6).epsilon(0.2));
  CHECK(b16.time_s == doctest::Approx(406e-6).epsilon(0.15));
  CHECK(gpt2.time_s == doctest::Approx(79.7e-6).epsilon(0.15));
  CHECK(memory_launch(g, memory_kernel("cat", 1024, 0, 1, FormatId::fp16)).ctas == 2 * 132);
  CHECK(b16.bound == "int32");
  // Far slower than a copy of the same bytes at the bandwidth (b16: 269 MB read and written).
  CHECK(b16.time_s > 4 * run_memory_kernel(g, memory_kernel("copy", 16 * 32 * 1025 * 128, 0, 1, FormatId::fp16)).time_s);
}

TEST_CASE("memory kernel: a cumsum along a dimension other than the innermost is a serial walk per column") {
  // A Switch router's running count per expert: [2 samples, 2048 tokens, 4 experts] int64, scanned
  // along the tokens (ATen's tensor_kernel_scan_outer_dim: a thread per column, 2048 steps each).
  const GpuConfig g = gpu::test::shipped("a100");
  Kernel k = memory_kernel("cumsum", 2 * 2048 * 4, 2048, 1, FormatId::fp32);
  k.bytes_read = k.bytes_written = 8 * 2 * 2048 * 4;  // int64
  const MemoryLaunch l = memory_launch(g, k);
  CHECK(l.ctas == 1);
  CHECK(l.threads_per_cta == 8);
  CHECK(l.dependent_loads == 2048);
  const KernelResult serial = run_memory_kernel(g, k);
  CHECK(serial.bound == "latency");
  // At least a round trip to L2 (its near partition) per step.
  CHECK(serial.cycles >= 2048 * g.l2_latency);
  // Without the scanned length it is an elementwise op over 16384 elements: microseconds.
  k.memory.row_length = 0;
  CHECK(run_memory_kernel(g, k).time_s * 20 < serial.time_s);
}

TEST_CASE("memory kernel: the bandwidth is shared by the running CTAs, so more SMs never slow a partial wave") {
  // MobileNet-v2's 112x112x96 batch norm at batch 32 through cuDNN's per-channel kernel: 96 CTAs. On
  // 87 SMs the busiest SM holds 2 of them; it gets 2/96 of the DRAM bandwidth, not 1/87 (which made
  // the kernel 1.5x slower on 87 SMs than on the L4's 58).
  GpuConfig g = gpu::test::shipped("l4");
  const std::int64_t n = std::int64_t(32) * 96 * 112 * 112;
  const Kernel bn = memory_kernel("batch_norm_nchw", n, n / 96, 2);
  double last = 0;
  for (int sms : {24, 48, 58, 64, 87, 95, 96, 116, 192}) {
    CAPTURE(sms);
    g.sm_count = sms;
    const KernelResult r = run_memory_kernel(g, bn);
    if (last > 0) CHECK(r.time_s <= last * 1.01);
    last = r.time_s;
  }
  // With the CTAs a multiple of the SMs the share is the old one: 96 CTAs on 48 SMs, 2 each.
  g.sm_count = 48;
  const KernelResult even = run_memory_kernel(g, bn);
  CHECK(even.time_s * g.clock_hz >= double(bn.bytes_read + bn.bytes_written) / (g.dram_bytes_per_clk() * g.dram_efficiency));
}
