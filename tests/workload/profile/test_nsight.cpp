// Nsight Systems SQLite exports and Nsight Compute CSVs (sim/workload/profile/readers/nsys_sqlite.h,
// ncu_csv.h): reading, NVTX op ranges linked to kernels, and the errors.
#include <doctest/doctest.h>

#include <fstream>

#include "common/error.h"
#include "nsys_test_db.h"
#include "test_support.h"
#include "workload/profile/readers/ncu_csv.h"
#include "ncu_test_csv.h"
#include "workload/profile/readers/nsys_sqlite.h"
#include "workload/profile/profile_mapping.h"
#include "workload/profile/readers/read_profile.h"

using namespace tcsim;
using namespace tcsim::workload;

TEST_CASE("nsys sqlite: kernels with their names, NVTX op ranges with sizes, dtypes from kernel names") {
  const auto d = test::temp_dir("nsys_read");
  const auto db = d / "run.sqlite";
  test::write_nsys_db(db);
  CHECK(is_sqlite_file(db));
  CHECK(is_profile_file(db));
  const Profile p = read_profile(db);
  CHECK(p.format == "nsys-sqlite");
  CHECK(p.meta.at(0).second == "NVIDIA A100-SXM4-40GB");
  REQUIRE(p.kernels.size() == 4);  // 3 kernels and the memcpy
  CHECK(p.kernels[0].name == "Memcpy");
  const ProfiledKernel& gemm = p.kernels[1];
  CHECK(gemm.name == "ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_stages_32x5_tn");  // demangledName
  CHECK(gemm.dur_us == doctest::Approx(50));
  CHECK(gemm.grid[0] == 8);
  CHECK(gemm.block[0] == 256);
  REQUIRE(gemm.op >= 0);
  const ProfiledOp& addmm = p.ops[std::size_t(gemm.op)];
  CHECK(addmm.name == "aten::addmm");  // the innermost range around the launch
  CHECK(p.ops[std::size_t(addmm.parent)].name == "aten::linear");
  REQUIRE(addmm.input_dims.size() == 5);
  CHECK(addmm.input_dims[1] == Dims{64, 512});
  CHECK(addmm.input_types.at(1) == "c10::Half");

  const ProfileMapping m = map_profile(p);
  REQUIRE(m.calls.size() == 4);
  const ProfiledCall& g = m.calls[1];
  CHECK(g.name == "aten::addmm");
  REQUIRE(g.sim.mapped);
  CHECK(g.sim.kernels[0].m == 64);
  CHECK(g.sim.kernels[0].n == 1024);
  CHECK(g.sim.kernels[0].k == 512);
  CHECK(g.sim.kernels[0].a_format == FormatId::fp16);
  CHECK(m.calls[2].name == "aten::add");
  CHECK(m.calls[2].sim.mapped);
  CHECK_FALSE(m.calls[3].sim.mapped);  // its launch is not in the runtime table
  CHECK(m.calls[3].sim.reason.find("emit_nvtx") != std::string::npos);
}

TEST_CASE("nsys sqlite: a database without the kernel table, or not a database, is a clear error") {
  const auto d = test::temp_dir("nsys_bad");
  const auto db = d / "empty.sqlite";
  test::sqlite_exec(db, "CREATE TABLE StringIds (id INTEGER, value TEXT);");
  CHECK_THROWS_WITH_AS((void)read_nsys_sqlite(db), doctest::Contains("CUPTI_ACTIVITY_KIND_KERNEL"), InputError);
  const auto db2 = d / "nocol.sqlite";
  test::sqlite_exec(db2, "CREATE TABLE StringIds (id INTEGER, value TEXT); CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER);");
  CHECK_THROWS_WITH_AS((void)read_nsys_sqlite(db2), doctest::Contains("CUPTI_ACTIVITY_KIND_KERNEL: correlationId"), InputError);
  // A bad row (here an empty start) is an error naming the row; the statement is finalized on the
  // way out (the ASan build's leak check failed here before: fuzz_profile's first finding).
  std::string schema = test::nsys_schema_sql();
  schema.replace(schema.find("(start INTEGER NOT NULL"), 23, "(start INTEGER");
  const auto db3 = d / "nullstart.sqlite";
  test::sqlite_exec(db3, schema + test::nsys_rows_sql() + "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET start = NULL;");
  CHECK_THROWS_WITH_AS((void)read_nsys_sqlite(db3), doctest::Contains("CUPTI_ACTIVITY_KIND_KERNEL:row 1: start or end is empty"),
                       InputError);
  const auto text = d / "not.sqlite";
  std::ofstream(text) << "hello, this is not a database but it is long enough to have a header\n";
  CHECK_THROWS_AS((void)read_nsys_sqlite(text), InputError);
  CHECK_FALSE(is_sqlite_file(text));
}


