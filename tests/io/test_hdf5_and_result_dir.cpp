// results.h5 read back through the HDF5 C API; atomic writes; the result folder.
#include <doctest/doctest.h>
#include <hdf5.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/error.h"
#include "io/hdf5_writer.h"
#include "io/writers.h"

using namespace tcsim::io;
namespace fs = std::filesystem;

namespace {

fs::path fresh_dir(const std::string& name) {
  auto d = fs::temp_directory_path() / ("tcsim_iotest_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

// A variable-length string attribute, read as a string (the reader frees HDF5's memory).
std::string read_string_attr(hid_t obj, const char* name) {
  hid_t attr = H5Aopen(obj, name, H5P_DEFAULT);
  REQUIRE(attr >= 0);
  hid_t ftype = H5Aget_type(attr);
  CHECK(H5Tis_variable_str(ftype) > 0);
  CHECK(H5Tget_cset(ftype) == H5T_CSET_UTF8);
  hid_t mtype = H5Tcopy(H5T_C_S1);
  H5Tset_size(mtype, H5T_VARIABLE);
  H5Tset_cset(mtype, H5T_CSET_UTF8);
  char* s = nullptr;
  REQUIRE(H5Aread(attr, mtype, &s) >= 0);
  std::string out = s ? s : "";
  H5free_memory(s);
  H5Tclose(mtype);
  H5Tclose(ftype);
  H5Aclose(attr);
  return out;
}

std::vector<std::string> read_string_array_attr(hid_t obj, const char* name) {
  hid_t attr = H5Aopen(obj, name, H5P_DEFAULT);
  REQUIRE(attr >= 0);
  hid_t space = H5Aget_space(attr);
  const auto n = static_cast<std::size_t>(H5Sget_simple_extent_npoints(space));
  hid_t mtype = H5Tcopy(H5T_C_S1);
  H5Tset_size(mtype, H5T_VARIABLE);
  H5Tset_cset(mtype, H5T_CSET_UTF8);
  std::vector<char*> p(n);
  REQUIRE(H5Aread(attr, mtype, p.data()) >= 0);
  std::vector<std::string> out;
  for (char* s : p) {
    out.push_back(s);
    H5free_memory(s);
  }
  H5Tclose(mtype);
  H5Sclose(space);
  H5Aclose(attr);
  return out;
}

std::vector<double> read_doubles(hid_t file, const char* path) {
  hid_t ds = H5Dopen2(file, path, H5P_DEFAULT);
  REQUIRE(ds >= 0);
  hid_t type = H5Dget_type(ds);
  CHECK(H5Tget_class(type) == H5T_FLOAT);
  CHECK(H5Tget_size(type) == 8);
  hid_t space = H5Dget_space(ds);
  std::vector<double> v(static_cast<std::size_t>(H5Sget_simple_extent_npoints(space)));
  if (!v.empty()) REQUIRE(H5Dread(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()) >= 0);
  H5Sclose(space);
  H5Tclose(type);
  H5Dclose(ds);
  return v;
}

std::vector<std::string> read_strings(hid_t file, const char* path) {
  hid_t ds = H5Dopen2(file, path, H5P_DEFAULT);
  REQUIRE(ds >= 0);
  hid_t space = H5Dget_space(ds);
  const auto n = static_cast<std::size_t>(H5Sget_simple_extent_npoints(space));
  hid_t mtype = H5Tcopy(H5T_C_S1);
  H5Tset_size(mtype, H5T_VARIABLE);
  H5Tset_cset(mtype, H5T_CSET_UTF8);
  std::vector<char*> p(n);
  REQUIRE(H5Dread(ds, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, p.data()) >= 0);
  std::vector<std::string> out(p.begin(), p.end());
  H5Dvlen_reclaim(mtype, space, H5P_DEFAULT, p.data());
  H5Tclose(mtype);
  H5Sclose(space);
  H5Dclose(ds);
  return out;
}

ResultSet sample() {
  ResultSet r;
  r.attributes = {{"tcsim_version", "0.1.0"}, {"command_line", "tcsim run -c v100.yaml"},
                  {"config_yaml", "version: 1\nkind: gpu\n"}, {"schema_version", "99"}};
  Table k;
  k.name = "kernels";
  k.add_column("name", "kernel name");
  k.add_column("time_us", "wall time of one run");
  k.add_column("dram_read_bytes", "bytes read from DRAM");
  k.add_column("mixed", "numbers and text");
  k.add_row({std::string("gemm \xc3\xa9"), 12.5, std::int64_t{4096}, std::int64_t{1}});
  k.add_row({std::string("b,c"), Cell{}, std::int64_t{8}, std::string("x")});
  r.tables.push_back(k);
  Table p;
  p.name = "points";
  p.add_column("tensor_util_pct", "tensor-core utilisation");
  p.add_row({75.0});
  r.tables.push_back(p);
  return r;
}

bool no_temp_files(const fs::path& dir) {
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.path().filename().string().find(".tmp.") != std::string::npos) return false;
  return true;
}

std::string slurp(const fs::path& p) {
  std::ifstream f(p);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

}  // namespace

TEST_CASE("io hdf5: schema v1 written and read back with the HDF5 API") {
  const auto dir = fresh_dir("h5");
  write_hdf5(dir / "results.h5", sample());
  CHECK(no_temp_files(dir));
  hid_t f = H5Fopen((dir / "results.h5").c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  REQUIRE(f >= 0);
  CHECK(read_string_attr(f, "schema_version") == "1");  // the writer's schema, not the caller's
  CHECK(read_string_attr(f, "tcsim_version") == "0.1.0");
  CHECK(read_string_attr(f, "command_line") == "tcsim run -c v100.yaml");
  CHECK(read_string_attr(f, "config_yaml") == "version: 1\nkind: gpu\n");

  const auto t = read_doubles(f, "/kernels/time_us");
  REQUIRE(t.size() == 2);
  CHECK(t[0] == 12.5);
  CHECK(std::isnan(t[1]));  // an empty cell
  CHECK(read_doubles(f, "/kernels/dram_read_bytes") == std::vector<double>{4096, 8});
  CHECK(read_strings(f, "/kernels/name") == std::vector<std::string>{"gemm \xc3\xa9", "b,c"});
  CHECK(read_strings(f, "/kernels/mixed") == std::vector<std::string>{"1", "x"});
  CHECK(read_doubles(f, "/points/tensor_util_pct") == std::vector<double>{75});

  hid_t ds = H5Dopen2(f, "/kernels/time_us", H5P_DEFAULT);
  CHECK(read_string_attr(ds, "unit") == "us");
  CHECK(read_string_attr(ds, "description") == "wall time of one run");
  H5Dclose(ds);
  ds = H5Dopen2(f, "/kernels/dram_read_bytes", H5P_DEFAULT);
  CHECK(read_string_attr(ds, "unit") == "bytes");
  H5Dclose(ds);
  ds = H5Dopen2(f, "/points/tensor_util_pct", H5P_DEFAULT);
  CHECK(read_string_attr(ds, "unit") == "%");
  H5Dclose(ds);
  hid_t g = H5Gopen2(f, "/kernels", H5P_DEFAULT);
  CHECK(read_string_array_attr(g, "columns") ==
        std::vector<std::string>{"name", "time_us", "dram_read_bytes", "mixed"});
  H5Gclose(g);
  H5Fclose(f);
  fs::remove_all(dir);
}

TEST_CASE("io hdf5: a table with no rows is written as empty datasets") {
  const auto dir = fresh_dir("h5empty");
  ResultSet r;
  Table t;
  t.name = "layers";
  t.add_column("time_us");
  r.tables.push_back(t);
  write_hdf5(dir / "e.h5", r);
  hid_t f = H5Fopen((dir / "e.h5").c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  REQUIRE(f >= 0);
  CHECK(read_doubles(f, "/layers/time_us").empty());
  H5Fclose(f);
  fs::remove_all(dir);
}

TEST_CASE("io hdf5: failures are InputErrors naming the file, leaving no temporary file") {
  const auto dir = fresh_dir("h5fail");
  std::ofstream(dir / "not_a_dir") << "x";
  const fs::path target = dir / "not_a_dir" / "results.h5";
  try {
    write_hdf5(target, sample());
    FAIL("expected an InputError");
  } catch (const tcsim::InputError& e) {
    CHECK(std::string(e.what()).find((dir / "not_a_dir").string()) != std::string::npos);
  }
  // A file that exists as a folder cannot be replaced: the HDF5 file is created, the rename fails.
  fs::create_directories(dir / "busy.h5" / "inside");
  CHECK_THROWS_AS(write_hdf5(dir / "busy.h5", sample()), tcsim::InputError);
  CHECK(no_temp_files(dir));
  // Programming errors: duplicate table names, bad column names.
  ResultSet dup = sample();
  dup.tables[1].name = "kernels";
  CHECK_THROWS_AS(write_hdf5(dir / "dup.h5", dup), std::invalid_argument);
  ResultSet slash = sample();
  slash.tables[1].columns[0].name = "a/b";
  CHECK_THROWS_AS(write_hdf5(dir / "slash.h5", slash), std::invalid_argument);
  CHECK(no_temp_files(dir));
  CHECK_FALSE(fs::exists(dir / "slash.h5"));
  fs::remove_all(dir);
}

TEST_CASE("io result dir: summary.csv, summary.json, results.h5, config.resolved.yaml, extra CSVs") {
  const auto dir = fresh_dir("resdir");
  const ResultSet r = sample();
  write_result_dir(dir / "out", r);
  CHECK(slurp(dir / "out" / "summary.csv") == format_csv(r.tables[0]));
  CHECK(slurp(dir / "out" / "summary.json") == format_json(r));
  CHECK(fs::file_size(dir / "out" / "results.h5") > 0);
  CHECK(slurp(dir / "out" / "config.resolved.yaml") == "version: 1\nkind: gpu\n");
  CHECK_FALSE(fs::exists(dir / "out" / "points.csv"));
  write_result_dir(dir / "all", r, true);
  CHECK(slurp(dir / "all" / "points.csv") == "tensor_util_pct\n75\n");
  CHECK(no_temp_files(dir));
  CHECK_THROWS_AS(write_result_dir(dir / "none", ResultSet{}), std::invalid_argument);
  fs::remove_all(dir);
}
