// Faithful DRAM reads of the ifmap: distinct input elements, not im2col entries. A fold's ifmap
// transfer brings the input pixels x channels its windows touch, each once, never the padding; the
// whole-layer footprint is what any window touches. Every count here is checked against a brute
// force: enumerate the im2col entries of each block, keep the in-bounds (y, x, c) in a set.
#include <doctest/doctest.h>

#include "systolic/systolic_test_util.h"
#include "systolic/trace_test_util.h"
#include "test_support.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "systolic/memory/dram_estimate.h"
#include "systolic/faithful.h"
#include "systolic/schedule/fold_schedule.h"
#include "systolic/systolic_model.h"
#include "systolic/traces/traces.h"
#include "workload/kernel.h"

using namespace tcsim;
using namespace tcsim::systolic;
namespace fs = std::filesystem;

namespace {

Kernel padded_conv(std::int64_t h, std::int64_t w, std::int64_t fh, std::int64_t fw, std::int64_t c, std::int64_t n,
                   std::int64_t s, std::int64_t pad) {
  Kernel k = systolic_test::conv(h, w, fh, fw, c, n, s);
  k.conv.pad_h = k.conv.pad_w = pad;
  return k;
}

// The brute force: the distinct in-bounds input elements of the im2col entries (m, k) of a block,
// straight from the convolution's definition (not through layer.h's address helpers).
std::set<std::int64_t> brute_elements(const Layer& l, const Im2colBlock& b) {
  std::set<std::int64_t> out;
  for (std::int64_t m = b.m0; m < b.m1; ++m)
    for (std::int64_t k = b.k0; k < b.k1; ++k) {
      const std::int64_t oy = m / l.out_w, ox = m % l.out_w;
      const std::int64_t c = k % l.channels, fx = (k / l.channels) % l.filter_w, fy = k / (l.channels * l.filter_w);
      const std::int64_t y = oy * l.stride_h + fy - l.pad_h, x = ox * l.stride_w + fx - l.pad_w;
      if (y >= 0 && y < l.ifmap_h && x >= 0 && x < l.ifmap_w) out.insert((y * l.ifmap_w + x) * l.channels + c);
    }
  return out;
}

std::vector<std::int64_t> cursor_elements(const Layer& l, const Im2colBlock& b) {
  std::vector<std::int64_t> v;
  InputElementCursor cur(l, b);
  for (std::int64_t a; (a = cur.next()) >= 0;) v.push_back(a);
  return v;
}

// The addresses (not -1) of a trace file, without the cycle column.
std::vector<std::int64_t> trace_addresses(const fs::path& p) {
  std::ifstream in(p);
  REQUIRE_MESSAGE(in.good(), p.string());
  std::vector<std::int64_t> v;
  std::string line, cell;
  while (std::getline(in, line)) {
    std::stringstream ss(line);
    std::getline(ss, cell, ',');  // the cycle
    while (std::getline(ss, cell, ','))
      if (!cell.empty() && cell != "-1") v.push_back(std::stoll(cell));
  }
  return v;
}

}  // namespace

TEST_CASE("distinct_input_elements and InputElementCursor match a brute force on random blocks") {
  std::mt19937_64 rng(20261122);
  auto pick = [&](std::int64_t lo, std::int64_t hi) { return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng); };
#ifdef TCSIM_SANITIZED
  const int cases = 400;
#else
  const int cases = 3000;
#endif
  int comb = 0, padded = 0, skipped_pixels = 0;
  for (int i = 0; i < cases; ++i) {
    const std::int64_t pad = pick(0, 2), fh = pick(1, 4), fw = pick(1, 4);
    const std::int64_t h = std::max(pick(1, 10), fh - 2 * pad), w = std::max(pick(1, 10), fw - 2 * pad);
    Kernel k = padded_conv(h, w, fh, fw, pick(1, 4), 3, 1, pad);
    k.conv.stride_h = pick(1, 5);
    k.conv.stride_w = pick(1, 5);
    const Layer l = make_layer(k, Semantics::faithful, "random");
    const std::int64_t M = l.m(), K = l.k();
    Im2colBlock b;
    b.m0 = pick(0, M - 1);
    b.m1 = pick(b.m0 + 1, M);
    b.k0 = pick(0, K - 1);
    b.k1 = pick(b.k0 + 1, K);
    if (i % 4 == 0) b = {0, M, 0, K};  // the whole layer: the footprint
    CAPTURE(i);
    CAPTURE(h);
    CAPTURE(w);
    CAPTURE(fh);
    CAPTURE(fw);
    CAPTURE(l.channels);
    CAPTURE(l.stride_h);
    CAPTURE(l.stride_w);
    CAPTURE(pad);
    CAPTURE(b.m0);
    CAPTURE(b.m1);
    CAPTURE(b.k0);
    CAPTURE(b.k1);
    const std::set<std::int64_t> want = brute_elements(l, b);
    CHECK(distinct_input_elements(l, b) == static_cast<std::int64_t>(want.size()));
    std::vector<std::int64_t> got = cursor_elements(l, b);
    std::sort(got.begin(), got.end());
    CHECK(got == std::vector<std::int64_t>(want.begin(), want.end()));  // each element once, nothing else
    comb += l.stride_w > l.filter_w;
    padded += pad > 0;
    skipped_pixels += b.m1 - b.m0 == M && b.k1 - b.k0 == K && static_cast<std::int64_t>(want.size()) < l.ifmap_words();
  }
  CHECK(comb > 0);            // stride > filter: teeth, not intervals
  CHECK(padded > 0);          // windows reaching into the padding
  CHECK(skipped_pixels > 0);  // whole layers whose windows miss some pixels
}