TEST_CASE("ncu csv: raw and details pages; kernels listed, not mapped, with their math path and counters") {
  const Profile raw = parse_ncu_csv(test::kRawCsv, "raw.csv");
  CHECK(raw.format == "ncu-raw");
  REQUIRE(raw.kernels.size() == 2);
  CHECK(raw.kernels[0].dur_us == doctest::Approx(12.345));
  CHECK(raw.kernels[1].dur_us == doctest::Approx(2.0));
  CHECK(raw.kernels[1].start_us == doctest::Approx(12.345));
  CHECK(raw.kernels[0].grid[1] == 4);
  REQUIRE(raw.kernels[0].metrics.size() == 2);
  CHECK(raw.kernels[1].metrics.size() == 1);  // n/a left out
  const ProfileMapping m = map_profile(raw);
  REQUIRE(m.calls.size() == 2);
  CHECK_FALSE(m.calls[0].sim.mapped);
  CHECK(m.calls[0].sim.reason.find("Nsight Compute") != std::string::npos);
  CHECK(m.calls[0].measured_tensor_core_us == doctest::Approx(12.345));
  CHECK(m.calls[1].measured_tensor_core_us == 0);
  CHECK(m.calls[0].metrics.find("sm_throughput_pct=71.5") != std::string::npos);

  const Profile det = parse_ncu_csv(test::kDetailsCsv, "details.csv");
  CHECK(det.format == "ncu-details");
  REQUIRE(det.kernels.size() == 2);
  CHECK(det.kernels[0].dur_us == doctest::Approx(12.35));
  CHECK(det.kernels[1].dur_us == doctest::Approx(3.5));
  CHECK(det.kernels[0].metrics.at(0).first == "sm_throughput_pct");
}

TEST_CASE("ncu csv: another page, a missing duration and bad units are errors with file:line") {
  const std::string source_page =
      "\"ID\",\"Kernel Name\",\"Address\",\"Source\",\"Warp Stall Sampling (All Samples)\"\n\"0\",\"k\",\"0x10\",\"MOV R1\",\"3\"\n";
  CHECK_THROWS_WITH_AS((void)parse_ncu_csv(source_page, "src.csv"), doctest::Contains("another ncu page"), InputError);
  std::string bad_unit = test::kRawCsv;
  bad_unit.replace(bad_unit.find("nsecond"), 7, "cycle");
  CHECK_THROWS_WITH_AS((void)parse_ncu_csv(bad_unit, "u.csv"), doctest::Contains("u.csv:3"), InputError);
  const std::string no_duration =
      "\"ID\",\"Kernel Name\",\"Section Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n"
      "\"0\",\"k\",\"Occupancy\",\"Achieved Occupancy\",\"%\",\"50\"\n";
  CHECK_THROWS_WITH_AS((void)parse_ncu_csv(no_duration, "d.csv"), doctest::Contains("no Duration"), InputError);
}

TEST_CASE("ncu csv detection: ncu pages are, NeuSight's kernel tables (a Kernel Name column too) are not") {
  const auto d = test::temp_dir("ncu_detect");
  auto file = [&](const std::string& name, const std::string& text) {
    std::ofstream(d / name) << text;
    return d / name;
  };
  CHECK(is_ncu_csv_file(file("raw.csv", test::kRawCsv)));
  CHECK(is_ncu_csv_file(file("src.csv", "\"ID\",\"Kernel Name\",\"Address\",\"Source\"\n\"0\",\"k\",\"0x10\",\"MOV R1\"\n")));
  CHECK_FALSE(is_ncu_csv_file(file(
      "neusight.csv",
      "OPName,Latency,Device,Torch Version,CUDNN Version,Kernel Name,Warps per SM,Blocks per SM,Grid x,Grid y,Grid z,"
      "Block x,Block y,Block z,CUDA Version,Kernels,B,M,N,K\n"
      "linear,0.05,NVIDIA A100-PCIE-40GB,p2.1.0,8902,ampere_sgemm_32x128_tn,0.37,0.04,5,1,1,256,1,1,cu121,;k,1,2,3,4\n")));
}
