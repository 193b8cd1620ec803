// The CALC-mode DRAM read fast paths (calc_dram_reads.h: order-free batches, blocks, all-miss
// closed forms, skipped folds, sweep extrapolation) against the plain per-access replay, on many
// random small and odd layers (shapes, strides, overhanging windows, channel counts, arrays, SRAM
// sizes, all three dataflows, both read operands). DRAM reads, start and stop cycles must be equal.
#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <sstream>
#include <vector>

#include "systolic/systolic_test_util.h"

#include "systolic/memory/calc_dram_reads.h"
#include "systolic/memory/calc_read_buffer.h"
#include "systolic/schedule/demand_runs.h"
#include "systolic/schedule/demand_streams.h"
#include "systolic/schedule/fold_schedule.h"
#include "systolic/schedule/layer.h"

using namespace tcsim;
using namespace tcsim::systolic;

namespace {

using systolic_test::conv;

#ifdef TCSIM_SANITIZED
constexpr int kRandomLayers = 120;
#else
constexpr int kRandomLayers = 1500;
#endif

// Seeded, portable (no std::uniform_int_distribution, whose output differs between libraries).
struct Rng {
  std::mt19937_64 g;
  explicit Rng(std::uint64_t seed) : g(seed) {}
  std::int64_t in(std::int64_t lo, std::int64_t hi) {  // [lo, hi]
    return lo + static_cast<std::int64_t>(g() % static_cast<std::uint64_t>(hi - lo + 1));
  }
};

struct Case {
  Layer layer;
  std::int64_t R = 1, C = 1;
  Dataflow df = Dataflow::os;
  std::uint64_t words = 100;
  std::string text;
};

Case random_case(Rng& rng) {
  Case c;
  Kernel k;
  if (rng.in(0, 5) == 0) {  // SCALE-Sim's GEMM form
    k.kind = Kernel::Kind::gemm;
    k.name = "gemm";
    k.m = rng.in(1, 40);
    k.n = rng.in(1, 60);
    k.k = rng.in(1, 120);
  } else {
    const std::int64_t h = rng.in(1, 14), w = rng.in(1, 14);
    const std::int64_t fh = rng.in(1, std::min<std::int64_t>(h, 5)), fw = rng.in(1, std::min<std::int64_t>(w, 5));
    k = conv(h, w, fh, fw, rng.in(1, 7), rng.in(1, 48), rng.in(1, 3));
    k.conv.stride_w = rng.in(0, 3) == 0 ? rng.in(1, 3) : k.conv.stride_h;
  }
  c.layer = make_layer(k, Semantics::scalesim_v2, "random");
  c.R = rng.in(1, 9);
  c.C = rng.in(1, 9);
  c.df = static_cast<Dataflow>(rng.in(0, 2));
  // cap = 50 * floor(words / 100): from 50 words (thrashing) to more than most footprints
  c.words = static_cast<std::uint64_t>(rng.in(100, 100 * (rng.in(0, 2) == 0 ? 4 : 40)) + rng.in(0, 99));
  std::ostringstream os;
  const Layer& l = c.layer;
  os << "ifmap " << l.ifmap_h << "x" << l.ifmap_w << "x" << l.channels << " filter " << l.filter_h << "x"
     << l.filter_w << " n " << l.num_filters << " stride " << l.stride_h << "," << l.stride_w << " array " << c.R
     << "x" << c.C << " " << to_string(c.df) << " sram " << c.words << " words";
  c.text = os.str();
  return c;
}

std::int64_t first_valid_row(const Layer& l, const FoldSchedule& s, const Im2col& A, Operand op) {
  return op == Operand::ifmap ? valid_row_span(l, s, A, op).first : filter_row_span(s).first;
}

void check_against_reference(const Case& c, int& replayed) {
  const FoldSchedule s = make_schedule(c.layer, c.R, c.C, c.df);
  const ClosedFormCounts cf = closed_form_counts(c.layer, s);
  const Im2col A(c.layer);
  for (Operand op : {Operand::ifmap, Operand::filter}) {
    const std::int64_t reads = op == Operand::ifmap ? cf.ifmap_sram_reads : cf.filter_sram_reads;
    const DramSpan ref = calc_dram_reads_reference(c.layer, s, A, op, c.words);
    const DramSpan fast = calc_dram_reads(c.layer, s, A, op, c.words, reads, first_valid_row(c.layer, s, A, op));
    INFO(c.text << (op == Operand::ifmap ? " ifmap" : " filter"));
    CHECK(fast.exact);
    CHECK(fast.accesses == ref.accesses);
    CHECK(fast.start == ref.start);
    CHECK(fast.stop == ref.stop);
    replayed += ref.accesses >= CalcReadBuffer::kActiveSets * static_cast<std::int64_t>(c.words / 100);
  }
}

}  // namespace

TEST_CASE("CALC DRAM reads: fast paths equal the per-access replay on random layers") {
  Rng rng(20261122);
  int refetching = 0;  // operands that fill at least one epoch (the interesting ones)
  for (int i = 0; i < kRandomLayers; ++i) check_against_reference(random_case(rng), refetching);
  MESSAGE(refetching << " of " << 2 * kRandomLayers << " operands fill at least one epoch");
  CHECK(refetching > kRandomLayers / 2);
}