TEST_CASE("faithful footprint: the elements some window touches") {
  const auto footprint = [](const Kernel& k) {
    const Layer l = make_layer(k, Semantics::faithful, "t");
    return distinct_input_elements(l, {0, l.m(), 0, l.k()});
  };
  // 2x2 windows at stride 3: rows and columns {0, 1, 3, 4, 6, 7} of 10x9; 3 channels.
  CHECK(footprint(padded_conv(10, 9, 2, 2, 3, 4, 3, 0)) == 6 * 6 * 3);
  // 1x1 stride 2 (ResNet's downsampling shortcut): every other pixel.
  CHECK(footprint(padded_conv(12, 12, 1, 1, 4, 6, 2, 0)) == 6 * 6 * 4);
  CHECK(footprint(padded_conv(56, 56, 1, 1, 64, 128, 2, 0)) == 28 * 28 * 64);
  // 7x7 stride 2 without padding on 224x224: 109 windows cover pixels 0..222, the last row and
  // column are never read.
  CHECK(footprint(padded_conv(224, 224, 7, 7, 3, 64, 2, 0)) == 223 * 223 * 3);
  // 3x3 stride 1 with padding: the whole input, nothing of the padding.
  CHECK(footprint(padded_conv(9, 8, 3, 3, 5, 4, 1, 1)) == 9 * 8 * 5);
  // A GEMM reads each A entry once.
  CHECK(footprint(make_gemm("g", 10, 7, 13)) == 10 * 13);
}

