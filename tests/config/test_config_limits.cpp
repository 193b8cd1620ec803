// Limits a generated or corrupted config cannot get past (issue 13): the depth of a `base:` chain
// and a second YAML document.
#include <doctest/doctest.h>

#include "config/config.h"
#include "test_schema.h"

using tcsim::config::Config;
using tcsim::config_test::fresh_dir;
using tcsim::config_test::input_error_of;
using tcsim::config_test::test_schema;
using tcsim::config_test::write_text;

TEST_CASE("config base: a chain deeper than 32 files is an error, not a stack overflow") {
  const auto dir = fresh_dir("base_deep");
  const int n = 3000;  // the audit's chain overflowed the stack
  for (int i = 0; i < n; ++i) {
    std::string text = "version: 1\nkind: testhw\n";
    if (i + 1 < n) text += "base: c" + std::to_string(i + 1) + ".yaml\n";
    else text += "sm: {subcores: 4}\n";
    write_text(dir / ("c" + std::to_string(i) + ".yaml"), text);
  }
  const std::string e = input_error_of([&] { (void)Config::load(dir / "c0.yaml", test_schema()); });
  INFO(e);
  CHECK(e.find(":3: base: base chain deeper than 32 files") != std::string::npos);
  // 32 files deep still loads (the last one, c2999, has no base).
  const std::string ok = input_error_of([&] { (void)Config::load(dir / ("c" + std::to_string(n - 32) + ".yaml"), test_schema()); });
  CHECK(ok.find("deeper") == std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST_CASE("config: a second YAML document after --- is an error, not ignored") {
  const std::string e = input_error_of([] {
    (void)Config::from_yaml_text("version: 1\nkind: testhw\nsm: {subcores: 4}\n---\nsm: {subcores: 8}\n", test_schema(), "two.yaml");
  });
  INFO(e);
  CHECK(e.find("two.yaml:5: a second YAML document") != std::string::npos);
}

// yaml-cpp 0.7's LoadAll never returns on these (tests/fuzz/findings/fuzz_systolic_config-timeout).
TEST_CASE("config: a ',' where a YAML document starts is a parse error, not an endless parse") {
  for (const char* text : {",", "# a comment\n,\nversion: 1\n", "- a\n, b\n"}) {
    const std::string e = input_error_of([&] { (void)Config::from_yaml_text(text, test_schema(), "comma.yaml"); });
    INFO(text);
    INFO(e);
    CHECK(e.find("not valid YAML: unexpected ',' where a value should start") != std::string::npos);
  }
}
