// --traces in USER bandwidth mode (SCALE-Sim v2's read_buffer.py / write_buffer.py traces): for
// small layers of every dataflow, SRAMs that refetch and SRAMs that hold everything, and several
// bandwidths, the DRAM trace files add up to the report's DRAM counts (cells, -1 included: SCALE-Sim
// counts whole lines) and start/stop at its DRAM start/stop cycles; the SRAM traces carry the
// stalled cycles (their first/last busy rows are the report's SRAM start/stop cycles, the last
// OFMAP row is Total Cycles). Also: v2's prefetch-line rules by hand.
#include <doctest/doctest.h>

#include "systolic/systolic_test_util.h"
#include "systolic/trace_test_util.h"
#include "test_support.h"

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "systolic/systolic_model.h"
#include "systolic/traces/traces.h"
#include "workload/kernel.h"

using namespace tcsim;
using namespace tcsim::systolic;
namespace fs = std::filesystem;
using systolic_test::conv;
using systolic_test::summarize;
using systolic_test::TraceSummary;

namespace {

SystolicConfig user_array(Dataflow df, std::uint64_t bytes, double bw) {
  SystolicConfig cfg;
  cfg.rows = cfg.cols = 8;
  cfg.dataflow = df;
  cfg.ifmap_sram_bytes = cfg.filter_sram_bytes = cfg.ofmap_sram_bytes = bytes;
  cfg.bandwidth_mode = BandwidthMode::user;
  cfg.user_bandwidth_words = bw;
  return cfg;
}

void check_dram(const fs::path& p, const AccessSpan& report) {
  INFO(p.string());
  const TraceSummary t = summarize(p);
  CHECK((t.increasing || p.filename() == "OFMAP_DRAM_TRACE.csv"));  // see OfmapDramTrace
  CHECK(t.cells == report.count);
  CHECK(static_cast<double>(t.first) == report.start);
  CHECK(static_cast<double>(t.last) == report.stop);
}

void check_sram(const fs::path& p, const AccessSpan& report) {
  INFO(p.string());
  const TraceSummary t = summarize(p);
  CHECK(static_cast<double>(t.first_busy) == report.start);
  CHECK(static_cast<double>(t.last_busy) == report.stop);
}

std::vector<std::vector<std::string>> rows_of(const fs::path& p) {
  std::ifstream in(p);
  std::vector<std::vector<std::string>> out;
  std::string line, cell;
  while (std::getline(in, line)) {
    std::stringstream ss(line);
    out.emplace_back();
    while (std::getline(ss, cell, ',')) out.back().push_back(cell);
  }
  return out;
}

}  // namespace

TEST_CASE("USER-mode traces agree with the layer report (every dataflow)") {
  const fs::path root = test::temp_dir("user_traces");
  const Kernel kernels[] = {conv(12, 12, 3, 3, 8, 20, 1), conv(9, 7, 2, 3, 5, 37, 2)};
  int n = 0, stalled = 0, refetched = 0, padded_ofmap = 0;
  for (Dataflow df : {Dataflow::os, Dataflow::ws, Dataflow::is})
    for (std::uint64_t bytes : {65536, 1200})  // everything fits / refetches (1200: sets of 12 words)
      for (double bw : {7.0, 2.0}) {
        const SystolicConfig cfg = user_array(df, bytes, bw);
        const SystolicModel model(cfg);
        for (const Kernel& k : kernels) {
          const Layer layer = make_layer(k, Semantics::scalesim_v2, "test");
          const LayerReport r = model.run_layer(layer);
          REQUIRE(r.notes.empty());  // replayed, not the stall-free fallback
          const fs::path dir = root / ("case" + std::to_string(n++));
          CAPTURE(n);
          write_layer_traces(dir, layer, cfg, r, "test layer");
          check_dram(dir / "IFMAP_DRAM_TRACE.csv", r.dram_ifmap);
          check_dram(dir / "FILTER_DRAM_TRACE.csv", r.dram_filter);
          check_dram(dir / "OFMAP_DRAM_TRACE.csv", r.dram_ofmap);
          const TraceSummary od = summarize(dir / "OFMAP_DRAM_TRACE.csv");
          padded_ofmap += od.cells > od.addresses;
          check_sram(dir / "IFMAP_SRAM_TRACE.csv", r.sram_ifmap);
          check_sram(dir / "FILTER_SRAM_TRACE.csv", r.sram_filter);
          check_sram(dir / "OFMAP_SRAM_TRACE.csv", r.sram_ofmap);
          const TraceSummary os = summarize(dir / "OFMAP_SRAM_TRACE.csv");
          CHECK(os.increasing);
          CHECK(os.last == r.total_cycles);  // the serviced cycle of the last demand row
          CHECK(os.rows == r.total_cycles - r.stall_cycles + 1);  // one row per demand row
          CHECK(od.addresses == os.addresses);  // every word written reaches DRAM
          stalled += r.stall_cycles > 0;
          refetched += r.dram_ifmap.stop > -1 || r.dram_filter.stop > -1;
        }
      }
  // The cases cover stalls, prefetches during compute and SCALE-Sim's partial-line artefact.
  CHECK(stalled > 0);
  CHECK(refetched > 0);
  CHECK(padded_ofmap > 0);
  fs::remove_all(root);
}