TEST_CASE("faithful ifmap DRAM reads equal the brute-force distinct elements per transfer (all dataflows)") {
  const Kernel kernels[] = {
      padded_conv(9, 8, 3, 3, 3, 5, 1, 1),    // 3x3 stride 1, padded: overlapping windows
      padded_conv(11, 10, 3, 2, 2, 6, 2, 1),  // non-square filter, stride 2, padded
      padded_conv(10, 9, 2, 2, 3, 4, 3, 0),   // stride > filter: pixels no window touches
      padded_conv(8, 7, 3, 3, 2, 4, 4, 2),    // stride > filter, with padding
      padded_conv(12, 12, 1, 1, 4, 6, 2, 0),  // 1x1 stride 2
      padded_conv(7, 7, 1, 1, 5, 3, 1, 0),    // 1x1 stride 1: im2col = the input
      padded_conv(8, 9, 5, 5, 2, 3, 2, 2),    // 5x5 stride 2, padding 2
      make_gemm("gemm", 10, 7, 13),           // GEMM: every entry its own element
  };
  const fs::path root = test::temp_dir("faithful_dram_reads");
  int n = 0, rereads = 0, fits = 0;
  for (Dataflow df : {Dataflow::os, Dataflow::ws, Dataflow::is})
    for (auto [rows, cols] : {std::pair{4, 4}, std::pair{3, 5}})
      for (std::uint64_t bytes : {200, 512, 2048, 65536}) {
        SystolicConfig cfg;
        cfg.semantics = Semantics::faithful;
        cfg.rows = rows;
        cfg.cols = cols;
        cfg.dataflow = df;
        cfg.bytes_from_formats = true;
        cfg.ifmap_sram_bytes = bytes;
        cfg.filter_sram_bytes = cfg.ofmap_sram_bytes = 65536;
        const SystolicModel model(cfg);
        for (const Kernel& k : kernels) {
          const Layer l = make_layer(k, Semantics::faithful, "t");
          REQUIRE(l.in_bytes == 2);
          const FoldSchedule s = make_schedule(l, rows, cols, df);
          const std::int64_t cap = static_cast<std::int64_t>(bytes / 2 / 2);
          // The rule, independently: the footprint once when it fits in half the buffer; else each
          // fold's block (column folds outer), unless it is the previous fold's block and fits.
          std::multiset<std::int64_t> want;
          const std::set<std::int64_t> all = brute_elements(l, {0, l.m(), 0, l.k()});
          std::int64_t want_count = 0;
          if (static_cast<std::int64_t>(all.size()) <= cap) {
            want.insert(all.begin(), all.end());
            want_count = static_cast<std::int64_t>(all.size());
            ++fits;
          } else {
            bool have_prev = false;
            Im2colBlock prev;
            for (std::int64_t fc = 0; fc < s.Fc; ++fc)
              for (std::int64_t fr = 0; fr < s.Fr; ++fr) {
                const std::int64_t r0 = fr * rows, r1 = std::min(r0 + rows, s.Sr);
                const std::int64_t c0 = fc * cols, c1 = std::min(c0 + cols, s.Sc);
                const Im2colBlock b = df == Dataflow::os   ? Im2colBlock{r0, r1, 0, l.k()}
                                      : df == Dataflow::ws ? Im2colBlock{0, l.m(), r0, r1}
                                                           : Im2colBlock{c0, c1, r0, r1};
                const std::set<std::int64_t> tile = brute_elements(l, b);
                const bool same = have_prev && b.m0 == prev.m0 && b.m1 == prev.m1 && b.k0 == prev.k0 && b.k1 == prev.k1;
                // (An ifmap block repeats only when there is one row fold, and then it is the
                // whole im2col, which fits only if the footprint does: kept for the rule's sake.)
                if (!(same && static_cast<std::int64_t>(tile.size()) <= cap)) {
                  want.insert(tile.begin(), tile.end());
                  want_count += static_cast<std::int64_t>(tile.size());
                }
                prev = b;
                have_prev = true;
              }
            rereads += want_count > static_cast<std::int64_t>(all.size());
          }
          const LayerReport r = model.run_layer(l);
          const fs::path dir = root / ("case" + std::to_string(n++));
          CAPTURE(n);
          CAPTURE(to_string(df));
          CAPTURE(cfg.rows);  // (not the structured binding: clang 14 cannot capture one)
          CAPTURE(bytes);
          CAPTURE(k.conv.ifmap_h);
          CHECK(r.dram_ifmap.count == want_count);
          // The trace lists exactly these elements (plus the offset), each once per transfer.
          write_layer_traces(dir, l, cfg, r, "t");
          std::vector<std::int64_t> got = trace_addresses(dir / "IFMAP_DRAM_TRACE.csv");
          for (std::int64_t& a : got) a -= cfg.ifmap_offset;
          std::sort(got.begin(), got.end());
          CHECK(got == std::vector<std::int64_t>(want.begin(), want.end()));
          const systolic_test::TraceSummary t = systolic_test::summarize(dir / "IFMAP_DRAM_TRACE.csv");
          CHECK(t.cells == r.dram_ifmap.count);
          CHECK(static_cast<double>(t.first) == r.dram_ifmap.start);
          CHECK(static_cast<double>(t.last) == r.dram_ifmap.stop);
          fs::remove_all(dir);
        }
      }
  CHECK(fits > 0);     // footprint read once
  CHECK(rereads > 0);  // tiles re-read, more than the footprint in total
  fs::remove_all(root);
}

TEST_CASE("faithful SRAM and DRAM start/stop are the overlapped timeline's, padding not read (random layers)") {
  // Heavy padding (up to 3 on each side, so whole windows and whole folds can be padding), strides
  // above the filter, arrays wider and narrower than the layer (folds overlap by more than their
  // period), small and large buffers: the report's SRAM start/stop must be the first/last cycle with
  // an address in the SRAM traces; each DRAM trace holds the report's count and spans its start/stop.
  std::mt19937_64 rng(7);
  auto pick = [&](std::int64_t lo, std::int64_t hi) { return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng); };
  const fs::path root = test::temp_dir("faithful_sram_spans");
#ifdef TCSIM_SANITIZED
  const int cases = 30;
#else
  const int cases = 200;
