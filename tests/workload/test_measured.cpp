#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

#include "common/error.h"
#include "workload/measured/measured.h"

using namespace tcsim;
using namespace tcsim::workload;
namespace fs = std::filesystem;

namespace {
fs::path temp_dir(const std::string& tag) {
  fs::path d = fs::temp_directory_path() / ("tcsim_measured_" + tag + "_" + std::to_string(::getpid()));
  fs::create_directories(d);
  return d;
}
void write(const fs::path& p, const std::string& s) { std::ofstream(p) << s; }
const std::string kHeader = "name,m,n,k,batch,a_format,b_format,c_format,d_format,layout,time_us,tflops,repeats,kernel\n";
}  // namespace

TEST_CASE("measured schema: rows, skipped rows and meta.yaml") {
  const fs::path d = temp_dir("ok");
  write(d / "gemm.csv", kHeader +
                            "a,1024,1024,1024,1,fp16,fp16,fp32,fp32,NT,20.5,104.7,100,sm70_xmma\n"
                            "b,1024,1024,1024,1,e4m3,e4m3,fp32,fp32,NT,nan,,0,\n"
                            "c,64,64,64,2,fp32,fp32,fp32,fp32,NN,5,,100,\"k,with,commas\"\n");
  write(d / "meta.yaml", "gpu: NVIDIA H100 80GB HBM3\ndriver: '550.54'\nclocks:\n  sm_mhz: 1980\n");
  auto s = read_measured(d / "gemm.csv");
  CHECK(s.schema == "tcsim-measured");
  REQUIRE(s.rows.size() == 2);
  CHECK(s.rows[0].time_s == doctest::Approx(20.5e-6));
  CHECK(s.rows[0].kernel.layout == Layout::NT);
  CHECK(s.rows[0].group == "gemm fp16.fp16.fp32");
  CHECK(s.rows[1].kernel.batch == 2);
  CHECK(s.rows[1].origin == (d / "gemm.csv").string() + ":4");
  auto has = [&](const std::string& k, const std::string& v) {
    for (const auto& [kk, vv] : s.meta)
      if (kk == k) return vv == v;
    return false;
  };
  CHECK(has("gpu", "NVIDIA H100 80GB HBM3"));
  CHECK(has("clocks.sm_mhz", "1980"));
  CHECK(has("rows_not_measured", "1"));
  fs::remove_all(d);
}

TEST_CASE("measured schema: bad input") {
  const fs::path d = temp_dir("bad");
  write(d / "neg.csv", kHeader + "a,1024,1024,1024,1,fp16,fp16,fp32,fp32,NT,-3,1,1,k\n");
  CHECK_THROWS_WITH_AS(read_measured(d / "neg.csv"),
                       ((d / "neg.csv").string() + ":2: time_us: expected a positive number, got '-3'").c_str(), InputError);
  write(d / "fmt.csv", kHeader + "a,1024,1024,1024,1,fp17,fp16,fp32,fp32,NT,3,1,1,k\n");
  CHECK_THROWS_AS(read_measured(d / "fmt.csv"), InputError);
  write(d / "what.csv", "x,y\n1,2\n");
  CHECK_THROWS_WITH_AS(read_measured(d / "what.csv"),
                       doctest::Contains("unknown measured-data format"), InputError);
  CHECK_THROWS_WITH_AS(read_measured(d / "missing.csv"), doctest::Contains("file not found"), InputError);
  write(d / "meta.yaml", "gpu: [unclosed\n");
  write(d / "ok.csv", kHeader + "a,8,8,8,1,fp16,fp16,fp32,fp32,NT,3,1,1,k\n");
  CHECK_THROWS_WITH_AS(read_measured(d / "ok.csv"), doctest::Contains("meta.yaml"), InputError);
  fs::remove_all(d);
}
