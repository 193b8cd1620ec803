// End-to-end: `tcsim run` with systolic configs (our YAML and SCALE-Sim .cfg files).
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <vector>
#include <unistd.h>

#include "test_support.h"

namespace fs = std::filesystem;
using tcsim::test::run_tcsim;

namespace {

fs::path temp_dir(const std::string& tag) {
  const fs::path p = fs::temp_directory_path() / ("tcsim_sys_" + tag + "_" + std::to_string(::getpid()));
  fs::remove_all(p);
  fs::create_directories(p);
  return p;
}

fs::path write(const fs::path& p, const std::string& text) {
  std::ofstream(p) << text;
  return p;
}

std::string slurp(const fs::path& p) {
  std::ifstream f(p);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::string q(const fs::path& p) { return "'" + p.string() + "'"; }

const std::string kConvHeader =
    "Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, Num Filter, Strides,\n";

std::string config(const char* name) { return q(tcsim::test::source_dir() / "configs" / "systolic" / name); }

}  // namespace

TEST_CASE("tcsim run: ResNet-18 on the 32x32 os preset reproduces SCALE-Sim's reports") {
  const fs::path shared = tcsim::test::shared_dir();
  if (shared.empty()) {
    MESSAGE("shared/ not found: skipped");
    return;
  }
  const fs::path s = shared / "data" / "scalesim";
  const fs::path out = temp_dir("rn18");
  const auto r = run_tcsim("run -c " + config("scalesim_32x32_os.yaml") + " --topology " +
                           q(s / "inputs/topologies/conv_nets/Resnet18.csv") + " -o " + q(out));
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("Conv5_2b") != std::string::npos);  // the terminal table
  CHECK(r.out.find("total_cycles") != std::string::npos);
  for (const char* f : {"COMPUTE_REPORT.csv", "BANDWIDTH_REPORT.csv", "DETAILED_ACCESS_REPORT.csv"})
    CHECK(slurp(out / f) == slurp(s / "v2_scale_32x32_os_Resnet18" / f));
  for (const char* f : {"summary.csv", "summary.json", "results.h5", "config.resolved.yaml"})
    CHECK(fs::exists(out / f));
  CHECK(slurp(out / "summary.csv").find("dram_ifmap_read_words") != std::string::npos);
  // The same run from SCALE-Sim's own .cfg file.
  const fs::path out2 = temp_dir("rn18cfg");
  const auto r2 = run_tcsim("run -c " + q(s / "inputs/scale_32x32_os.cfg") + " --topology " +
                            q(s / "inputs/topologies/conv_nets/Resnet18.csv") + " -o " + q(out2));
  REQUIRE(r2.exit_code == 0);
  CHECK(slurp(out2 / "COMPUTE_REPORT.csv") == slurp(out / "COMPUTE_REPORT.csv"));
  // config.resolved.yaml of a .cfg run is a loadable systolic YAML.
  const auto r3 = run_tcsim("run -c " + q(out2 / "config.resolved.yaml") + " --gemm 64x64x64");
  CHECK(r3.exit_code == 0);
  fs::remove_all(out);
  fs::remove_all(out2);
}

TEST_CASE("tcsim run: GEMM topology, --gemm, --traces and --format csv") {
  const fs::path dir = temp_dir("traces");
  const fs::path topo = write(dir / "g.csv", "Layer,M,N,K,\nsmall,16,8,12,\n");
  const auto r = run_tcsim("run -c " + config("scalesim_32x32_ws.yaml") + " --topology " + q(topo) +
                           " --gemm 8x8x8 --traces --format csv -o " + q(dir / "out"));
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.rfind("layer,name,total_cycles", 0) == 0);
  // ws, one fold: 2R + C + M - 2 rows; the trace has one line per cycle.
  const std::string trace = slurp(dir / "out/layer0/IFMAP_SRAM_TRACE.csv");
  CHECK(std::count(trace.begin(), trace.end(), '\n') == 2 * 32 + 32 + 16 - 2);
  CHECK(trace.rfind("1,-1,", 0) == 0);
  CHECK(fs::exists(dir / "out/layer1/OFMAP_SRAM_TRACE.csv"));
  CHECK(fs::exists(dir / "out/layer1/FILTER_SRAM_TRACE.csv"));
  fs::remove_all(dir);
}