#endif
  for (int i = 0; i < cases; ++i) {
    const std::int64_t pad = pick(0, 3), fh = pick(1, 3), fw = pick(1, 3);
    Kernel k = padded_conv(pick(1, 7), pick(1, 7), fh, fw, pick(1, 3), pick(1, 9), 1, pad);
    k.conv.ifmap_h = std::max(k.conv.ifmap_h, fh - 2 * pad);
    k.conv.ifmap_w = std::max(k.conv.ifmap_w, fw - 2 * pad);
    k.conv.stride_h = pick(1, 4);
    k.conv.stride_w = pick(1, 4);
    SystolicConfig cfg;
    cfg.semantics = Semantics::faithful;
    cfg.rows = pick(1, 6);
    cfg.cols = pick(1, 6);
    cfg.dataflow = static_cast<Dataflow>(i % 3);
    const std::uint64_t sizes[] = {200, 400, 65536};
    cfg.ifmap_sram_bytes = sizes[pick(0, 2)];
    cfg.filter_sram_bytes = sizes[pick(0, 2)];
    cfg.ofmap_sram_bytes = sizes[pick(0, 2)];
    const Layer l = make_layer(k, Semantics::faithful, "t");
    const LayerReport r = SystolicModel(cfg).run_layer(l);
    const fs::path dir = root / ("case" + std::to_string(i));
    write_layer_traces(dir, l, cfg, r, "t");
    CAPTURE(i);
    CAPTURE(to_string(cfg.dataflow));
    const std::string shape = std::to_string(l.ifmap_h) + "x" + std::to_string(l.ifmap_w) + " f" + std::to_string(fh) +
                              "x" + std::to_string(fw) + " c" + std::to_string(l.channels) + " n" +
                              std::to_string(l.n()) + " s" + std::to_string(l.stride_h) + "," +
                              std::to_string(l.stride_w) + " p" + std::to_string(pad) + " array " +
                              std::to_string(cfg.rows) + "x" + std::to_string(cfg.cols);
    CAPTURE(shape);
    for (auto [file, span] : {std::pair{"IFMAP_SRAM_TRACE.csv", &r.sram_ifmap},
                              std::pair{"FILTER_SRAM_TRACE.csv", &r.sram_filter},
                              std::pair{"OFMAP_SRAM_TRACE.csv", &r.sram_ofmap}}) {
      const std::string name = file;
      CAPTURE(name);
      const systolic_test::TraceSummary t = systolic_test::summarize(dir / file);
      if (t.first_busy < 0) {  // nothing but padding: the report says 0, 0
        CHECK(span->start == 0);
        CHECK(span->stop == 0);
        continue;
      }
      CHECK(static_cast<double>(t.first_busy) == span->start);
      CHECK(static_cast<double>(t.last_busy) == span->stop);
    }
    for (auto [file, span] : {std::pair{"IFMAP_DRAM_TRACE.csv", &r.dram_ifmap},
                              std::pair{"FILTER_DRAM_TRACE.csv", &r.dram_filter},
                              std::pair{"OFMAP_DRAM_TRACE.csv", &r.dram_ofmap}}) {
      const std::string name = file;
      CAPTURE(name);
      const systolic_test::TraceSummary t = systolic_test::summarize(dir / file);
      CHECK(t.cells == span->count);
      CHECK(t.cells == t.addresses);
      if (t.rows == 0) continue;  // nothing to read (only padding)
      CHECK(static_cast<double>(t.first) == span->start);
      CHECK(static_cast<double>(t.last) == span->stop);
    }
    fs::remove_all(dir);
  }
  fs::remove_all(root);
}

TEST_CASE("faithful DRAM-bound cycles: every byte moved, plus fold 0's distinct tiles before compute") {
  // 1 byte per cycle: the layer is DRAM-bound; fold 0 must first load the distinct input elements
  // of its ifmap block (os: output positions 0 .. R-1, all K) and its K x C filter tile.
  const Kernel k = padded_conv(9, 8, 3, 3, 3, 5, 2, 1);
  SystolicConfig cfg;
  cfg.semantics = Semantics::faithful;
  cfg.rows = cfg.cols = 4;
  cfg.dataflow = Dataflow::os;
  cfg.bytes_from_formats = true;
  cfg.clock_hz = 1e9;
  cfg.dram_bandwidth_bytes_per_s = 1e9;
  const Layer l = make_layer(k, Semantics::faithful, "t");
  const LayerReport r = SystolicModel(cfg).run_layer(l);
  const std::int64_t bytes = 2 * (r.dram_ifmap.count + r.dram_filter.count) + 4 * r.dram_ofmap.count;
  const std::int64_t first = 2 * (static_cast<std::int64_t>(brute_elements(l, {0, 4, 0, l.k()}).size()) + l.k() * 4);
  const FoldSchedule s = make_schedule(l, 4, 4, Dataflow::os);
  REQUIRE(bytes > faithful_compute_cycles(s));
  CHECK(r.total_cycles == bytes + first);
  CHECK(r.stall_cycles == r.total_cycles - faithful_compute_cycles(s));
}
