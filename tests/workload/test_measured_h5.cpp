// The HDF5 form of the measured schema (workload/measured/measured_h5.h), written with io::write_hdf5.
#include <doctest/doctest.h>

#include <hdf5.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

#include "common/error.h"
#include "io/hdf5_writer.h"
#include "workload/measured/measured.h"
#include "workload/measured/measured_h5.h"

using namespace tcsim;
using namespace tcsim::workload;
namespace fs = std::filesystem;

namespace {
fs::path temp_dir(const std::string& tag) {
  fs::path d = fs::temp_directory_path() / ("tcsim_measured_h5_" + tag + "_" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

const std::vector<std::string> kColumns = {"name",     "m",        "n",      "k",       "batch",
                                           "a_format", "b_format", "c_format", "d_format", "layout",
                                           "time_us",  "tflops",   "repeats", "kernel"};
const std::string kHeader = "name,m,n,k,batch,a_format,b_format,c_format,d_format,layout,time_us,tflops,repeats,kernel\n";
// The same rows as CSV text and as table cells (times made up; this checks the reader, not a GPU).
const std::string kCsvRows =
    "a,1024,1024,1024,1,fp16,fp16,fp32,fp32,NT,20.5,104.7,100,sm70_xmma\n"
    "b,1024,1024,1024,1,e4m3,e4m3,fp32,fp32,NT,nan,,0,\n"
    "c,64,64,64,2,fp32,fp32,fp32,fp32,NN,5,,100,\"k,with,commas\"\n"
    "d,4096,128,77,3,bf16,bf16,fp32,bf16,TN,0.1,,15,x\n";

using Cell = io::Cell;
std::vector<std::vector<Cell>> cell_rows() {
  const double nan = std::nan("");
  return {
      {std::string("a"), std::int64_t{1024}, std::int64_t{1024}, std::int64_t{1024}, std::int64_t{1}, std::string("fp16"),
       std::string("fp16"), std::string("fp32"), std::string("fp32"), std::string("NT"), 20.5, 104.7, std::int64_t{100},
       std::string("sm70_xmma")},
      {std::string("b"), std::int64_t{1024}, std::int64_t{1024}, std::int64_t{1024}, std::int64_t{1}, std::string("e4m3"),
       std::string("e4m3"), std::string("fp32"), std::string("fp32"), std::string("NT"), nan, Cell{}, std::int64_t{0},
       std::string("")},
      {std::string("c"), std::int64_t{64}, std::int64_t{64}, std::int64_t{64}, std::int64_t{2}, std::string("fp32"),
       std::string("fp32"), std::string("fp32"), std::string("fp32"), std::string("NN"), 5.0, Cell{}, std::int64_t{100},
       std::string("k,with,commas")},
      {std::string("d"), std::int64_t{4096}, std::int64_t{128}, std::int64_t{77}, std::int64_t{3}, std::string("bf16"),
       std::string("bf16"), std::string("fp32"), std::string("bf16"), std::string("TN"), 0.1, Cell{}, std::int64_t{15},
       std::string("x")},
  };
}

// meta.yaml's keys as root attributes, the table as group /measured.
io::ResultSet measured_set(std::vector<std::string> columns, std::vector<std::vector<Cell>> rows) {
  io::ResultSet r;
  r.attributes = {{"gpu", "V100"}, {"nvidia_driver", "550.54"}, {"cuda_runtime_version", "12.4"},
                  {"sm_clock_max_mhz", "1530"}, {"command_line", "gemm_bench --shapes x.csv"},
                  {"date_utc", "2026-11-22T10:00:00Z"}};
  io::Table t;
  t.name = kMeasuredH5Group;
  for (auto& c : columns) t.add_column(c, "");
  for (auto& row : rows) t.add_row(std::move(row));
  r.tables.push_back(std::move(t));
  return r;
}

std::string error_of(const fs::path& f) {
  try {
    read_measured_h5(f);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

// Rewrites one column of a written file with another type (float dataset -> 2-D, or a compound).
void replace_dataset(const fs::path& f, const std::string& name, int rank) {
  hid_t file = H5Fopen(f.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  REQUIRE(file >= 0);
  hid_t g = H5Gopen2(file, "measured", H5P_DEFAULT);
  H5Ldelete(g, name.c_str(), H5P_DEFAULT);
  hsize_t dims[2] = {4, 2};
  hid_t space = H5Screate_simple(rank, dims, nullptr);
  hid_t type = H5T_NATIVE_DOUBLE;
  hid_t compound = -1;
  if (rank == 1) {  // a compound type: neither number nor string
    compound = H5Tcreate(H5T_COMPOUND, sizeof(double));
    H5Tinsert(compound, "x", 0, H5T_NATIVE_DOUBLE);
    type = compound;
  }
  hid_t ds = H5Dcreate2(g, name.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  REQUIRE(ds >= 0);
  H5Dclose(ds);
  if (compound >= 0) H5Tclose(compound);
  H5Sclose(space);
  H5Gclose(g);
  H5Fclose(file);
}
}  // namespace

TEST_CASE("measured HDF5: same rows as the CSV reader, meta from root attributes") {
  const fs::path d = temp_dir("ok");
  std::ofstream(d / "gemm.csv") << kHeader << kCsvRows;
  io::write_hdf5(d / "gemm.h5", measured_set(kColumns, cell_rows()));
  CHECK(is_measured_h5_name(d / "gemm.h5"));
  CHECK(is_measured_h5_name("X.HDF5"));
  CHECK_FALSE(is_measured_h5_name(d / "gemm.csv"));

  const MeasuredSet csv = read_measured(d / "gemm.csv");
  const MeasuredSet h5 = read_measured_h5(d / "gemm.h5");
  CHECK(h5.schema == "tcsim-measured-h5");
  CHECK(h5.source == (d / "gemm.h5").string());
  REQUIRE(csv.rows.size() == 3);
  REQUIRE(h5.rows.size() == csv.rows.size());
  for (std::size_t i = 0; i < csv.rows.size(); ++i) {
    const Kernel& a = csv.rows[i].kernel;
    const Kernel& b = h5.rows[i].kernel;
    CHECK(a.name == b.name);
    CHECK(a.m == b.m);
    CHECK(a.n == b.n);
    CHECK(a.k == b.k);
    CHECK(a.batch == b.batch);
    CHECK(a.a_format == b.a_format);
    CHECK(a.b_format == b.b_format);
    CHECK(a.c_format == b.c_format);
    CHECK(a.d_format == b.d_format);
    CHECK(a.layout == b.layout);
    CHECK(a.count == b.count);
    CHECK(csv.rows[i].time_s == h5.rows[i].time_s);  // exact: the double round-trips
    CHECK(csv.rows[i].group == h5.rows[i].group);
  }
  CHECK(h5.rows[1].origin == (d / "gemm.h5").string() + ":/measured:3");  // row 3 (row 2 not measured)
  auto meta = [&](const std::string& k) {
    for (const auto& [key, v] : h5.meta)
      if (key == k) return v;
    return std::string("(absent)");
  };
  CHECK(meta("rows_not_measured") == "1");
  CHECK(meta("gpu") == "V100");
  CHECK(meta("nvidia_driver") == "550.54");
  CHECK(meta("cuda_runtime_version") == "12.4");
  CHECK(meta("sm_clock_max_mhz") == "1530");
  CHECK(meta("command_line") == "gemm_bench --shapes x.csv");
  CHECK(meta("date_utc") == "2026-11-22T10:00:00Z");
  CHECK(meta("schema_version") == "1");
}

TEST_CASE("measured HDF5: only m, n, k and time_us are required; numbers stored as text work too") {
  const fs::path d = temp_dir("min");
  io::write_hdf5(d / "m.h5", measured_set({"m", "n", "k", "time_us"},
                                          {{std::string("128"), std::string("256"), std::string("64"), std::string("2.5")}}));
  const MeasuredSet s = read_measured_h5(d / "m.h5");
  REQUIRE(s.rows.size() == 1);
  CHECK(s.rows[0].kernel.m == 128);
  CHECK(s.rows[0].kernel.k == 64);
  CHECK(s.rows[0].time_s == 2.5 * 1e-6);  // as the CSV reader computes it
  CHECK(s.rows[0].kernel.a_format == FormatId::fp16);  // op-trace defaults
}

TEST_CASE("measured HDF5: errors name the file and the dataset or row") {
  const fs::path d = temp_dir("err");
  const std::string f = (d / "e.h5").string();

  SUBCASE("missing file") { CHECK(error_of(d / "none.h5").find("none.h5") != std::string::npos); }
  SUBCASE("not HDF5") {
    std::ofstream(d / "text.h5") << kHeader;
    CHECK(error_of(d / "text.h5").find("not an HDF5 file") != std::string::npos);
  }
  SUBCASE("missing group") {
    io::ResultSet r = measured_set(kColumns, cell_rows());
    r.tables[0].name = "kernels";
    io::write_hdf5(f, r);
    const std::string e = error_of(f);
    CHECK(e.find(f) != std::string::npos);
    CHECK(e.find("missing group '/measured'") != std::string::npos);
  }
  SUBCASE("missing time_us dataset") {
    io::write_hdf5(f, measured_set({"m", "n", "k"}, {{std::int64_t{1}, std::int64_t{1}, std::int64_t{1}}}));
    CHECK(error_of(f).find(f + ":/measured/time_us: missing dataset") != std::string::npos);
  }
  SUBCASE("missing m") {
    io::write_hdf5(f, measured_set({"n", "k", "time_us"}, {{std::int64_t{1}, std::int64_t{1}, 1.0}}));
    const std::string e = error_of(f);
    CHECK(e.find(f + ":/measured") != std::string::npos);
    CHECK(e.find("m") != std::string::npos);
  }
  SUBCASE("a listed column without its dataset") {
    io::write_hdf5(f, measured_set(kColumns, cell_rows()));
    hid_t file = H5Fopen(f.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    REQUIRE(file >= 0);
    H5Ldelete(file, "/measured/layout", H5P_DEFAULT);
    H5Fclose(file);
    CHECK(error_of(f).find(f + ":/measured/layout: missing dataset") != std::string::npos);
  }
  SUBCASE("wrong type") {
    io::write_hdf5(f, measured_set(kColumns, cell_rows()));
    replace_dataset(f, "time_us", 1);
    CHECK(error_of(f).find(f + ":/measured/time_us: wrong type") != std::string::npos);
  }
  SUBCASE("not 1-D") {
    io::write_hdf5(f, measured_set(kColumns, cell_rows()));
    replace_dataset(f, "m", 2);
    CHECK(error_of(f).find(f + ":/measured/m: expected a 1-D dataset") != std::string::npos);
  }
  SUBCASE("ragged lengths") {
    io::write_hdf5(f, measured_set(kColumns, cell_rows()));
    hid_t file = H5Fopen(f.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    REQUIRE(file >= 0);
    H5Ldelete(file, "/measured/k", H5P_DEFAULT);
    const hsize_t n = 3;
    const double v[3] = {1, 2, 3};
    hid_t space = H5Screate_simple(1, &n, nullptr);
    hid_t ds = H5Dcreate2(file, "/measured/k", H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v);
    H5Dclose(ds);
    H5Sclose(space);
    H5Fclose(file);
    const std::string e = error_of(f);
    CHECK(e.find(f + ":/measured/k: ragged columns: 3 elements") != std::string::npos);
  }
  SUBCASE("bad format name") {
    auto rows = cell_rows();
    rows[2][6] = std::string("fp17");
    io::write_hdf5(f, measured_set(kColumns, rows));
    const std::string e = error_of(f);
    CHECK(e.find(f + ":/measured:3: b_format") != std::string::npos);
    CHECK(e.find("fp17") != std::string::npos);
  }
  SUBCASE("bad dimension and bad time") {
    auto rows = cell_rows();
    rows[0][1] = 12.5;
    io::write_hdf5(f, measured_set(kColumns, rows));
    CHECK(error_of(f).find(f + ":/measured:1: m") != std::string::npos);
    rows = cell_rows();
    rows[3][10] = -1.0;
    io::write_hdf5(f, measured_set(kColumns, rows));
    CHECK(error_of(f).find(f + ":/measured:4: time_us") != std::string::npos);
  }
}
