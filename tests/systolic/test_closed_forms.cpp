// The closed forms of specs/systolic.md sections 3-5, per dataflow, and their agreement with the
// demand stream the DRAM model replays.
#include <doctest/doctest.h>

#include "systolic/systolic_test_util.h"

#include "systolic/schedule/demand_streams.h"
#include "systolic/schedule/fold_schedule.h"
#include "systolic/systolic_model.h"

using namespace tcsim;
using namespace tcsim::systolic;

namespace {

using systolic_test::conv;

SystolicConfig array(std::int64_t r, std::int64_t c, Dataflow df, std::uint64_t kib = 64) {
  SystolicConfig cfg;
  cfg.rows = r;
  cfg.cols = c;
  cfg.dataflow = df;
  cfg.ifmap_sram_bytes = cfg.filter_sram_bytes = cfg.ofmap_sram_bytes = kib * 1024;
  return cfg;
}

}  // namespace

TEST_CASE("SCALE-Sim output size has no padding and rounds up") {
  CHECK(scalesim_out_size(224, 7, 2) == 110);  // ceil(219 / 2), not 112
  CHECK(scalesim_out_size(56, 3, 1) == 54);
  CHECK(scalesim_out_size(7, 3, 1) == 5);
  CHECK(scalesim_out_size(56, 1, 2) == 29);  // ceil(57 / 2): the 1x1 stride-2 window overhangs too
}

TEST_CASE("cycles per layer, section 3: the spec's worked examples") {
  // test.csv: 7x7 input, 3x3x192 filter, 384 filters: M = 25, K = 1728, N = 384 on 32x32 os.
  const SystolicModel os(array(32, 32, Dataflow::os));
  const LayerReport a = os.run_layer(make_layer(conv(7, 7, 3, 3, 192, 384, 1), Semantics::scalesim_v2, "t"));
  CHECK(a.total_cycles == 1 * 12 * (1728 + 62) - 1);
  CHECK(a.total_cycles == 21479);
  CHECK(a.sram_ofmap.count == 10368);  // 25*384 + 12*(32+32): the OS write artefact
  // ResNet-18 layer 16 on 256x256 ws: M = 25, K = 4608, N = 512.
  SystolicConfig g = array(256, 256, Dataflow::ws, 6144);
  g.ofmap_sram_bytes = 2048 * 1024;
  const SystolicModel ws(g);
  const LayerReport b = ws.run_layer(make_layer(conv(7, 7, 3, 3, 512, 512, 1), Semantics::scalesim_v2, "t"));
  CHECK(b.total_cycles == 18 * 2 * (512 + 256 + 25 - 2) - 1);
  CHECK(b.total_cycles == 28475);
  CHECK(b.dram_ofmap.count == 230400);  // 18*25*512 partial sums reach DRAM
  CHECK(b.dram_filter.start == -239074);  // 2.36M filter words preloaded at 10 words/cycle
}

