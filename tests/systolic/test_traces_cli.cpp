// `tcsim run ... --traces -o DIR` end to end, in each mode (scalesim_v2 CALC, USER from a SCALE-Sim
// .cfg, faithful from a YAML preset): the six trace files of every layer are written, and each DRAM
// trace adds up to, starts and stops where the run's own DETAILED_ACCESS_REPORT.csv says.
#include <doctest/doctest.h>

#include "systolic/trace_test_util.h"
#include "test_support.h"

#include "common/error.h"
#include "systolic/systolic_model.h"
#include "systolic/traces/traces.h"
#include "systolic/systolic_test_util.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using tcsim::systolic_test::summarize;
using tcsim::systolic_test::TraceSummary;

namespace {

std::vector<double> report_row(const fs::path& csv, int layer) {
  std::ifstream in(csv);
  std::string line;
  for (int i = 0; i <= layer + 1 && std::getline(in, line);) ++i;
  std::vector<double> v;
  std::stringstream ss(line);
  std::string cell;
  while (std::getline(ss, cell, ','))
    if (cell.find_first_not_of(' ') != std::string::npos) v.push_back(std::stod(cell));
  return v;
}

void check_run(const std::string& args, const fs::path& out, int layers) {
  const auto r = tcsim::systolic_test::run_tcsim(args + " --traces -o " + out.string());
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  for (int l = 0; l < layers; ++l) {
    CAPTURE(l);
    const fs::path dir = out / ("layer" + std::to_string(l));
    for (const char* f : {"IFMAP_SRAM_TRACE.csv", "FILTER_SRAM_TRACE.csv", "OFMAP_SRAM_TRACE.csv"})
      CHECK(fs::exists(dir / f));
    const std::vector<double> d = report_row(out / "DETAILED_ACCESS_REPORT.csv", l);
    REQUIRE(d.size() == 19);
    const char* dram[] = {"IFMAP_DRAM_TRACE.csv", "FILTER_DRAM_TRACE.csv", "OFMAP_DRAM_TRACE.csv"};
    for (int f = 0; f < 3; ++f) {
      CAPTURE(dram[f]);
      const TraceSummary t = summarize(dir / dram[f]);
      CHECK(static_cast<double>(t.first) == d[10 + 3 * f]);
      CHECK(static_cast<double>(t.last) == d[11 + 3 * f]);
      CHECK(static_cast<double>(t.cells) == d[12 + 3 * f]);
    }
  }
}

}  // namespace

TEST_CASE("tcsim run --traces writes SRAM and DRAM traces in every mode") {
  const fs::path dir = tcsim::test::temp_dir("traces_cli");
  const fs::path topo = dir / "t.csv";
  std::ofstream(topo) << "Layer,M,N,K,\na,40,24,36,\nb,9,70,20,\n";
  const std::string configs = (tcsim::test::source_dir() / "configs/systolic").string();
  SUBCASE("scalesim_v2, CALC") {
    check_run("run -c " + configs + "/scalesim_32x32_ws.yaml --set array.rows=8 --set array.cols=8 "
              "--set sram.ifmap=1KiB --set sram.filter=1KiB --set sram.ofmap=1KiB --topology " + topo.string(),
              dir / "calc", 2);
  }
  SUBCASE("scalesim_v2, USER bandwidth from a SCALE-Sim .cfg") {
    const fs::path cfg = dir / "user.cfg";
    std::ofstream(cfg) << "[general]\nrun_name = u\n[architecture_presets]\nArrayHeight: 8\nArrayWidth: 8\n"
                          "IfmapSramSzkB: 1\nFilterSramSzkB: 1\nOfmapSramSzkB: 1\nIfmapOffset: 0\n"
                          "FilterOffset: 10000000\nOfmapOffset: 20000000\nDataflow: os\nBandwidth: 4\n"
                          "[run_presets]\nInterfaceBandwidth: USER\n";
    check_run("run -c " + cfg.string() + " --topology " + topo.string(), dir / "user", 2);
  }
  SUBCASE("faithful") {
    check_run("run -c " + configs + "/tpu_v1.yaml --set array.rows=8 --set array.cols=8 --set sram.filter=1KiB "
              "--topology " + topo.string(), dir / "faithful", 2);
  }
  fs::remove_all(dir);
}

TEST_CASE("--traces size limit counts the DRAM traces too, and refuses before writing") {
  using namespace tcsim::systolic;
  SystolicConfig cfg;
  cfg.rows = cfg.cols = 8;
  const Layer layer = make_layer(tcsim::systolic_test::conv(12, 12, 3, 3, 4, 8, 1), Semantics::scalesim_v2, "t");
  LayerReport r = SystolicModel(cfg).run_layer(layer);
  CHECK(trace_cells(layer, cfg, r) < kMaxTraceCells);
  r.dram_ifmap.count = kMaxTraceCells;  // e.g. USER mode re-fetching the same lines for a long time
  const fs::path dir = tcsim::test::temp_dir("traces_limit") / "layer0";
  CHECK_THROWS_WITH_AS(write_layer_traces(dir, layer, cfg, r, "layer 0 (t)"),
                       doctest::Contains("--traces: layer 0 (t) is too large for per-cycle traces"),
                       tcsim::InputError);
  CHECK_FALSE(fs::exists(dir));
  fs::remove_all(dir.parent_path());
}
