// base: files (chains, relative paths, cycles) and --set overrides.
#include <doctest/doctest.h>

#include "config/config.h"
#include "test_schema.h"

using tcsim::config::Config;
using tcsim::config_test::fresh_dir;
using tcsim::config_test::input_error_of;
using tcsim::config_test::test_schema;
using tcsim::config_test::write_text;

TEST_CASE("config base: a chain of base files, each overriding field by field; lists replaced whole") {
  const auto dir = fresh_dir("base_chain");
  write_text(dir / "root.yaml",
             "version: 1\nkind: testhw\n"
             "sm:\n  count: 80\n  subcores: 4\n  clock: 1530MHz\n"
             "mma:\n  - {shape: a, latency: 10}\n  - {shape: b, latency: 20}\n");
  write_text(dir / "mid" / "mid.yaml",
             "version: 1\nkind: testhw\nbase: ../root.yaml\n"
             "sm:\n  count: 40\n"
             "mma:\n  - {shape: c, latency: 30}\n");
  write_text(dir / "mid" / "leaf" / "leaf.yaml",
             "version: 1\nkind: testhw\nbase: ../mid.yaml\n"
             "sm: {clock: 1.2GHz}\n");
  const Config c = Config::load(dir / "mid" / "leaf" / "leaf.yaml", test_schema());
  CHECK(c.integer("sm.count") == 40);          // from mid
  CHECK(c.integer("sm.subcores") == 4);        // from root
  CHECK(c.frequency_hz("sm.clock") == 1.2e9);  // from leaf
  const auto mma = c.list("mma");
  REQUIRE(mma.size() == 1);                    // mid's list replaced root's as a whole
  CHECK(mma[0].string("shape") == "c");
  // where() points at the file and line each value came from.
  CHECK(c.where("sm.count") == (dir / "mid" / "leaf" / ".." / "mid.yaml").string() + ":5: sm.count");
  CHECK(c.where("sm.subcores").find("root.yaml:5: sm.subcores") != std::string::npos);
  CHECK(c.where("sm.clock") == (dir / "mid" / "leaf" / "leaf.yaml").string() + ":4: sm.clock");

  SUBCASE("--set overrides after every file") {
    const Config s = Config::load(dir / "mid" / "leaf" / "leaf.yaml", test_schema(),
                                  {"sm.count=20", "memory.dram.bandwidth=2TB/s", "mma=[{shape: d, latency: 5}]"});
    CHECK(s.integer("sm.count") == 20);
    CHECK(s.bandwidth_bytes_per_s("memory.dram.bandwidth") == 2e12);
    CHECK(s.where("sm.count") == "--set: sm.count");
    REQUIRE(s.list("mma").size() == 1);
    CHECK(s.list("mma")[0].string("shape") == "d");
    CHECK(s.has("memory.dram.bandwidth"));
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("config base: errors in a base file name the base file") {
  const auto dir = fresh_dir("base_err");
  write_text(dir / "a.yaml", "version: 1\nkind: testhw\nsm: {subcores: 4, cont: 1}\n");
  write_text(dir / "b.yaml", "version: 1\nkind: testhw\nbase: a.yaml\n");
  const std::string e = input_error_of([&] { (void)Config::load(dir / "b.yaml", test_schema()); });
  CHECK(e.find((dir / "a.yaml").string() + ":3: sm.cont: unknown key") != std::string::npos);
  write_text(dir / "c.yaml", "version: 1\nkind: testhw\nbase: nowhere.yaml\n");
  const std::string missing = input_error_of([&] { (void)Config::load(dir / "c.yaml", test_schema()); });
  CHECK(missing.find("c.yaml:3: base: base file") != std::string::npos);
  CHECK(missing.find("not found") != std::string::npos);
  write_text(dir / "d.yaml", "version: 1\nkind: gpu\n");
  write_text(dir / "e.yaml", "version: 1\nkind: testhw\nbase: d.yaml\n");
  const std::string kind = input_error_of([&] { (void)Config::load(dir / "e.yaml", test_schema()); });
  CHECK(kind.find("d.yaml:2: kind: expected testhw") != std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST_CASE("config base: a cycle of base files is detected") {
  const auto dir = fresh_dir("base_cycle");
  write_text(dir / "x.yaml", "version: 1\nkind: testhw\nbase: y.yaml\nsm: {subcores: 4}\n");
  write_text(dir / "y.yaml", "version: 1\nkind: testhw\nbase: z.yaml\n");
  write_text(dir / "z.yaml", "version: 1\nkind: testhw\nbase: x.yaml\n");
  const std::string e = input_error_of([&] { (void)Config::load(dir / "x.yaml", test_schema()); });
  CHECK(e.find("z.yaml:3: base: base files form a cycle: x.yaml -> y.yaml -> z.yaml -> x.yaml") != std::string::npos);
  write_text(dir / "self.yaml", "version: 1\nkind: testhw\nbase: self.yaml\n");
  CHECK(input_error_of([&] { (void)Config::load(dir / "self.yaml", test_schema()); }).find("cycle") != std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST_CASE("config: a missing file is an InputError naming it") {
  const std::string e = input_error_of([] { (void)Config::load("/nonexistent/cfg.yaml", test_schema()); });
  CHECK(e == "/nonexistent/cfg.yaml: config file not found");
}
