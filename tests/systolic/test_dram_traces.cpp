// --traces DRAM traces (CALC mode): for small layers, every dataflow, with SRAMs large enough
// to prefetch everything before compute and small enough to refetch, the number of addresses in
// IFMAP/FILTER_DRAM_TRACE.csv equals the layer report's DRAM reads, the cells of
// OFMAP_DRAM_TRACE.csv its DRAM writes, and the first/last rows of each are its DRAM start/stop
// cycles (what DETAILED_ACCESS_REPORT.csv prints).
#include <doctest/doctest.h>

#include "systolic/systolic_test_util.h"
#include "systolic/trace_test_util.h"
#include "test_support.h"
#include <unistd.h>

#include <filesystem>
#include <string>

#include "systolic/systolic_model.h"
#include "systolic/traces/traces.h"
#include "workload/kernel.h"

using namespace tcsim;
using namespace tcsim::systolic;
namespace fs = std::filesystem;

namespace {

using systolic_test::conv;
using systolic_test::summarize;
using systolic_test::TraceSummary;

void check_file(const fs::path& p, const AccessSpan& report) {
  const TraceSummary t = summarize(p);
  INFO(p.string());
  REQUIRE(report.exact);
  CHECK(t.increasing);
  CHECK(t.addresses == report.count);
  CHECK(static_cast<double>(t.first) == report.start);
  CHECK(static_cast<double>(t.last) == report.stop);
}

}  // namespace

TEST_CASE("DRAM traces agree with the layer report (CALC mode, every dataflow)") {
  const fs::path root = fs::temp_directory_path() / ("tcsim_dram_traces_" + std::to_string(::getpid()));
  fs::remove_all(root);
  const Kernel kernels[] = {conv(20, 20, 3, 3, 8, 40, 1), conv(12, 12, 3, 3, 16, 20, 2), conv(9, 7, 2, 3, 5, 37, 1)};
  int n = 0, padded = 0;
  for (Dataflow df : {Dataflow::os, Dataflow::ws, Dataflow::is})
    for (std::uint64_t kib : {64, 2, 1}) {  // 64 KiB: all before compute; 1-2 KiB: refetches
      SystolicConfig cfg;
      cfg.rows = cfg.cols = 8;
      cfg.dataflow = df;
      cfg.ifmap_sram_bytes = cfg.filter_sram_bytes = cfg.ofmap_sram_bytes = kib * 1024;
      const SystolicModel model(cfg);
      for (const Kernel& k : kernels) {
        const Layer layer = make_layer(k, Semantics::scalesim_v2, "test");
        const LayerReport r = model.run_layer(layer);
        const fs::path dir = root / ("case" + std::to_string(n++));
        CAPTURE(n);
        write_layer_traces(dir, layer, cfg, r, "test layer");
        check_file(dir / "IFMAP_DRAM_TRACE.csv", r.dram_ifmap);
        check_file(dir / "FILTER_DRAM_TRACE.csv", r.dram_filter);
        // OFMAP: the report counts SCALE-Sim's padded partial lines, written as -1 cells; the real
        // addresses are exactly the words written to the OFMAP SRAM (every one reaches DRAM).
        const TraceSummary o = summarize(dir / "OFMAP_DRAM_TRACE.csv");
        CHECK(o.cells == r.dram_ofmap.count);
        padded += o.cells > o.addresses;
        CHECK(o.addresses == summarize(dir / "OFMAP_SRAM_TRACE.csv").addresses);
        CHECK(static_cast<double>(o.first) == r.dram_ofmap.start);
        CHECK(static_cast<double>(o.last) == r.dram_ofmap.stop);
      }
    }
  CHECK(padded > 0);  // the cases include SCALE-Sim's partial-line artefact
  fs::remove_all(root);
}

TEST_CASE("DRAM read traces: a refetching layer has transfers during compute") {
  // Filter K*N = 72*40 words against a 1 KiB SRAM (epochs of 500 words): the trace must reach
  // past cycle 0, i.e. the test above exercises the epoch boundaries, not just the prefetch.
  const fs::path dir = fs::temp_directory_path() / ("tcsim_dram_traces_b_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  SystolicConfig cfg;
  cfg.rows = cfg.cols = 8;
  cfg.dataflow = Dataflow::ws;
  cfg.ifmap_sram_bytes = cfg.filter_sram_bytes = cfg.ofmap_sram_bytes = 1024;
  const Layer layer = make_layer(conv(20, 20, 3, 3, 8, 40, 1), Semantics::scalesim_v2, "test");
  const LayerReport r = SystolicModel(cfg).run_layer(layer);
  write_layer_traces(dir, layer, cfg, r, "test layer");
  const TraceSummary t = summarize(dir / "FILTER_DRAM_TRACE.csv");
  CHECK(t.first < 0);
  CHECK(t.last > 0);
  CHECK(t.addresses == r.dram_filter.count);
  CHECK(t.addresses > 72 * 40 - 1);  // every filter word at least once
  fs::remove_all(dir);
}

TEST_CASE("OFMAP DRAM trace: the final flush may start while a drain is still writing") {
  // ws 8x8 with 1 KiB SRAMs, GEMM 40x24x36: a drain of 64 lines (cycles 902 .. 965) is still
  // writing at the last compute cycle (929), where the final flush starts (929 .. 953).
  // write_buffer.py writes the lines in drain order, and the report's stop cycle is the flush's
  // last line (953), not the latest cycle of the file (965). The trace keeps that order.
  const fs::path dir = tcsim::test::temp_dir("dram_traces_flush");
  SystolicConfig cfg;
  cfg.rows = cfg.cols = 8;
  cfg.dataflow = Dataflow::ws;
  cfg.ifmap_sram_bytes = cfg.filter_sram_bytes = cfg.ofmap_sram_bytes = 1024;
  const Layer layer = make_layer(make_gemm("a", 40, 24, 36), Semantics::scalesim_v2, "test");
  const LayerReport r = SystolicModel(cfg).run_layer(layer);
  write_layer_traces(dir, layer, cfg, r, "test layer");
  const TraceSummary o = summarize(dir / "OFMAP_DRAM_TRACE.csv");
  CHECK(o.cells == r.dram_ofmap.count);
  CHECK(static_cast<double>(o.first) == r.dram_ofmap.start);
  CHECK(static_cast<double>(o.last) == r.dram_ofmap.stop);
  CHECK(r.dram_ofmap.stop == 953);
  CHECK(o.max == 965);
  CHECK_FALSE(o.increasing);
  fs::remove_all(dir);
}