TEST_CASE("USER-mode DRAM read trace: read_buffer.py's lines, by hand") {
  // os 8x8, GEMM M = 8, N = 1, K = 60: the ifmap prefetch order is A(m, k) = 60m + k unrolled
  // along anti-diagonals of the 60 x 8 tile (480 entries, no padding). 200-word SRAM at 7 words
  // per cycle: active half 100 words -> initial fill ceil(100/7) = 15 lines at cycles -15 .. -1,
  // the last keeping 100 % 7 = 2 slots; prefetch lines L = 15, the first starting at line 15 with
  // its first 2 slots dropped and (15 * 7 > 100) its last line cut to 2 slots, the next ones
  // starting at line L % 69 = 15 again (v2 does not advance the start).
  const fs::path dir = test::temp_dir("user_trace_lines");
  const SystolicConfig cfg = user_array(Dataflow::os, 200, 7);
  const Layer layer = make_layer(make_gemm("g", 8, 1, 60), Semantics::scalesim_v2, "t");
  const LayerReport r = SystolicModel(cfg).run_layer(layer);
  write_layer_traces(dir, layer, cfg, r, "t");
  const auto rows = rows_of(dir / "IFMAP_DRAM_TRACE.csv");
  REQUIRE(rows.size() >= 15 + 2 * 15);
  // Anti-diagonal d holds A(m, d - m) for m from min(d, 7) down: 0, 1, 60, 2, 61, 120, 3, ...
  CHECK(rows[0] == std::vector<std::string>{"-15", "0", "1", "60", "2", "61", "120", "3"});
  CHECK(rows[14][0] == "-1");
  CHECK(rows[14][3] == "-1");  // slots 2.. of the 15th line dropped
  CHECK(rows[15][0] == "1");    // prefetch 1 at cycles 1 .. 15
  CHECK(rows[15][1] == "-1");
  CHECK(rows[15][2] == "-1");
  CHECK(rows[15][3] != "-1");
  CHECK(rows[29][0] == "15");
  CHECK(rows[29][3] == "-1");
  CHECK(rows[30][0] == "17");  // prefetch 2 after a 1-cycle gap, the same lines again
  for (std::size_t i = 0; i < 15; ++i)
    CHECK(std::vector<std::string>(rows[30 + i].begin() + 1, rows[30 + i].end()) ==
          std::vector<std::string>(rows[15 + i].begin() + 1, rows[15 + i].end()));
  CHECK(r.dram_ifmap.count == 7 * static_cast<std::int64_t>(rows.size()));
  fs::remove_all(dir);
}

TEST_CASE("USER-mode traces reproduce SCALE-Sim's USER reference run (two ResNet-18 layers)") {
  const fs::path ref = test::shared_dir() / "data/scalesim/v2_scale_32x32_os_userbw10_Resnet18";
  if (!fs::exists(ref / "DETAILED_ACCESS_REPORT.csv")) {
    MESSAGE("shared/data/scalesim not found: skipped");
    return;
  }
  // Conv3_s (layer 7: 20001 stall cycles) and FC (layer 20: filter prefetches during compute).
  const fs::path dir = test::temp_dir("user_traces_ref");
  const fs::path topo = dir / "t.csv";
  fs::create_directories(dir);
  std::ofstream(topo) << "Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, Num Filter, "
                         "Strides,\nConv3_s,56,56,1,1,64,128,2,\nFC,1,1,1,1,512,1000,1,\n";
  const auto run = systolic_test::run_tcsim("run -c " + (test::shared_dir() / "data/scalesim/inputs/scale_32x32_os_userbw10.cfg").string() +
                                   " --topology " + topo.string() + " --traces -o " + (dir / "out").string());
  REQUIRE_MESSAGE(run.exit_code == 0, run.err);
  const auto ref_rows = rows_of(ref / "DETAILED_ACCESS_REPORT.csv");
  const auto ref_compute = rows_of(ref / "COMPUTE_REPORT.csv");
  const int ref_layer[] = {7, 20};
  for (int i = 0; i < 2; ++i) {
    CAPTURE(i);
    const auto& d = ref_rows[static_cast<std::size_t>(ref_layer[i] + 1)];  // after the header
    auto num = [&](std::size_t col) { return static_cast<std::int64_t>(std::stod(d[col])); };
    const fs::path l = dir / "out" / ("layer" + std::to_string(i));
    const char* files[] = {"IFMAP_DRAM_TRACE.csv", "FILTER_DRAM_TRACE.csv", "OFMAP_DRAM_TRACE.csv"};
    for (int f = 0; f < 3; ++f) {
      CAPTURE(files[f]);
      const TraceSummary t = summarize(l / files[f]);
      CHECK(t.first == num(10 + 3 * static_cast<std::size_t>(f)));
      CHECK(t.last == num(11 + 3 * static_cast<std::size_t>(f)));
      CHECK(t.cells == num(12 + 3 * static_cast<std::size_t>(f)));
    }
    const TraceSummary o = summarize(l / "OFMAP_SRAM_TRACE.csv");
    CHECK(o.last == std::stoll(ref_compute[static_cast<std::size_t>(ref_layer[i] + 1)][1]));
    CHECK(o.first_busy == num(7));
    CHECK(summarize(l / "IFMAP_SRAM_TRACE.csv").last_busy == num(2));
    CHECK(summarize(l / "FILTER_SRAM_TRACE.csv").last_busy == num(5));
  }
  fs::remove_all(dir);
}
