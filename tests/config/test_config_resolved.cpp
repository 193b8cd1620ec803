// config.resolved.yaml round trip, describe(), the schema registry and schema declaration checks.
#include <doctest/doctest.h>

#include <algorithm>

#include "config/config.h"
#include "config/registry.h"
#include "config/suggest.h"
#include "test_schema.h"

using namespace tcsim::config;
using tcsim::config_test::fresh_dir;
using tcsim::config_test::input_error_of;
using tcsim::config_test::test_schema;
using tcsim::config_test::write_text;

TEST_CASE("config resolved: every parameter, in unit form, reloads to the same Config") {
  const auto dir = fresh_dir("resolved");
  write_text(dir / "base.yaml",
             "version: 1\nkind: testhw\nname: 'with: colon # and hash'\nsm: {subcores: 4, shared_memory: 164KiB}\n"
             "mma:\n  - {shape: m16n8k16, latency: 33}\n");
  write_text(dir / "d.yaml", "version: 1\nkind: testhw\nbase: base.yaml\nmemory: {dram: {bandwidth: 1.555TB/s}}\n");
  const Config c = Config::load(dir / "d.yaml", test_schema(), {"ecc=true"});
  const std::string y = c.resolved_yaml();
  CHECK(y.find("shared_memory: 164KiB") != std::string::npos);  // the unit form is kept
  CHECK(y.find("bandwidth: 1.555TB/s") != std::string::npos);
  CHECK(y.find("latency: 400ns") != std::string::npos);         // defaults are written too
  CHECK(y.find("issue_interval: 4") != std::string::npos);      // ... also inside list records
  CHECK(y.find("base:") == std::string::npos);
  // Schema order: sm before memory before launch.
  CHECK(y.find("sm:") < y.find("memory:"));
  CHECK(y.find("memory:") < y.find("launch:"));

  const Config again = Config::from_yaml_text(y, test_schema(), "resolved.yaml");
  CHECK(again.same_values(c));
  CHECK(again.string("name") == "with: colon # and hash");
  CHECK(again.bytes("sm.shared_memory") == 164 * 1024);
  CHECK(again.list("mma").size() == 1);
  CHECK(again.has("sm.count"));  // in the resolved file every value is explicit
  // Written atomically and read back from disk.
  c.write_resolved(dir / "out" / "config.resolved.yaml");
  CHECK(Config::load(dir / "out" / "config.resolved.yaml", test_schema()).same_values(c));
  // same_values really compares: one changed value makes a difference.
  CHECK_FALSE(Config::from_yaml_text(y, test_schema(), "r.yaml", {"sm.count=81"}).same_values(c));
  CHECK_FALSE(Config::from_yaml_text(y, test_schema(), "r.yaml", {"mma=[]"}).same_values(c));
  std::filesystem::remove_all(dir);
}

TEST_CASE("config describe: a Markdown table with path, type, unit, default, range and description") {
  const std::string d = describe(test_schema());
  CHECK(d.find("## `kind: testhw`") != std::string::npos);
  CHECK(d.find("| parameter | type | unit | default | range | description |") != std::string::npos);
  CHECK(d.find("| `sm.count` | integer |  | `80` | between 1 and 1024 | number of SMs |") != std::string::npos);
  CHECK(d.find("| `sm.subcores` | integer |  | **required** |") != std::string::npos);
  CHECK(d.find("| `memory.dram.bandwidth` | bandwidth | B/s") != std::string::npos);
  CHECK(d.find("`900GB/s` | at least 1GB/s | DRAM bandwidth |") != std::string::npos);
  CHECK(d.find("`gto`, `lrr`, `oldest`") != std::string::npos);
  CHECK(d.find("| `mma` | list of records |") != std::string::npos);
  CHECK(d.find("| `mma[].latency` | cycles |") != std::string::npos);
  // One row per parameter: 13 parameters, 1 list, 3 record fields, plus header and rule.
  std::size_t rows = 0;
  for (std::size_t p = d.find("\n|"); p != std::string::npos; p = d.find("\n|", p + 1)) ++rows;
  CHECK(rows == 13 + 1 + 3 + 2);
}

namespace {
const Schema& registered_test_schema() { return test_schema(); }
}  // namespace

TEST_CASE("config registry: register, find, list kinds, read a file's kind") {
  register_schema("testhw", &registered_test_schema);
  REQUIRE(find_schema("testhw") != nullptr);
  CHECK(find_schema("testhw")->kind() == "testhw");
  CHECK(find_schema("no-such-kind") == nullptr);
  const auto kinds = schema_kinds();
  CHECK(std::find(kinds.begin(), kinds.end(), "testhw") != kinds.end());
  CHECK(std::is_sorted(kinds.begin(), kinds.end()));

  const auto dir = fresh_dir("registry");
  write_text(dir / "ok.yaml", "version: 1\n\nkind: testhw\n");
  long line = 0;
  CHECK(read_kind(dir / "ok.yaml", &line) == "testhw");
  CHECK(line == 3);
  CHECK(&schema_for_file(dir / "ok.yaml") == find_schema("testhw"));
  write_text(dir / "nokind.yaml", "version: 1\n");
  CHECK(input_error_of([&] { (void)read_kind(dir / "nokind.yaml"); }).find("nokind.yaml:1: kind: expected") != std::string::npos);
  write_text(dir / "other.yaml", "version: 1\nkind: quantum\n");
  const std::string e = input_error_of([&] { (void)schema_for_file(dir / "other.yaml"); });
  CHECK(e.find("other.yaml:2: kind: unknown config kind 'quantum'; expected one of:") != std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST_CASE("config schema: declaration mistakes are caught when the schema is built") {
  Schema s("k", "");
  s.add({"a.b", ParamType::integer, "1", ""});
  CHECK_THROWS_AS(s.add({"a.b", ParamType::integer, "1", ""}), std::logic_error);       // twice
  CHECK_THROWS_AS(s.add({"a", ParamType::integer, "1", ""}), std::logic_error);         // a section
  CHECK_THROWS_AS(s.add({"a.b.c", ParamType::integer, "1", ""}), std::logic_error);     // under a value
  CHECK_THROWS_AS(s.add({"Bad.Case", ParamType::integer, "1", ""}), std::logic_error);  // not snake_case
  CHECK_THROWS_AS(s.add({"x", ParamType::bytes, "12 apples", ""}), std::logic_error);   // bad default
  CHECK_THROWS_AS(s.add({"y", ParamType::integer, "0", "", 1, 10}), std::logic_error);  // default out of range
  CHECK_THROWS_AS(s.add({"z", ParamType::choice, "a", ""}), std::logic_error);          // no choices
  Schema reserved("r", "");
  reserved.add({"base", ParamType::string, "x", ""});
  CHECK_THROWS_AS((void)Config::from_yaml_text("version: 1\nkind: r\n", reserved), std::logic_error);
}

TEST_CASE("config suggestions: edit distance and closeness") {
  CHECK(edit_distance("count", "count") == 0);
  CHECK(edit_distance("cout", "count") == 1);
  CHECK(edit_distance("bandwdith", "bandwidth") == 1);  // a swap counts once
  CHECK(edit_distance("", "abc") == 3);
  CHECK(closest("bandwith", {"latency", "bandwidth"}) == "bandwidth");
  CHECK(closest("xyz", {"latency", "bandwidth"}).empty());
}
