// Reproduction of every SCALE-Sim v2 reference run in shared/data/scalesim/: each run folder holds
// command.txt (the SCALE-Sim command) and SCALE-Sim's own three reports. We run the same config and
// topology through SystolicModel and compare field by field; this includes the USER-bandwidth run
// (v2_scale_32x32_os_userbw10_Resnet18), whose stalls come from the prefetch replay.
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "common/files/atomic_file.h"
#include "systolic/config/scalesim_cfg.h"
#include "systolic/reports/scalesim_reports.h"
#include "systolic/systolic_model.h"
#include "test_support.h"
#include "workload/csv/scalesim_topology.h"

namespace fs = std::filesystem;
using namespace tcsim;
using namespace tcsim::systolic;

namespace {

std::vector<std::vector<std::string>> read_report(const fs::path& p) {
  std::ifstream in(p);
  std::vector<std::vector<std::string>> rows;
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    std::vector<std::string> f;
    std::stringstream ss(line);
    std::string cell;
    while (std::getline(ss, cell, ',')) {
      const auto b = cell.find_first_not_of(' ');
      f.push_back(b == std::string::npos ? "" : cell.substr(b));
    }
    rows.push_back(f);
  }
  return rows;
}

struct Run {
  fs::path cfg, topo;
  workload::TopologyKind kind = workload::TopologyKind::conv;
};

Run parse_command(const fs::path& dir, const fs::path& shared) {
  std::ifstream in(dir / "command.txt");
  std::string tok, prev;
  Run r;
  while (in >> tok) {
    if (prev == "-c") r.cfg = shared / tok;
    if (prev == "-t") r.topo = shared / tok;
    if (prev == "-i") r.kind = tok == "gemm" ? workload::TopologyKind::gemm : workload::TopologyKind::conv;
    prev = tok;
  }
  return r;
}

bool same_double(const std::string& ref, double ours) {
  // SCALE-Sim prints Python floats with repr(): the shortest text that reads back the same.
  return std::stod(ref) == ours;
}

}  // namespace

TEST_CASE("SCALE-Sim v2 reference runs are reproduced") {
  const fs::path shared = tcsim::test::shared_dir();
  if (shared.empty()) {
    MESSAGE("shared/ not found: SCALE-Sim reference comparison skipped");
    return;
  }
  const fs::path base = shared / "data" / "scalesim";
  int runs = 0;
  for (const auto& entry : fs::directory_iterator(base)) {
    if (!entry.is_directory() || entry.path().filename().string().rfind("v2_", 0) != 0) continue;
    const fs::path dir = entry.path();
    const Run run = parse_command(dir, base);
    const SystolicConfig cfg = read_scalesim_cfg(run.cfg);
    const SystolicModel model(cfg);
    const auto topo = workload::read_scalesim_topology(run.topo, run.kind);
    const auto compute = read_report(dir / "COMPUTE_REPORT.csv");
    const auto detail = read_report(dir / "DETAILED_ACCESS_REPORT.csv");
    REQUIRE(compute.size() == topo.size());
    ++runs;
    double worst_dram = 0;
    std::vector<LayerReport> reports;
    for (std::size_t i = 0; i < topo.size(); ++i) {
      const auto layers = model.layers_of(topo[i].kernel, "layer");
      const LayerReport r = model.run_layer(layers.front());
      reports.push_back(r);
      CAPTURE(dir.filename().string());
      CAPTURE(i);
      const auto& c = compute[i];
      const auto& d = detail[i];
      CHECK(same_double(c[4], r.mapping_efficiency_pct));
      CHECK(same_double(c[5], r.compute_util_pct));
      CHECK(std::stoll(d[3]) == r.sram_ifmap.count);
      CHECK(std::stoll(d[6]) == r.sram_filter.count);
      CHECK(std::stoll(d[9]) == r.sram_ofmap.count);
      CHECK(std::stoll(c[1]) == r.total_cycles);
      CHECK(std::stoll(c[2]) == r.stall_cycles);
      CHECK(same_double(c[3], r.overall_util_pct));
      CHECK(std::stod(d[1]) == r.sram_ifmap.start);
      CHECK(std::stod(d[2]) == r.sram_ifmap.stop);
      CHECK(std::stod(d[4]) == r.sram_filter.start);
      CHECK(std::stod(d[5]) == r.sram_filter.stop);
      CHECK(std::stod(d[7]) == r.sram_ofmap.start);
      CHECK(std::stod(d[8]) == r.sram_ofmap.stop);
      const std::int64_t refs[3] = {std::stoll(d[12]), std::stoll(d[15]), std::stoll(d[18])};
      const AccessSpan* ours[3] = {&r.dram_ifmap, &r.dram_filter, &r.dram_ofmap};
      for (int k = 0; k < 3; ++k) {
        const double err = std::abs(double(ours[k]->count - refs[k])) / double(refs[k]);
        worst_dram = std::max(worst_dram, err);
        CHECK(err <= 0.01);
        CHECK(std::stod(d[10 + 3 * k]) == ours[k]->start);
        CHECK(std::stod(d[11 + 3 * k]) == ours[k]->stop);
      }
    }
    // Our report files are SCALE-Sim's, byte for byte (CALC and USER bandwidth runs alike).
    CHECK(compute_report_csv(reports) == read_file(dir / "COMPUTE_REPORT.csv"));
    CHECK(bandwidth_report_csv(reports) == read_file(dir / "BANDWIDTH_REPORT.csv"));
    CHECK(detailed_access_report_csv(reports) == read_file(dir / "DETAILED_ACCESS_REPORT.csv"));
    MESSAGE(dir.filename().string() << ": " << topo.size() << " layers, worst DRAM count error "
                                    << worst_dram * 100 << "%");
  }
  CHECK(runs >= 1);
}