TEST_CASE("CALC DRAM reads: fast paths equal the per-access replay on hand-picked layers") {
  // Shapes that reach each fast path: is filters larger than an epoch over many column folds
  // (all-miss closed form), os filter tiles larger than an epoch (all-miss folds) and smaller
  // (skipped repeats), os/ws ifmap sweeps that become periodic, ws ifmaps where every access
  // misses, blocks of rows with several boundaries per fold, a 1x1 stride-2 layer whose last
  // window lies wholly outside the input, a ResNet-like 3x3 layer on a 16x16 array.
  struct Hand {
    Kernel k;
    std::int64_t R, C;
    std::uint64_t words;
  };
  const std::vector<Hand> hands = {
      {conv(14, 14, 3, 3, 16, 64, 1), 8, 8, 2000},   {conv(14, 14, 3, 3, 16, 64, 1), 8, 8, 100},
      {conv(15, 15, 1, 1, 8, 32, 2), 4, 4, 600},     {conv(28, 28, 3, 3, 16, 32, 1), 16, 16, 4100},
      {conv(9, 9, 3, 3, 32, 96, 1), 8, 4, 1000},     {conv(20, 20, 7, 7, 3, 16, 2), 8, 8, 900},
      {conv(7, 7, 3, 3, 64, 64, 1), 8, 8, 3300},     {conv(12, 10, 2, 4, 5, 40, 3), 3, 5, 300},
  };
  int refetching = 0;
  for (const Hand& h : hands)
    for (Dataflow df : {Dataflow::os, Dataflow::ws, Dataflow::is}) {
      Case c;
      c.layer = make_layer(h.k, Semantics::scalesim_v2, "hand");
      c.R = h.R;
      c.C = h.C;
      c.df = df;
      c.words = h.words;
      c.text = h.k.name + " " + to_string(df) + " sram " + std::to_string(h.words);
      check_against_reference(c, refetching);
    }
  CHECK(refetching > 20);
}

TEST_CASE("FoldDemand: runs() cover exactly the accesses of exact() and for_each_demand, row range by row range") {
  Rng rng(7);
  for (int i = 0; i < 300; ++i) {
    const Case c = random_case(rng);
    const FoldSchedule s = make_schedule(c.layer, c.R, c.C, c.df);
    const Im2col A(c.layer);
    for (Operand op : {Operand::ifmap, Operand::filter}) {
      INFO(c.text << (op == Operand::ifmap ? " ifmap" : " filter"));
      const FoldDemand D(c.layer, s, A, op);
      const std::int64_t f = rng.in(0, s.folds() - 1);
      std::vector<std::pair<std::int64_t, std::int64_t>> stream;  // for_each_demand over fold f
      for_each_demand(c.layer, s, A, op, [&](std::int64_t row, std::int64_t a) { stream.emplace_back(row, a); }, f,
                      f + 1);
      std::vector<std::pair<std::int64_t, std::int64_t>> exact;
      D.exact(f, 0, s.fold_rows, [&](std::int64_t row, std::int64_t a) { exact.emplace_back(row, a); });
      CHECK(exact == stream);
      if (op == Operand::filter) {  // filters have no -1 entries: row_entries counts them all
        std::int64_t n = 0;
        for (std::int64_t t = 0; t < s.fold_rows; ++t) n += D.row_entries(f, t);
        CHECK(n == static_cast<std::int64_t>(stream.size()));
        bool rows_ok = true;
        for (std::size_t j = 0; j < stream.size(); ++j)
          rows_ok = rows_ok && f * s.fold_rows + D.row_of_entry(f, static_cast<std::int64_t>(j)) == stream[j].first;
        CHECK(rows_ok);
      }
      const std::int64_t t0 = rng.in(0, s.fold_rows), t1 = rng.in(t0, s.fold_rows);
      std::vector<std::int64_t> want, got;
      for (const auto& [row, a] : stream)
        if (row >= f * s.fold_rows + t0 && row < f * s.fold_rows + t1) want.push_back(a);
      D.runs(f, t0, t1, [&](std::int64_t start, std::int64_t len) {
        for (std::int64_t j = 0; j < len; ++j) got.push_back(start + j);
        return true;
      });
      std::sort(want.begin(), want.end());
      std::sort(got.begin(), got.end());
      CHECK(got == want);
    }
  }
}

TEST_CASE("CalcReadBuffer: order-free batches equal per-access replay, through many stamp renumberings") {
  // Random batches of addresses; each batch is offered order-free and, when refused, replayed in
  // order. More than 65535 batches: the 16-bit stamps are renumbered several times.
  Rng rng(99);
  const std::int64_t space = 300;
  for (std::uint64_t words : {100u, 700u, 20000u}) {
    CalcReadBuffer fast(words, space), plain(words, space);
    std::int64_t row = 0;
    std::vector<std::int64_t> batch;
#ifdef TCSIM_SANITIZED
    const int batches = 70000;
#else
    const int batches = 140000;
#endif
    for (int b = 0; b < batches; ++b) {
      batch.clear();
      const std::int64_t n = rng.in(1, 6);
      for (std::int64_t j = 0; j < n; ++j) batch.push_back(rng.in(0, space - 1));
      for (std::int64_t a : batch) plain.access(row, a);
      const bool done = fast.try_runs([&](auto&& emit) {
        for (std::int64_t a : batch)
          if (!emit(a, 1)) return;
      });
      if (!done)
        for (std::int64_t a : batch) fast.access(row, a);
      ++row;
    }
    INFO("sram words " << words);
    CHECK(fast.misses() == plain.misses());
    CHECK(fast.triggers() == plain.triggers());
    CHECK(fast.last_trigger_row() == plain.last_trigger_row());
    CHECK(fast.in_epoch_count() == plain.in_epoch_count());
  }
}
