// End-to-end `tcsim validate` on the HDF5 form of the measured schema (workload/measured_h5.h).
#include <doctest/doctest.h>

#include <filesystem>
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