TEST_CASE("closed forms per dataflow: cycles, utilisation, mapping efficiency, SRAM counts") {
  const std::int64_t R = 8, C = 4;
  const Kernel k = conv(9, 10, 3, 2, 3, 6, 1);  // M = 7*9 = 63, K = 18, N = 6
  const Layer l = make_layer(k, Semantics::scalesim_v2, "t");
  REQUIRE(l.m() == 63);
  REQUIRE(l.k() == 18);
  const std::int64_t M = 63, K = 18, N = 6;
  struct Case {
    Dataflow df;
    std::int64_t Sr, Sc, T, fold;
  } cases[] = {{Dataflow::os, M, N, K, K + R + C - 2},
               {Dataflow::ws, K, N, M, 2 * R + C + M - 2},
               {Dataflow::is, K, M, N, 2 * R + C + N - 2}};
  for (const auto& cs : cases) {
    CAPTURE(to_string(cs.df));
    const SystolicModel model(array(R, C, cs.df, 1));
    const LayerReport r = model.run_layer(l);
    const std::int64_t Fr = (cs.Sr + R - 1) / R, Fc = (cs.Sc + C - 1) / C;
    CHECK(r.row_folds == Fr);
    CHECK(r.col_folds == Fc);
    CHECK(r.total_cycles == Fr * Fc * cs.fold - 1);
    CHECK(r.stall_cycles == 0);
    CHECK(r.overall_util_pct == doctest::Approx(100.0 * M * N * K / (double(r.total_cycles) * R * C)));
    CHECK(r.mapping_efficiency_pct == doctest::Approx(100.0 * cs.Sr * cs.Sc / (double(Fr * Fc) * R * C)));
    const double util_cycles = cs.df == Dataflow::os ? cs.fold : cs.fold + C - 1;
    CHECK(r.compute_util_pct == doctest::Approx(100.0 * cs.Sr * cs.Sc * cs.T / (double(Fr * Fc) * R * C * util_cycles)));
    switch (cs.df) {
      case Dataflow::os:
        CHECK(r.sram_ifmap.count == Fc * M * K);
        CHECK(r.sram_filter.count == Fr * K * N);
        CHECK(r.sram_ofmap.count == M * N + Fr * Fc * (R + C));
        break;
      case Dataflow::ws:
        CHECK(r.sram_ifmap.count == Fc * M * K);
        CHECK(r.sram_filter.count == K * N);
        CHECK(r.sram_ofmap.count == Fr * M * N);
        break;
      case Dataflow::is:
        CHECK(r.sram_ifmap.count == K * M);
        CHECK(r.sram_filter.count == Fc * K * N);
        CHECK(r.sram_ofmap.count == Fr * M * N);
        break;
    }
    // The replayed demand stream has exactly the closed-form number of reads (no overhang here)
    // and stays within the layer's rows.
    const FoldSchedule s = make_schedule(l, R, C, cs.df);
    const Im2col A(l);
    std::int64_t n_if = 0, n_fl = 0, max_row = -1;
    for_each_demand(l, s, A, Operand::ifmap, [&](std::int64_t row, std::int64_t) { ++n_if; max_row = std::max(max_row, row); });
    for_each_demand(l, s, A, Operand::filter, [&](std::int64_t row, std::int64_t) { ++n_fl; max_row = std::max(max_row, row); });
    CHECK(n_if == r.sram_ifmap.count);
    CHECK(n_fl == r.sram_filter.count);
    CHECK(max_row <= r.total_cycles);
    // Writes per row summed over all folds equal the real output writes.
    std::int64_t writes = 0;
    for (std::int64_t fc = 0; fc < s.Fc; ++fc)
      for (std::int64_t fr = 0; fr < s.Fr; ++fr)
        for (std::int64_t t = 0; t < s.fold_rows; ++t) writes += ofmap_writes_in_row(s, fr, fc, t);
    CHECK(writes == (cs.df == Dataflow::os ? M * N : Fr * M * N));
  }
}

TEST_CASE("CALC DRAM reads: an operand that fits in half its buffer is read exactly once") {
  const SystolicModel model(array(8, 8, Dataflow::os, 64));
  const LayerReport r = model.run_layer(make_layer(conv(12, 12, 3, 3, 4, 16, 1), Semantics::scalesim_v2, "t"));
  CHECK(r.dram_ifmap.count == 12 * 12 * 4);
  CHECK(r.dram_filter.count == 3 * 3 * 4 * 16);
  CHECK(r.dram_ofmap.count >= 10 * 10 * 16);  // plus the partial-line artefact at most
  CHECK(r.dram_ifmap.stop == -1);             // all preloaded before cycle 0
}

TEST_CASE("faithful semantics: padding, overlapped folds, fewer cycles than SCALE-Sim") {
  Kernel k = conv(56, 56, 3, 3, 64, 64, 1);
  k.conv.pad_h = k.conv.pad_w = 1;
  SystolicConfig v2 = array(32, 32, Dataflow::ws);
  SystolicConfig f = v2;
  f.semantics = Semantics::faithful;
  f.clock_hz = 1e9;
  const LayerReport a = SystolicModel(v2).run_layer(make_layer(k, Semantics::scalesim_v2, "t"));
  const Layer lf = make_layer(k, Semantics::faithful, "t");
  CHECK(lf.out_h == 56);  // padded: 56x56 outputs, SCALE-Sim gives 54x54
  const LayerReport b = SystolicModel(f).run_layer(lf);
  const std::int64_t folds = b.row_folds * b.col_folds;
  CHECK(b.total_cycles == 32 + folds * 56 * 56 + 32 + 32 - 2);
  CHECK(b.total_cycles < a.total_cycles * 56 * 56 / (54 * 54));
  CHECK(b.time_s == doctest::Approx(double(b.total_cycles) / 1e9));
}

TEST_CASE("very large GEMMs run in bounded memory (estimated DRAM counts)") {
  const SystolicModel model(array(32, 32, Dataflow::os));
  Kernel g = make_gemm("gpt3_ffn", 2048, 49152, 12288);
  const LayerReport r = model.run_layer(make_layer(g, Semantics::scalesim_v2, "t"));
  CHECK(r.total_cycles == 64 * 1536 * (12288 + 62) - 1);
  CHECK_FALSE(r.dram_filter.exact);
  CHECK(r.dram_filter.count >= 12288LL * 49152);
  CHECK(r.dram_ifmap.count >= 2048LL * 12288);
}
