// --traces in `semantics: faithful` (faithful_traces.h): for padded layers of every dataflow, with
// real byte sizes (fp16 operands, fp32 outputs), operands that fit in half their buffer and ones
// that are re-read per fold, and ws/is partial sums kept in the ofmap buffer or sent to DRAM, the
// DRAM trace cells equal the report's DRAM words and start/stop at its DRAM start/stop, with no -1
// cells (the ifmap reads are distinct input elements, padding excluded; test_faithful_dram_reads.cpp
// checks which elements); the SRAM traces follow the overlapped timeline (one row per compute
// cycle), hold every SRAM access and start/stop at the report's SRAM start/stop.
#include <doctest/doctest.h>

#include "systolic/systolic_test_util.h"
#include "systolic/trace_test_util.h"
#include "test_support.h"

#include <filesystem>
#include <string>

#include "systolic/schedule/demand_streams.h"
#include "systolic/faithful.h"
#include "systolic/schedule/fold_schedule.h"
#include "systolic/systolic_model.h"
#include "systolic/traces/traces.h"
#include "workload/kernel.h"

using namespace tcsim;
using namespace tcsim::systolic;
namespace fs = std::filesystem;
using systolic_test::conv;
using systolic_test::summarize;
using systolic_test::TraceSummary;

TEST_CASE("faithful traces agree with the faithful report (every dataflow, padding, byte sizes)") {
  const fs::path root = test::temp_dir("faithful_traces");
  Kernel kernels[] = {conv(12, 12, 3, 3, 8, 20, 1), conv(9, 7, 2, 3, 5, 37, 2)};
  for (Kernel& k : kernels) k.conv.pad_h = k.conv.pad_w = 1;
  int n = 0, rereads = 0, ifmap_rereads = 0, psums = 0;
  for (Dataflow df : {Dataflow::os, Dataflow::ws, Dataflow::is})
    for (std::uint64_t kib : {64, 2}) {
      SystolicConfig cfg;
      cfg.semantics = Semantics::faithful;
      cfg.rows = cfg.cols = 8;
      cfg.dataflow = df;
      cfg.ifmap_sram_bytes = cfg.filter_sram_bytes = cfg.ofmap_sram_bytes = kib * 1024;
      const SystolicModel model(cfg);
      for (const Kernel& k : kernels) {
        const Layer layer = make_layer(k, Semantics::faithful, "test");
        REQUIRE(layer.in_bytes == 2);
        REQUIRE(layer.out_bytes == 4);
        const LayerReport r = model.run_layer(layer);
        const FoldSchedule s = make_schedule(layer, cfg.rows, cfg.cols, df);
        const fs::path dir = root / ("case" + std::to_string(n++));
        CAPTURE(n);
        write_layer_traces(dir, layer, cfg, r, "test layer");
        for (auto entry : {std::pair{"IFMAP_DRAM_TRACE.csv", &r.dram_ifmap},
                           std::pair{"FILTER_DRAM_TRACE.csv", &r.dram_filter},
                           std::pair{"OFMAP_DRAM_TRACE.csv", &r.dram_ofmap}}) {
          const auto file = entry.first;  // named copies: CAPTURE cannot take a structured binding (clang 14)
          const auto span = entry.second;
          CAPTURE(file);
          const TraceSummary t = summarize(dir / file);
          CHECK(t.increasing);
          CHECK(t.cells == span->count);
          CHECK(static_cast<double>(t.first) == span->start);
          CHECK(static_cast<double>(t.last) == span->stop);
          CHECK(t.cells == t.addresses);  // padding is never read or written: no -1 cells
        }
        rereads += r.dram_filter.count > layer.k() * layer.n();
        ifmap_rereads += r.dram_ifmap.count > layer.ifmap_words();
        psums += r.dram_ofmap.count > layer.m() * layer.n();
        // SRAM: one row per cycle of the overlapped timeline (no DRAM bandwidth limit here).
        CHECK(r.total_cycles == faithful_compute_cycles(s));
        const TraceSummary fi = summarize(dir / "IFMAP_SRAM_TRACE.csv"), ff = summarize(dir / "FILTER_SRAM_TRACE.csv"),
                           fo = summarize(dir / "OFMAP_SRAM_TRACE.csv");
        for (const TraceSummary* t : {&fi, &ff, &fo}) {
          CHECK(t->rows == r.total_cycles);
          CHECK(t->first == 0);
          CHECK(t->increasing);
        }
        CHECK(fo.last_busy <= r.total_cycles - 1);
        // The report's SRAM start/stop: the first/last cycle with an address in each SRAM trace.
        for (auto [t, span] : {std::pair{&fi, &r.sram_ifmap}, std::pair{&ff, &r.sram_filter}, std::pair{&fo, &r.sram_ofmap}}) {
          CHECK(static_cast<double>(t->first_busy) == span->start);
          CHECK(static_cast<double>(t->last_busy) == span->stop);
        }
        CHECK(ff.addresses == r.sram_filter.count);
        CHECK(fo.addresses == r.sram_ofmap.count);
        // ifmap: every valid (not padding) im2col element, once per column fold (os, ws) or once (is).
        const Im2col A(layer);
        std::int64_t valid = 0;
        for (std::int64_t m = 0; m < layer.m(); ++m)
          for (std::int64_t kk = 0; kk < layer.k(); ++kk) valid += A(m, kk) >= 0;
        CHECK(fi.addresses == (df == Dataflow::is ? valid : s.Fc * valid));
        CHECK(fi.cells == (df == Dataflow::is ? s.C : s.R) * r.total_cycles);  // one cell per port
      }
    }
  CHECK(rereads > 0);  // fold tiles re-read
  CHECK(psums > 0);    // ws/is partial sums to DRAM
  CHECK(ifmap_rereads > 0);  // ifmap tiles re-read (their windows reach the padding)
  fs::remove_all(root);
}
