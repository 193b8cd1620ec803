// Shared-memory bank conflicts and register-file read ports: the wavefront calculator on known
// patterns, the tile layouts the kernel programs use, and their effect on the SM simulation
// (closed forms, and "not ready at t-1, ready at t" for the RF ports).
#include <doctest/doctest.h>

#include <array>
#include <set>
#include <stdexcept>
#include <vector>

#include "gpu/kernel_program.h"
#include "gpu/gemm/program_costs.h"
#include "gpu/sm/rf_ports.h"
#include "gpu/sm/sm_sim.h"
#include "gpu/sm/smem_banks.h"
#include "gpu/gpu_test_util.h"

namespace tcsim::gpu {
namespace {

const SmemBankGeometry kGeo{32, 4};

std::vector<std::int64_t> lanes(int n, std::int64_t stride, std::int64_t base = 0) {
  std::vector<std::int64_t> a(std::size_t(n), 0);
  for (int l = 0; l < n; ++l) a[std::size_t(l)] = base + l * stride;
  return a;
}

SmEnvironment env() {
  SmEnvironment e;
  e.global_bytes_per_clk = 1e9;
  e.global_latency = 1;
  e.record_issues = true;
  return e;
}

double issue_cycle(const SmRunStats& s, int warp, std::size_t pc) {
  for (const auto& r : s.issues)
    if (r.warp == warp && r.pc == pc && r.section == 1) return r.cycle;
  FAIL("instruction never issued");
  return -1;
}

Instr ffma_group(int count, const RfReads& rf) {
  Instr i;
  i.op = Op::ffma;
  i.count = count;
  i.rf_reads = float(rf.reads);
  i.rf_bank_reads = float(rf.busiest_bank);
  return i;
}

// n FFMAs reading the given three registers each (no reuse cache).
RfReads ffma_reads(int n, int ra, int rb, int rc, int banks, bool reuse = false) {
  std::vector<SassSources> seq(static_cast<std::size_t>(n));
  for (auto& s : seq) s.slot = {RegRange{ra, 1}, RegRange{rb, 1}, RegRange{rc, 1}};
  return count_rf_reads(seq, banks, reuse);
}

}  // namespace

TEST_CASE("bank conflicts: the textbook patterns") {
  CHECK(smem_wavefronts(lanes(32, 4), 4, kGeo) == 1);          // stride-1 words
  CHECK(smem_wavefronts(lanes(32, 8), 4, kGeo) == 2);          // stride 2 words: 2-way
  CHECK(smem_wavefronts(lanes(32, 128), 4, kGeo) == 32);       // stride 32 words: all in bank 0
  CHECK(smem_wavefronts(lanes(32, 132), 4, kGeo) == 1);        // stride 33 words (padded): conflict-free
  CHECK(smem_wavefronts(lanes(32, 0, 64), 4, kGeo) == 1);      // broadcast
  CHECK(smem_wavefronts(lanes(32, 2), 2, kGeo) == 1);          // 16-bit lanes share words
  CHECK(smem_wavefronts(lanes(32, 8), 8, kGeo) == 2);          // 8 B per lane: two half-warp phases
  CHECK(smem_wavefronts(lanes(32, 16), 16, kGeo) == 4);        // 16 B per lane linear: four quarter warps
  CHECK(smem_wavefronts(lanes(32, 0), 16, kGeo) == 4);         // LDS.128 broadcast still returns 4 x 128 B
  CHECK(smem_wavefronts(lanes(32, 0), 16, kGeo, true) == 2);   // ... 2 with the cc 7.x uniform-pair packing
  CHECK(smem_wavefronts(lanes(32, 256), 16, kGeo) == 32);      // 16 B at a 256 B stride: 8-way per phase
  std::vector<std::int64_t> half = lanes(32, 4);
  for (int l = 16; l < 32; ++l) half[std::size_t(l)] = -1;  // inactive lanes
  CHECK(smem_wavefronts(half, 4, kGeo) == 1);
  CHECK(smem_wavefronts(std::vector<std::int64_t>(32, -1), 4, kGeo) == 0);
  CHECK_THROWS_AS(smem_wavefronts(lanes(32, 4), 12, kGeo), std::invalid_argument);
  CHECK_THROWS_AS(smem_wavefronts(lanes(32, 4, 2), 4, kGeo), std::invalid_argument);
  CHECK_THROWS_AS(smem_wavefronts(lanes(33, 4), 4, kGeo), std::invalid_argument);
}

TEST_CASE("ldmatrix: 8 rows at a 128 B stride conflict 8-way unswizzled, not at all XOR-swizzled") {
  std::vector<std::int64_t> plain, swizzled;
  for (int m = 0; m < 4; ++m)       // .x4: four matrices, vector column m
    for (int r = 0; r < 8; ++r) {
      plain.push_back(r * 128 + m * 16);
      swizzled.push_back(r * 128 + ((m ^ r) * 16));
    }
  CHECK(ldmatrix_wavefronts(plain, kGeo) == 4 * 8);
  CHECK(ldmatrix_wavefronts(swizzled, kGeo) == 4);
  CHECK(ldmatrix_wavefronts(std::span<const std::int64_t>(swizzled).first(8), kGeo) == 1);
  // The same through the tile layouts.
  const SmemTile none{64, 128, SmemSwizzle::none, 0}, xr{64, 128, SmemSwizzle::xor_128b, 0};
  CHECK(fragment_wavefronts(none, kGeo, FragmentRead::ldmatrix, 0, 8, 0, 16) == 8);
  CHECK(fragment_wavefronts(xr, kGeo, FragmentRead::ldmatrix, 0, 8, 0, 16) == 1);
  // Padding by 16 B also removes the conflict (the classic alternative to swizzling).
  const SmemTile padded{64, 128, SmemSwizzle::none, 16};
  CHECK(fragment_wavefronts(padded, kGeo, FragmentRead::ldmatrix, 0, 8, 0, 16) == 1);
}

TEST_CASE("tile layouts are permutations of the tile") {
  const std::vector<SmemTile> tiles = {{32, 64, SmemSwizzle::xor_128b, 0},     {32, 256, SmemSwizzle::xor_128b, 0},
                                       {128, 64, SmemSwizzle::volta_crosswise, 0}, {32, 256, SmemSwizzle::volta_congruous, 0},
                                       {64, 128, SmemSwizzle::xor_128b, 0}};
  for (const auto& t : tiles) {
    std::set<std::int64_t> seen;
    for (int r = 0; r < t.strided; ++r)
      for (int b = 0; b < t.contiguous_bytes; b += 8) {
        const std::int64_t o = t.offset(r, b);
        CHECK(o >= 0);
        CHECK(o + 8 <= std::int64_t(t.strided) * t.contiguous_bytes);
        seen.insert(o);
      }
    CHECK(seen.size() == std::size_t(t.strided) * t.contiguous_bytes / 8);
  }
}

TEST_CASE("Volta layouts: conflict-free for their access patterns, conflicted unswizzled") {
  // Congruous (M-contiguous, 128 halves = 256 B per k-row), LDS.128 phases of 4 k-rows x 2 vectors.
  const SmemTile cong{32, 256, SmemSwizzle::volta_congruous, 0}, cong_plain{32, 256, SmemSwizzle::none, 0};
  CHECK(fragment_wavefronts(cong, kGeo, FragmentRead::volta_lds128, 0, 16, 0, 128) == 16);
  CHECK(fragment_wavefronts(cong_plain, kGeo, FragmentRead::volta_lds128, 0, 16, 0, 128) == 16 * 4);
  // Crosswise (K-contiguous, 32 halves = 64 B per row), LDS.64 phases of 16 rows.
  const SmemTile cross{128, 64, SmemSwizzle::volta_crosswise, 0}, cross_plain{128, 64, SmemSwizzle::none, 0};
  CHECK(fragment_wavefronts(cross, kGeo, FragmentRead::volta_lds64, 0, 64, 0, 32) == 16);
  CHECK(fragment_wavefronts(cross_plain, kGeo, FragmentRead::volta_lds64, 0, 64, 0, 32) == 16 * 8);
  // Their copies: 16-byte global vectors, STS.128 (congruous) or 2 x STS.64 (crosswise).
  CHECK(copy_wavefronts(cong, kGeo, 2048, 16, 16) == 16);
  CHECK(copy_wavefronts(cross, kGeo, 2048, 16, 8) == 16);
  CHECK(copy_wavefronts(cross_plain, kGeo, 2048, 16, 8) > 16);
}

TEST_CASE("the kernel programs' shared-memory accesses are conflict-free where CUTLASS's are") {
  struct Case {
    const char* config;
    FormatId ab, acc;
  };
  const Case cases[] = {{"v100", FormatId::fp16, FormatId::fp32}, {"v100", FormatId::fp16, FormatId::fp16},
                        {"t4", FormatId::fp16, FormatId::fp32},   {"a100", FormatId::fp16, FormatId::fp32},
                        {"a100", FormatId::tf32, FormatId::fp32}, {"a100", FormatId::int8, FormatId::int32},
                        {"h100", FormatId::fp16, FormatId::fp32}};
  int checked = 0;
  for (const auto& c : cases) {
    const GpuConfig g = test::shipped(c.config);
    const MmaInstr* row = g.find_mma(c.ab, c.acc);
    REQUIRE(row != nullptr);
    const int row_index = int(row - g.mma.data());
    for (int layout = 0; layout < 4; ++layout) {
      GemmProblem p;
      p.m = p.n = p.k = 4096;
      p.ab = c.ab, p.acc = c.acc;
      p.a_bytes = p.b_bytes = format_bits(c.ab) / 8.0;
      p.a_k_contiguous = layout & 1, p.b_k_contiguous = layout & 2;
      for (const Mapping& m : candidate_mappings(g, p, MathPath::tensor, row_index)) {
        const ProgramCosts pc = program_costs(g, p, m);
        const std::string what = std::string(c.config) + " " + m.describe(g) + " layout " + std::to_string(layout);
        INFO(what);
        if (row->kind == MmaKind::wgmma) {
          const double bytes = (m.wm * row->k * p.a_bytes + m.wn * row->k * p.b_bytes) / 4.0;
          CHECK(pc.wgmma_wavefronts == doctest::Approx(bytes / 128));
        } else {
          CHECK(pc.lds_wavefronts == doctest::Approx(pc.lds_ideal));
          CHECK(pc.copy_wavefronts == doctest::Approx(pc.copy_ideal));
        }
        // Real GEMM main loops are not RF-bound: the group's busiest bank needs fewer port cycles
        // than the tensor pipe spends on the group.
        const int group = row->kind == MmaKind::wgmma ? m.wm / row->m : (m.wm / row->m) * (m.wn / row->n);
        const double pipe = group * row->pipe_cycles(row->kind == MmaKind::wgmma ? m.wn : row->n);
        CHECK(pc.math.busiest_bank / g.rf_read_ports_per_bank < pipe);
        ++checked;
      }
    }
  }
  CHECK(checked > 50);
}

TEST_CASE("SIMT sgemm: LDS.128 fragment loads pack uniform lane pairs on Volta; FFMA groups are not RF-bound") {
  const GpuConfig g = test::shipped("v100");
  GemmProblem p;
  p.m = p.n = p.k = 4096;
  p.ab = p.acc = p.out = FormatId::fp32;
  p.a_bytes = p.b_bytes = p.c_bytes = 4;
  int checked = 0;
  for (const Mapping& m : candidate_mappings(g, p, MathPath::cuda_core, -1)) {
    const ProgramCosts pc = program_costs(g, p, m);
    // wm/16 A loads and wn/32 B loads per k, each LDS.128 2 wavefronts (4 without pair packing).
    CHECK(pc.lds_wavefronts == doctest::Approx(2.0 * (m.wm / 16 + m.wn / 32)));
    CHECK(pc.copy_wavefronts == doctest::Approx(pc.copy_ideal));
    const int ffma = m.wm * m.wn / 32;
    CHECK(pc.math.busiest_bank / g.rf_read_ports_per_bank < ffma * 32.0 / g.fp32_lanes_per_subcore);
    ++checked;
  }
  CHECK(checked > 0);
  GpuConfig a100 = test::shipped("a100");  // no pair packing after sm_75
  Mapping m;
  m.path = MathPath::cuda_core, m.bm = m.bn = 128, m.wm = 32, m.wn = 64, m.warps = 8, m.bk = 8;
  CHECK(program_costs(a100, p, m).lds_wavefronts == doctest::Approx(4.0 * (2 + 2)));
}

TEST_CASE("RF reads: Volta wmma sets and steps, reuse across a group, bank-aware allocation") {
  const GpuConfig v = test::shipped("v100");
  // wmma m16n16k16 fp32 acc: 4 sets x 4 steps; A and B (2 + 2 registers) once per set, 2 accumulator
  // registers per step: 4 x 4 + 16 x 2 = 48, half in each bank.
  const RfReads f32 = mma_group_rf_reads(v, v.mma[0], 1, 1);
  CHECK(f32.reads == 48);
  CHECK(f32.busiest_bank == 24);
  const RfReads f16 = mma_group_rf_reads(v, v.mma[1], 1, 1);  // 4 sets x 2 steps
  CHECK(f16.reads == 4 * 4 + 8 * 2);
  // A100 m16n8k16: A 4, B 2, C 4 registers; a 2x2 group (m outer, n serpentine) reuses A along n
  // and B at the turn: A 2 x 4 + B 3 x 2 + C 4 x 4.
  const GpuConfig a = test::shipped("a100");
  CHECK(mma_group_rf_reads(a, a.mma[0], 2, 2).reads == 8 + 6 + 16);
  // FFMA 8x8 outer product: C 64 + B 64 - 7 (serpentine turns) + A 8.
  CHECK(ffma_group_rf_reads(v, 8, 8).reads == 129);
  CHECK(ffma_group_rf_reads(v, 8, 8).busiest_bank == 65);
}

TEST_CASE("RF ports: an FFMA conflicts only when all three sources sit in one bank (Volta, 2 banks x 1 port)") {
  GpuConfig g = test::shipped("v100");
  const int n = 8, iters = 20;
  auto run = [&](const RfReads& rf) {
    WarpProgram p;
    p.body = {ffma_group(n, rf)};
    p.body[0].dst2 = 0;
    p.slots = 1;
    p.iterations = iters;
    return simulate_sm(g, p, 1, 1, env());
  };
  // R0, R2, R4: bank 0 three times per FFMA -> 3 port cycles per FFMA against the pipe's 2.
  const RfReads one_bank = ffma_reads(n, 0, 2, 4, g.rf_banks_per_subcore);
  CHECK(one_bank.busiest_bank == 3 * n);
  const SmRunStats throttled = run(one_bank);
  // Closed form: group i issues at 3 n i; the last group's FFMAs finish 2 n later, + latency.
  CHECK(throttled.cycles == 3.0 * n * (iters - 1) + 2.0 * n + g.ffma_latency);
  CHECK(issue_cycle(throttled, 0, 0) == 0);
  // R0, R2, R1: two reads in bank 0 per 2-cycle FFMA: no stall.
  const SmRunStats two_banks = run(ffma_reads(n, 0, 2, 1, g.rf_banks_per_subcore));
  CHECK(two_banks.cycles == 2.0 * n * iters + g.ffma_latency);
  // The same registers again and again: the reuse cache serves them.
  const RfReads reused = ffma_reads(n, 0, 2, 4, g.rf_banks_per_subcore, true);
  CHECK(reused.reads == 3);
  CHECK(run(reused).cycles == two_banks.cycles);
  CHECK(throttled.rf_busy == doctest::Approx(3.0 * n * iters));
}

TEST_CASE("RF ports: a second warp's group is not issued at t-1, it is at t") {
  GpuConfig g = test::shipped("v100");
  RfReads rf;
  rf.reads = rf.busiest_bank = 9;  // 9 port cycles, the FFMA pipe only 2
  WarpProgram p;
  p.body = {ffma_group(1, rf)};
  p.slots = 1;
  // Warps 0 and 4 share sub-core 0.
  const SmRunStats s = simulate_sm(g, p, 5, 1, env());
  CHECK(issue_cycle(s, 0, 0) == 0);
  CHECK(issue_cycle(s, 4, 0) == 9);
  CHECK(issue_cycle(s, 1, 0) == 0);  // other sub-cores have their own ports
  g.rf_read_ports_per_bank = 3;      // 3 ports: 3 cycles
  CHECK(issue_cycle(simulate_sm(g, p, 5, 1, env()), 4, 0) == 3);
  // An MMA waits for the ports the same way.
  GpuConfig e = test::shipped("v100");
  e.mma[0].issue_interval = 2, e.mma[0].latency = 5;
  Instr mma;
  mma.op = Op::mma, mma.mma = 0, mma.rf_reads = mma.rf_bank_reads = 40;  // longer than the 32-cycle pipe
  WarpProgram q;
  q.body = {mma};
  CHECK(issue_cycle(simulate_sm(e, q, 5, 1, env()), 4, 0) == 40);
}

TEST_CASE("shared memory: an 8-way conflicted LDS stream runs at the closed-form wavefront rate") {
  const GpuConfig g = test::shipped("v100");  // 128 B/clk = 32 banks x 4 B
  const int warps = 8, iters = 25;
  auto run = [&](double wavefronts) {
    WarpProgram p;
    Instr lds;
    lds.op = Op::lds;
    lds.bytes = 512;  // one LDS.128 of the warp
    lds.smem_wavefronts = float(wavefronts);
    lds.dst = 0;
    p.body = {lds};
    p.slots = 1;
    p.iterations = iters;
    return simulate_sm(g, p, warps, 1, env());
  };
  // LDS.128 of 32 lanes: consecutive 16 B (4 wavefronts) or at a 256 B stride (8-way: 32).
  const int clean_wf = smem_wavefronts(lanes(32, 16), 16, kGeo), conflicted_wf = smem_wavefronts(lanes(32, 256), 16, kGeo);
  REQUIRE(clean_wf == 4);
  REQUIRE(conflicted_wf == 32);
  // Shared-memory-bound: every warp's loads back to back, then the last one's latency.
  const SmRunStats clean = run(clean_wf), conflicted = run(conflicted_wf);
  CHECK(clean.cycles == 4.0 * warps * iters + g.smem_latency);
  CHECK(conflicted.cycles == 32.0 * warps * iters + g.smem_latency);
  CHECK(conflicted.smem_wavefronts == 32.0 * warps * iters);
  // Without a count the bytes decide (conflict-free).
  CHECK(run(0).cycles == clean.cycles);
}

TEST_CASE("trace dump shows wavefronts and RF reads") {
  const GpuConfig g = test::shipped("v100");
  const KernelProgram kp = kernel_program(g, make_gemm("p", 2048, 2048, 2048));
  const std::string text = dump_program(g, kp, 0);
  CHECK(text.find("wavefronts]") != std::string::npos);
  CHECK(text.find("[RF ") != std::string::npos);
}

// tf32 on sm_80: ldmatrix.trans has no 32-bit form, so an M/N-contiguous tf32 operand's fragments
// are read with one LDS.32 per 32 elements (CUTLASS TensorOpMultiplicandCongruous<32, 32>); a
// K-contiguous one, and every fp16 operand, keep one ldmatrix issue per k-step group.
TEST_CASE("tf32 fragments of M/N-contiguous operands cost one LDS.32 issue per 32 elements") {
  const GpuConfig g = test::shipped("a100");
  for (const FormatId ab : {FormatId::tf32, FormatId::fp16}) {
    const MmaInstr* row = g.find_mma(ab, FormatId::fp32);
    REQUIRE(row != nullptr);
    for (int layout = 0; layout < 4; ++layout) {
      GemmProblem p;
      p.m = p.n = p.k = 4096;
      p.ab = ab, p.acc = FormatId::fp32;
      p.a_bytes = p.b_bytes = format_bits(ab) / 8.0;
      p.a_k_contiguous = layout & 1, p.b_k_contiguous = layout & 2;
      const auto maps = candidate_mappings(g, p, MathPath::tensor, int(row - g.mma.data()));
      REQUIRE(!maps.empty());
      for (const Mapping& m : maps) {
        INFO(m.describe(g) << " layout " << layout);
        int expected = 1;
        if (ab == FormatId::tf32 && layout != 3) {
          // m16n8k4 k-step: wm x 4 A elements, wn x 4 B elements, 32 per LDS.32; plus one ldmatrix
          // for a K-contiguous partner operand.
          expected = (p.a_k_contiguous ? 1 : m.wm * 4 / 32) + (p.b_k_contiguous ? 1 : m.wn * 4 / 32);
          if (!p.a_k_contiguous && !p.b_k_contiguous) expected = (m.wm + m.wn) * 4 / 32;
        }
        CHECK(program_costs(g, p, m).lds_instructions == expected);
        const WarpProgram w = build_program(g, p, m, 8);
        for (const Instr& in : w.body)
          if (in.op == Op::lds) CHECK(in.count == expected);
      }
    }
  }
}

// CUTLASS GenerateSM80_TensorOp_1688: tf32 CTA tiles have BK 16 or 32 (3-10 stages), never 64; the
// 16-bit tiles keep BK 32/64. A BK-16 fp32 k-tile holds the bytes of a BK-32 fp16 one.
TEST_CASE("sm_80 tf32 candidate tiles have BK 16 or 32, fp16 ones 32 or 64") {
  const GpuConfig g = test::shipped("a100");
  for (const FormatId ab : {FormatId::tf32, FormatId::fp16}) {
    const MmaInstr* row = g.find_mma(ab, FormatId::fp32);
    REQUIRE(row != nullptr);
    GemmProblem p;
    p.m = p.n = p.k = 4096;
    p.ab = ab, p.acc = FormatId::fp32;
    p.a_bytes = p.b_bytes = format_bits(ab) / 8.0;
    std::set<int> bks;
    for (const Mapping& m : candidate_mappings(g, p, MathPath::tensor, int(row - g.mma.data()))) bks.insert(m.bk);
    if (ab == FormatId::tf32) CHECK(bks == std::set<int>{16, 32});
    else CHECK(bks == std::set<int>{32, 64});
  }
}

}  // namespace tcsim::gpu