TEST_CASE("tcsim run: an op-trace CSV runs on the array as the same GEMMs given by --gemm") {
  const fs::path dir = temp_dir("optrace");
  const fs::path trace = write(dir / "t.csv",
                               "name,m,n,k,batch,a_format,b_format,c_format,d_format,layout,count\n"
                               "proj,256,192,128,1,s8,s8,s32,s32,NN,3\nsmall,64,32,48,1,s8,s8,s32,s32,NT,1\n");
  const auto r = run_tcsim("run -c " + config("scalesim_32x32_ws.yaml") + " " + q(trace) + " --format csv");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const auto g = run_tcsim("run -c " + config("scalesim_32x32_ws.yaml") + " --gemm 256x192x128 --gemm 64x32x48 --format csv");
  REQUIRE(g.exit_code == 0);
  // The same cycles per row as the --gemm runs (the names differ); the count is noted.
  auto cycles = [](const std::string& csv) {
    std::vector<std::string> out;
    std::istringstream in(csv);
    std::string line;
    std::getline(in, line);
    while (std::getline(in, line)) {
      std::vector<std::string> f;
      std::stringstream ls(line);
      for (std::string x; std::getline(ls, x, ',');) f.push_back(x);
      if (f.size() > 2) out.push_back(f[2]);
    }
    return out;
  };
  CHECK(cycles(r.out).size() == 2);
  CHECK(cycles(r.out) == cycles(g.out));
  CHECK(r.out.find("count 3: one run reported") != std::string::npos);
  // 2:4 sparse rows are for GPUs.
  const fs::path sparse = write(dir / "s.csv", "name,m,n,k,sparsity\ng,64,64,64,2:4\n");
  const auto bad = run_tcsim("run -c " + config("scalesim_32x32_ws.yaml") + " " + q(sparse));
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("s.csv:2: sparsity") != std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("tcsim run: bad systolic input exits 2 with file, line and field") {
  const fs::path dir = temp_dir("bad");
  auto expect = [](const tcsim::test::CommandResult& r, const std::string& text) {
    CHECK(r.exit_code == 2);
    CHECK(r.err.find(text) != std::string::npos);
    if (r.err.find(text) == std::string::npos) MESSAGE(r.err);
  };
  const fs::path big_filter = write(dir / "f.csv", kConvHeader + "c1,7,7,3,3,4,8,1,\nc2,7,7,9,9,4,8,1,\n");
  expect(run_tcsim("run -c " + config("scalesim_32x32_os.yaml") + " --topology " + q(big_filter)),
         "f.csv:3: Filter Height: the filter height (9) is larger than the IFMAP height (7)");
  const fs::path zero = write(dir / "z.csv", kConvHeader + "c1,7,7,3,3,0,8,1,\n");
  expect(run_tcsim("run -c " + config("scalesim_32x32_os.yaml") + " --topology " + q(zero)),
         "z.csv:2: Channels: expected a positive integer");
  const fs::path malformed = write(dir / "m.csv", kConvHeader + "c1,7,7,3,3,\n");
  expect(run_tcsim("run -c " + config("scalesim_32x32_os.yaml") + " --topology " + q(malformed)),
         "m.csv:2: expected 8 fields");
  const fs::path ok = write(dir / "ok.csv", kConvHeader + "c1,7,7,3,3,4,8,1,\n");
  const fs::path cfg = write(dir / "bad.cfg",
                             "[general]\nrun_name = x\n[architecture_presets]\nArrayHeight: 8\nArrayWidth: 8\n"
                             "IfmapSramSzkB: 4\nFilterSramSzkB: 4\nOfmapSramSzkB: 4\nDataflow: rs\n"
                             "[run_presets]\nInterfaceBandwidth: CALC\n");
  expect(run_tcsim("run -c " + q(cfg) + " --topology " + q(ok)),
         "bad.cfg:9: architecture_presets.Dataflow: unknown dataflow 'rs'; expected os, ws or is");
  expect(run_tcsim("run -c " + config("scalesim_32x32_ws.yaml") + " --set sram.filter=1KiB --topology " + q(ok)),
         "sram.filter: SRAM too small to hold one fold");
  expect(run_tcsim("run -c " + config("scalesim_32x32_os.yaml") + " --set array.dataflow=rs --topology " + q(ok)),
         "array.dataflow");
  const fs::path large = write(dir / "l.csv", "Layer,M,N,K,\nhuge,4096,4096,4096,\n");
  expect(run_tcsim("run -c " + config("scalesim_32x32_os.yaml") + " --topology " + q(large) + " --traces -o " +
                   q(dir / "o")),
         "--traces: layer 0 (huge) is too large for per-cycle traces");
  expect(run_tcsim("run -c " + config("scalesim_32x32_os.yaml")), "nothing to simulate");
  fs::remove_all(dir);
}
