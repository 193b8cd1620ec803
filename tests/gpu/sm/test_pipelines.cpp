// Each pipeline of the SM model: an instruction that waits for a unit or a value is not issued
// one cycle before it is ready and is issued exactly when it is; closed-form MMA-bound runs.
#include <doctest/doctest.h>

#include "gpu/sm/sm_sim.h"
#include "gpu/gpu_test_util.h"

namespace tcsim::gpu {
namespace {

// V100 with integer tensor timings (16 SASS x 2 cycles, latency 5) so cycles are exact.
GpuConfig exact_v100() {
  GpuConfig g = test::shipped("v100");
  g.mma[0].issue_interval = 2;
  g.mma[0].latency = 5;
  return g;
}

Instr mk(Op op, int dst = -1, int src = -1) {
  Instr i;
  i.op = op;
  i.dst = std::int16_t(dst);
  i.src[0] = std::int16_t(src);
  return i;
}

Instr mma(int dst, int src = -1, int count = 1) {
  Instr i = mk(Op::mma, dst, src);
  i.mma = 0;
  i.count = count;
  i.dst2 = std::int16_t(dst);
  return i;
}

double issue_cycle(const SmRunStats& s, int warp, std::size_t pc, int section = 1) {
  for (const auto& r : s.issues)
    if (r.warp == warp && r.pc == pc && r.section == section) return r.cycle;
  FAIL("instruction never issued");
  return -1;
}

SmEnvironment env(double bpc = 1e9, double latency = 1) {
  SmEnvironment e;
  e.global_bytes_per_clk = bpc;
  e.global_latency = latency;
  e.record_issues = true;
  return e;
}

}  // namespace

TEST_CASE("tensor pipe: a second warp on the same sub-core issues when the first MMA frees it") {
  const GpuConfig g = exact_v100();
  WarpProgram p;
  p.body = {mma(0)};
  p.slots = 1;
  // 5 warps: warps 0 and 4 share sub-core 0.
  const SmRunStats s = simulate_sm(g, p, 5, 1, env());
  CHECK(issue_cycle(s, 0, 0) == 0);
  CHECK(issue_cycle(s, 4, 0) == 32);  // 16 SASS x 2 cycles: not at 31, at 32
  CHECK(issue_cycle(s, 1, 0) == 0);   // other sub-cores are free
}

TEST_CASE("tensor dependence: a dependent MMA issues when the producer's result is ready") {
  const GpuConfig g = exact_v100();
  WarpProgram p;
  p.body = {mma(0), mma(0, 0)};
  p.slots = 1;
  const SmRunStats s = simulate_sm(g, p, 1, 1, env());
  CHECK(issue_cycle(s, 0, 1) == 15 * 2 + 5);
  CHECK(s.cycles == 35 + 15 * 2 + 5);
}

TEST_CASE("shared memory: LDS bandwidth and latency gate the consuming MMA") {
  const GpuConfig g = exact_v100();
  WarpProgram p;
  Instr lds = mk(Op::lds, 0);
  lds.bytes = 256;  // 2 cycles at 128 B/clk
  p.body = {lds, mma(1, 0)};
  p.slots = 2;
  const SmRunStats s = simulate_sm(g, p, 1, 1, env());
  CHECK(issue_cycle(s, 0, 1) == 2 + g.smem_latency);
}

TEST_CASE("shared memory: the SM takes one LDS/STS instruction every two cycles, so LDS.32 runs at half the banks' rate") {
  // Huerta et al. (MICRO 2025) Table 1: one memory instruction every 2 cycles from any sub-core. A
  // group of 16 LDS.32 (128 B each, one bank cycle) holds the pipe 32 cycles, not 16; 4 LDS.128
  // (512 B, 4 bank cycles each) stay bank-bound at 16; a group given as bytes alone counts as the
  // widest accesses (2048 B: 4 instructions, bank-bound too).
  GpuConfig g = exact_v100();
  g.smem_instruction_interval = 2;  // shared_memory.instruction_interval of the Turing and Ampere files
  auto lds_then_mma = [&](double bytes, int count) {
    WarpProgram p;
    Instr lds = mk(Op::lds, 0);
    lds.bytes = bytes, lds.count = count;
    p.body = {lds, mma(1, 0)};
    p.slots = 2;
    const SmRunStats s = simulate_sm(g, p, 1, 1, env());
    return issue_cycle(s, 0, 1) - g.smem_latency;
  };
  CHECK(lds_then_mma(16 * 128, 16) == 32);
  CHECK(lds_then_mma(4 * 512, 4) == 16);
  CHECK(lds_then_mma(2048, 1) == 16);
  // Two warps' STS.32 groups queue behind each other at the same rate.
  WarpProgram p;
  Instr sts = mk(Op::sts);
  sts.bytes = 8 * 128, sts.count = 8;
  Instr lds = mk(Op::lds, 0);
  lds.bytes = 128, lds.count = 1;
  p.body = {sts, lds, mma(1, 0)};
  p.slots = 2;
  const SmRunStats s = simulate_sm(g, p, 2, 1, env());
  CHECK(s.smem_busy == doctest::Approx(2 * (16 + 2)));
  // Without an interval (v100.yaml: not measured) the banks alone set the rate.
  g.smem_instruction_interval = 0;
  CHECK(lds_then_mma(16 * 128, 16) == 16);
  CHECK(test::shipped("v100").smem_instruction_interval == 0);
  CHECK(test::shipped("a100").smem_instruction_interval == 2);
  CHECK(test::shipped("h100").smem_instruction_interval == 0);
}

TEST_CASE("global memory: data arrives after latency + transfer, or after the bandwidth queue") {
  const GpuConfig g = exact_v100();
  WarpProgram p;
  Instr ldg = mk(Op::ldg, 0);
  ldg.bytes = 512;
  Instr sts = mk(Op::sts, -1, 0);
  sts.bytes = 512;
  p.body = {ldg, sts};
  p.slots = 1;
  // Unloaded: 300 latency + 512 B over the 128 B/clk link.
  CHECK(issue_cycle(simulate_sm(g, p, 1, 1, env(64, 300)), 0, 1) == 304);
  // A tiny share of the bandwidth: the queue (512 B at 1 B/clk) dominates.
  CHECK(issue_cycle(simulate_sm(g, p, 1, 1, env(1, 300)), 0, 1) == 512);
}

// A body of one group of `count` FFMAs.
WarpProgram ffma_program(int count) {
  WarpProgram p;
  Instr f = mk(Op::ffma, 0);
  f.count = count;
  p.body = {f};
  p.slots = 1;
  return p;
}

TEST_CASE("FFMA pipe: 16 lanes per sub-core take 2 cycles per warp instruction") {
  const GpuConfig g = exact_v100();
  const WarpProgram p = ffma_program(4);
  const SmRunStats s = simulate_sm(g, p, 5, 1, env());
  CHECK(issue_cycle(s, 4, 0) == 8);
  CHECK(s.ffma == 2 * 5 * 4 * 32 / 2.0 * 1.0);  // 5 warps x 4 FFMA x 32 lanes (/2 x 2 = exact count)
}

TEST_CASE("sub-cores: a warp's sub-core is its SM-wide warp slot, so 2-warp CTAs fill all four") {
  const GpuConfig g = exact_v100();
  const WarpProgram p = ffma_program(64);
  // Two CTAs of two warps: one warp per sub-core, so all four finish their 64 FFMAs (128 cycles of
  // the 16-lane pipe) together. Mapping by the CTA-local index would put both CTAs on sub-cores 0-1.
  const SmRunStats two = simulate_sm(g, p, 2, 2, env());
  const SmRunStats four = simulate_sm(g, p, 4, 1, env());
  CHECK(two.cycles == four.cycles);
  CHECK(two.cycles < 1.5 * 128);
}

TEST_CASE("barrier: every warp leaves the cycle after the last one arrives") {
  const GpuConfig g = exact_v100();
  WarpProgram p;
  Instr wait_mma = mma(0);
  wait_mma.leader_only = true;  // only warp 0 is delayed before the barrier
  Instr dep = mma(1, 0);
  dep.leader_only = true;
  p.body = {wait_mma, dep, mk(Op::bar), mk(Op::cp_commit)};
  p.slots = 2;
  const SmRunStats s = simulate_sm(g, p, 2, 1, env());
  const double arrive0 = issue_cycle(s, 0, 2);
  CHECK(arrive0 == 35 + 30 + 1);  // dependent MMA at 35, its last SASS at 35 + 30, then the barrier
  CHECK(issue_cycle(s, 1, 3) == arrive0 + 1);
  CHECK(issue_cycle(s, 0, 3) == arrive0 + 1);
}

TEST_CASE("cp.async: wait_group 0 releases the warp when the group's data has landed") {
  const GpuConfig g = exact_v100();
  WarpProgram p;
  Instr cp = mk(Op::cp_async);
  cp.bytes = 1024;
  Instr wait = mk(Op::cp_wait);
  wait.arg = 0;
  p.body = {cp, mk(Op::cp_commit), wait, mk(Op::bar)};
  const SmRunStats s = simulate_sm(g, p, 1, 1, env(1e9, 200));
  CHECK(issue_cycle(s, 0, 2) == 200 + 1024 / 128);  // the wait itself completes on arrival
}

TEST_CASE("closed form: an MMA-only (ideal memory) run takes exactly its MMA issue time plus one latency") {
  const GpuConfig g = exact_v100();
  WarpProgram p;
  p.body = {mma(0, -1, 8), mma(1, -1, 8)};
  p.slots = 2;
  p.iterations = 50;
  const SmRunStats s = simulate_sm(g, p, 4, 1, env());  // one warp per sub-core
  const double sass = 50.0 * 16 * 16;                   // per sub-core
  CHECK(s.cycles == (sass - 1) * 2 + 5);
  CHECK(s.tensor_fma == doctest::Approx(4 * 50 * 16 * 4096.0));
}

TEST_CASE("CTA relay: a refilled slot's loads overlap the retired CTA's stores, which queue apart") {
  const GpuConfig g = exact_v100();
  WarpProgram p;
  Instr ldg = mk(Op::ldg, 0);
  ldg.bytes = 1024;
  Instr sts = mk(Op::sts, -1, 0);  // waits for the load
  sts.bytes = 128;
  Instr stg = mk(Op::stg);
  stg.bytes = 4096;
  p.prologue = {ldg, sts};
  p.epilogue = {stg};
  p.slots = 1;
  // 8 B/clk, latency 300: the load's data is there at 300 + 1024 B over the 128 B/clk link = 308;
  // the store drains for 4096 / 8 = 512 cycles after it issues.
  const double one = simulate_sm(g, p, 1, 1, env(8, 300)).cycles;
  CHECK(one == 309 + 512);  // the store issues at 309
  // The second CTA starts the cycle after the first retires; its load waits for no store, so only
  // its store, queued behind the first one's, adds to the time.
  const SmRunStats two = simulate_sm(g, p, 1, 1, env(8, 300), 2);
  CHECK(two.cycles == one + 512);
  CHECK(two.global_write_bytes == 2 * 4096);
  // Two slots of 2 CTAs each (one warp each, on sub-cores 0 and 1, so both issue together): the
  // four stores drain back to back, every load hidden under them.
  CHECK(simulate_sm(g, p, 1, 2, env(8, 300), 4).cycles == 309 + 4 * 512);
}

}  // namespace tcsim::gpu
