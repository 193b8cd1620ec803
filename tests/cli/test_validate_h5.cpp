// End-to-end `tcsim validate` on the HDF5 form of the measured schema (workload/measured/measured_h5.h).
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

#include "io/hdf5_writer.h"
#include "test_support.h"

namespace fs = std::filesystem;
using tcsim::test::run_tcsim;

TEST_CASE("tcsim validate FILE.h5: reads /measured and the root attributes") {
  const std::string v100 = (tcsim::test::source_dir() / "configs/gpu/v100.yaml").string();
  if (!fs::exists(v100)) {
    MESSAGE("configs/gpu/v100.yaml not found: skipping");
    return;
  }
  const fs::path d = fs::temp_directory_path() / ("tcsim_validate_h5_" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  // A gemm.csv + meta.yaml as io::write_hdf5 would store it (times made up: this checks the plumbing).
  tcsim::io::ResultSet r;
  r.attributes = {{"gpu", "test"}, {"command_line", "gemm_bench"}};
  tcsim::io::Table t;
  t.name = "measured";
  for (const char* c : {"name", "m", "n", "k", "batch", "a_format", "b_format", "c_format", "d_format", "layout", "time_us"})
    t.add_column(c);
  using tcsim::io::Cell;
  t.add_row({std::string("a"), std::int64_t{4096}, std::int64_t{4096}, std::int64_t{4096}, std::int64_t{1},
             std::string("fp16"), std::string("fp16"), std::string("fp32"), std::string("fp32"), std::string("NT"), 1300.0});
  t.add_row({std::string("b"), std::int64_t{1024}, std::int64_t{1024}, std::int64_t{1024}, std::int64_t{1},
             std::string("fp16"), std::string("fp16"), std::string("fp32"), std::string("fp32"), std::string("NT"), 40.0});
  r.tables.push_back(t);
  const fs::path h5 = d / "gemm.h5";
  tcsim::io::write_hdf5(h5, r);

  auto ok = run_tcsim("validate -c '" + v100 + "' '" + h5.string() + "' --format json");
  REQUIRE_MESSAGE(ok.exit_code == 0, ok.err);
  CHECK(ok.err.find("tcsim validate: 2 rows on ") != std::string::npos);
  CHECK(ok.out.find("\"measured.gpu\": \"test\"") != std::string::npos);
  CHECK(ok.out.find("tcsim-measured-h5") != std::string::npos);

  // A bad format name: exit 2, the message names the file, the group and the row.
  t.rows[1][6] = std::string("fp17");
  r.tables[0] = t;
  tcsim::io::write_hdf5(h5, r);
  auto bad = run_tcsim("validate -c '" + v100 + "' '" + h5.string() + "'");
  CHECK(bad.exit_code == 2);
  CHECK_MESSAGE(bad.err.find("tcsim: error: " + h5.string() + ":/measured:2: b_format") != std::string::npos, bad.err);
  fs::remove_all(d);
}

TEST_CASE("tcsim measured to-h5: the HDF5 form validates exactly like the CSV it came from") {
  const std::string v100 = (tcsim::test::source_dir() / "configs/gpu/v100.yaml").string();
  if (!fs::exists(v100)) {
    MESSAGE("configs/gpu/v100.yaml not found: skipping");
    return;
  }
  const fs::path d = tcsim::test::temp_dir("measured_to_h5");
  {
    std::ofstream csv(d / "gemm.csv");
    csv << "# made-up times: this checks the conversion, not the model\n"
           "name,m,n,k,batch,a_format,b_format,c_format,d_format,layout,time_us,kernel\n"
           "sq,4096,4096,4096,1,fp16,fp16,fp32,fp32,NT,1300.5,\"sm70_xmma, tile 128x128\"\n"
           "skinny,1024,16,500000,1,fp16,fp16,fp32,fp32,NN,2000,\n"
           "fp8_row,1024,1024,1024,1,e4m3,e4m3,fp32,fp32,TN,n/a,\n";
    std::ofstream meta(d / "meta.yaml");
    meta << "gpu: Test GPU\nclocks:\n  sm_mhz: 1530\n";
  }
  const std::string csv = (d / "gemm.csv").string(), h5 = (d / "gemm.h5").string();
  auto conv = run_tcsim("measured to-h5 '" + csv + "' '" + h5 + "'");
  REQUIRE_MESSAGE(conv.exit_code == 0, conv.err);
  CHECK(conv.err.find("3 rows") != std::string::npos);

  auto from_csv = run_tcsim("validate -c '" + v100 + "' '" + csv + "' --format csv");
  auto from_h5 = run_tcsim("validate -c '" + v100 + "' '" + h5 + "' --format csv");
  REQUIRE_MESSAGE(from_csv.exit_code == 0, from_csv.err);
  REQUIRE_MESSAGE(from_h5.exit_code == 0, from_h5.err);
  // Identical but for the origin column (file:line vs file.h5:/measured:row).
  auto without_origins = [&](std::string s) {
    for (std::size_t at; (at = s.find(d.string())) != std::string::npos;) s.erase(at, s.find(',', at) - at);
    return s;
  };
  CHECK(without_origins(from_csv.out) == without_origins(from_h5.out));
  CHECK(from_h5.out.find("gemm.h5:/measured:2") != std::string::npos);
  CHECK(from_h5.out.find("skinny") != std::string::npos);
  auto json = run_tcsim("validate -c '" + v100 + "' '" + h5 + "' --format json");
  CHECK(json.out.find("\"measured.gpu\": \"Test GPU\"") != std::string::npos);
  CHECK(json.out.find("\"measured.clocks.sm_mhz\": \"1530\"") != std::string::npos);
  CHECK(json.out.find("\"measured.rows_not_measured\": \"1\"") != std::string::npos);

  // Bad input: a row validate would reject, an output that is not .h5, a missing input.
  {
    std::ofstream bad(d / "bad.csv");
    bad << "name,m,n,k,a_format,b_format,c_format,d_format,layout,time_us\nx,64,0,64,fp16,fp16,fp32,fp32,NN,3\n";
  }
  auto bad = run_tcsim("measured to-h5 '" + (d / "bad.csv").string() + "' '" + (d / "bad.h5").string() + "'");
  CHECK(bad.exit_code == 2);
  CHECK_MESSAGE(bad.err.find("bad.csv:2: n") != std::string::npos, bad.err);
  CHECK(!fs::exists(d / "bad.h5"));
  auto ext = run_tcsim("measured to-h5 '" + csv + "' '" + (d / "out.csv").string() + "'");
  CHECK(ext.exit_code == 2);
  CHECK(ext.err.find("must end in .h5") != std::string::npos);
  auto none = run_tcsim("measured to-h5 '" + (d / "none.csv").string() + "' '" + h5 + "'");
  CHECK(none.exit_code == 2);
  fs::remove_all(d);
}
