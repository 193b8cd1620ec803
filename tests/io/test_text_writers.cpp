// The text formats: the aligned table, CSV quoting and round trip, JSON escaping and structure.
#include <doctest/doctest.h>
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <limits>
#include <sstream>

#include "io/cell_text.h"
#include "io/writers.h"

using namespace tcsim::io;

namespace {

Table sample() {
  Table t;
  t.name = "kernels";
  t.add_column("name", "kernel name");
  t.add_column("time_us", "time");
  t.add_column("count");
  t.add_row({std::string("gemm_a"), 12.3456, std::int64_t{3}});
  t.add_row({std::string("b"), 1234567.0, std::int64_t{-12}});
  t.add_row({std::string("c"), Cell{}, std::int64_t{0}});
  return t;
}

std::vector<std::string> lines(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

}  // namespace

TEST_CASE("io text table: numbers right-aligned, text left-aligned, header over each column") {
  const auto l = lines(format_text_table(sample()));
  REQUIRE(l.size() == 5);
  CHECK(l[0] == "name    time_us  count");
  CHECK(l[1] == "------  -------  -----");
  CHECK(l[2] == "gemm_a    12.35      3");
  CHECK(l[3] == "b       1234567    -12");
  CHECK(l[4] == "c                    0");
}

TEST_CASE("io text table: human number forms") {
  CHECK(human_number(0) == "0");
  CHECK(human_number(3) == "3");
  CHECK(human_number(12.3456) == "12.35");
  CHECK(human_number(0.5) == "0.5");
  CHECK(human_number(0.012345) == "0.01235");
  CHECK(human_number(3879.99) == "3880");  // rounds up to an integer: its zeros are not decimals
  CHECK(human_number(1999.6) == "2000");
  CHECK(human_number(999.99) == "1000");
  CHECK(human_number(-120.004) == "-120");
  CHECK(human_number(1.5e-5) == "1.500e-05");
  CHECK(human_number(123456.7) == "123457");
  CHECK(human_number(2e16) == "2.000e+16");
  CHECK(human_number(std::nan("")) == "nan");
  CHECK(human_number(-std::numeric_limits<double>::infinity()) == "-inf");
}

TEST_CASE("io csv: RFC 4180 quoting and numbers that read back exactly") {
  Table t;
  t.name = "q";
  t.add_column("text");
  t.add_column("x_us");
  t.add_row({std::string("plain"), 0.1});
  t.add_row({std::string("a,b"), 1.0 / 3.0});
  t.add_row({std::string("say \"hi\""), 1e-300});
  t.add_row({std::string("two\nlines"), std::numeric_limits<double>::quiet_NaN()});
  t.add_row({std::string(" edge "), Cell{}});
  t.add_row({std::int64_t{-9007199254740993}, std::numeric_limits<double>::infinity()});
  const auto csv = format_csv(t);
  CHECK(csv ==
        "text,x_us\n"
        "plain,0.1\n"
        "\"a,b\",0.3333333333333333\n"
        "\"say \"\"hi\"\"\",1e-300\n"
        "\"two\nlines\",nan\n"
        "\" edge \",\n"
        "-9007199254740993,inf\n");
  CHECK(std::stod("0.3333333333333333") == 1.0 / 3.0);
  CHECK(exact_number(5e-324) == "5e-324");
  CHECK(std::stod(exact_number(1.7976931348623157e308)) == 1.7976931348623157e308);
}

TEST_CASE("io json: escaping, numbers as numbers, NaN/inf/empty as null, structure") {
  ResultSet r;
  r.attributes = {{"command_line", "tcsim run \"x\" \\ y\n\t\x01"}, {"tcsim_version", "0.1.0"}};
  Table t = sample();
  t.add_row({std::string("bad utf8 \xff and \xc3\xa9"), std::numeric_limits<double>::infinity(), std::int64_t{1}});
  r.tables.push_back(t);
  Table empty;
  empty.name = "empty";
  empty.add_column("a");
  r.tables.push_back(empty);
  const std::string j = format_json(r);
  CHECK(j.find(R"("command_line": "tcsim run \"x\" \\ y\n\t\u0001")") != std::string::npos);
  CHECK(j.find(R"("schema_version": "1")") != std::string::npos);
  CHECK(j.find(R"(["gemm_a", 12.3456, 3])") != std::string::npos);
  CHECK(j.find(R"(["c", null, 0])") != std::string::npos);
  CHECK(j.find("[\"bad utf8 \xEF\xBF\xBD and \xc3\xa9\", null, 1]") != std::string::npos);
  // JSON is YAML 1.2: parse it back and check the structure.
  const YAML::Node n = YAML::Load(j);
  CHECK(n["attributes"]["command_line"].as<std::string>() == "tcsim run \"x\" \\ y\n\t\x01");
  CHECK(n["attributes"]["tcsim_version"].as<std::string>() == "0.1.0");
  CHECK(n["tables"]["kernels"]["columns"][1].as<std::string>() == "time_us");
  CHECK(n["tables"]["kernels"]["rows"].size() == 4);
  CHECK(n["tables"]["kernels"]["rows"][1][1].as<double>() == 1234567.0);
  CHECK(n["tables"]["empty"]["rows"].size() == 0);
  CHECK(n["tables"]["empty"]["columns"][0].as<std::string>() == "a");
}

TEST_CASE("io table: rows must match the columns; names become file names") {
  Table t;
  t.name = "x";
  t.add_column("a");
  CHECK_THROWS_AS(t.add_row({std::int64_t{1}, std::int64_t{2}}), std::invalid_argument);
  CHECK_NOTHROW(check_table_name("layers-2.v1"));
  CHECK_THROWS_AS(check_table_name("../evil"), std::invalid_argument);
  CHECK_THROWS_AS(check_table_name(""), std::invalid_argument);
}

TEST_CASE("io: units from column names") {
  CHECK(unit_of_column("time_us") == "us");
  CHECK(unit_of_column("time_s") == "s");
  CHECK(unit_of_column("dram_read_bytes") == "bytes");
  CHECK(unit_of_column("tensor_util_pct") == "%");
  CHECK(unit_of_column("tensor_util_frac") == "1");
  CHECK(unit_of_column("cycles") == "cycles");
  CHECK(unit_of_column("stall_cycles") == "cycles");
  CHECK(unit_of_column("tflops") == "TFLOP/s");
  CHECK(unit_of_column("dram_bytes_per_s") == "B/s");
  CHECK(unit_of_column("clock_ghz") == "GHz");
  CHECK(unit_of_column("name") == "");
  CHECK(unit_of_column("bound") == "");
}

TEST_CASE("io: table_of declares columns with their cells; select_columns picks by name") {
  struct Rec {
    std::string name;
    double us;
    bool has_bytes;
  };
  const std::vector<tcsim::io::ColumnOf<Rec>> cols = {
      {"name", "what", [](const Rec& r) { return Cell(r.name); }},
      {"time_us", "how long", [](const Rec& r) { return Cell(r.us); }},
      {"dram_read_bytes", "", [](const Rec& r) { return r.has_bytes ? Cell(std::int64_t{64}) : Cell(); }},
  };
  const Table t = tcsim::io::table_of<Rec>("kernels", cols, {{"a", 1.5, true}, {"b", 2, false}});
  CHECK(t.name == "kernels");
  REQUIRE(t.columns.size() == 3);
  CHECK(t.columns[1].description == "how long");
  REQUIRE(t.rows.size() == 2);
  CHECK(std::get<std::string>(t.rows[1][0]) == "b");
  CHECK(std::get<double>(t.rows[0][1]) == 1.5);
  CHECK(std::get<std::int64_t>(t.rows[0][2]) == 64);
  CHECK(std::holds_alternative<std::monostate>(t.rows[1][2]));

  const Table s = tcsim::io::select_columns(t, {"time_us", "missing", "name"});
  REQUIRE(s.columns.size() == 2);
  CHECK(s.columns[0].name == "time_us");
  CHECK(std::get<std::string>(s.rows[1][1]) == "b");
  const Table u = tcsim::io::select_columns_if(t, [](const std::string& n) { return n.find("_") != std::string::npos; });
  REQUIRE(u.columns.size() == 2);
  CHECK(u.columns[1].name == "dram_read_bytes");
  CHECK(u.rows.size() == 2);
}
