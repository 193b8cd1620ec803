// Every kind of bad config gives an InputError with file:line, the key path and what was expected.
#include <doctest/doctest.h>

#include "config/config.h"
#include "test_schema.h"

using tcsim::config::Config;
using tcsim::config_test::input_error_of;
using tcsim::config_test::test_schema;

namespace {

std::string load_error(const std::string& body, std::vector<std::string> sets = {}) {
  return input_error_of(
      [&] { (void)Config::from_yaml_text("version: 1\nkind: testhw\n" + body, test_schema(), "t.yaml", sets); });
}

bool has(const std::string& haystack, const std::string& needle) {
  if (haystack.find(needle) != std::string::npos) return true;
  MESSAGE("'" << needle << "' not in: " << haystack);
  return false;
}

}  // namespace

TEST_CASE("config errors: an unknown key names file, line, path and suggests the near miss") {
  const std::string e = load_error("sm:\n  subcores: 4\n  cout: 12\n");
  CHECK(has(e, "t.yaml:5: sm.cout: unknown key 'cout'"));
  CHECK(has(e, "did you mean 'sm.count'?"));
  // Misplaced at the top level: the suggestion is the full path.
  const std::string top = load_error("sm: {subcores: 4}\nsm_count: 12\n");
  CHECK(has(top, "t.yaml:4: sm_count: unknown key"));
  CHECK(has(top, "did you mean 'sm.count'?"));
  // Nothing close: the valid keys of that section are listed.
  const std::string far = load_error("sm: {subcores: 4}\nmemory:\n  zzzzzz: 1\n");
  CHECK(has(far, "t.yaml:5: memory.zzzzzz: unknown key"));
  CHECK(has(far, "expected one of: dram, l2"));
}

TEST_CASE("config errors: a wrong unit says what was expected") {
  const std::string e = load_error("sm: {subcores: 4}\nmemory:\n  dram:\n    bandwidth: 1.4GHz\n");
  CHECK(has(e, "t.yaml:6: memory.dram.bandwidth:"));
  CHECK(has(e, "expected a bandwidth like 900GB/s"));
  CHECK(has(load_error("sm: {subcores: 4, clock: 1.4GB/s}\n"), "t.yaml:3: sm.clock: expected a frequency like 1.41GHz"));
  CHECK(has(load_error("sm: {subcores: 4, shared_memory: 96Kb}\n"), "sm.shared_memory: expected a size like 96KiB"));
  CHECK(has(load_error("sm: {subcores: 4}\nmemory: {dram: {latency: 5}}\n"), "memory.dram.latency: expected a time like 5us"));
  CHECK(has(load_error("sm: {subcores: 4}\nmemory: {l2: {read_bandwidth: 64GB/s}}\n"),
            "memory.l2.read_bandwidth: expected a per-cycle bandwidth like 128B/clk"));
  CHECK(has(load_error("sm: {subcores: 4}\nlaunch: 5us\n"), "t.yaml:4: launch: expected a cycle count"));
  CHECK(has(load_error("sm: {subcores: four}\n"), "t.yaml:3: sm.subcores: expected an integer like 80, got 'four'"));
  CHECK(has(load_error("sm: {subcores: 2.5}\n"), "sm.subcores: expected an integer"));
  CHECK(has(load_error("sm: {subcores: 4}\necc: yes\n"), "t.yaml:4: ecc: expected true or false, got 'yes'"));
  CHECK(has(load_error("sm: {subcores: 4}\nefficiency: 90%\n"), "efficiency: expected a plain number"));
  const std::string choice = load_error("sm: {subcores: 4, scheduler: lrrr}\n");
  CHECK(has(choice, "sm.scheduler: expected one of gto, lrr, oldest, got 'lrrr'; did you mean 'lrr'?"));
}

TEST_CASE("config errors: out of range says the range in the parameter's unit") {
  CHECK(has(load_error("sm: {subcores: 4, count: 0}\n"), "t.yaml:3: sm.count: expected an integer (between 1 and 1024), got '0'"));
  CHECK(has(load_error("sm: {subcores: 9}\n"), "sm.subcores: expected an integer (between 1 and 8)"));
  CHECK(has(load_error("sm: {subcores: 4}\nmemory: {dram: {bandwidth: 0.5GB/s}}\n"),
            "memory.dram.bandwidth: expected a bandwidth like 900GB/s (at least 1GB/s), got '0.5GB/s'"));
  CHECK(has(load_error("sm: {subcores: 4, shared_memory: 512B}\n"), "at least 1KiB"));
  CHECK(has(load_error("sm: {subcores: 4}\nefficiency: 1.5\n"), "efficiency: expected a number (between 0 and 1)"));
}

TEST_CASE("config errors: a missing required parameter names where it belongs") {
  CHECK(has(load_error("sm:\n  count: 4\n"), "t.yaml:3: sm.subcores: missing required parameter: expected an integer"));
  CHECK(has(load_error("name: x\n"), "t.yaml: sm.subcores: missing required parameter"));
  const std::string rec = load_error("sm: {subcores: 4}\nmma:\n  - {shape: m8n8k4}\n");
  CHECK(has(rec, "t.yaml:5: mma[0].latency: missing required parameter: expected a cycle count"));
}

TEST_CASE("config errors: version and kind") {
  auto err = [](const std::string& text) {
    return input_error_of([&] { (void)Config::from_yaml_text(text, test_schema(), "v.yaml"); });
  };
  CHECK(has(err("kind: testhw\nsm: {subcores: 4}\n"), "v.yaml:1: version: missing; expected `version: 1`"));
  CHECK(has(err("version: 2\nkind: testhw\n"), "v.yaml:1: version: expected 1"));
  CHECK(has(err("version: 1\nsm: {subcores: 4}\n"), "v.yaml:1: kind: missing; expected `kind: testhw`"));
  CHECK(has(err("version: 1\nkind: gpu\n"), "v.yaml:2: kind: expected testhw"));
  CHECK(has(err("- 1\n- 2\n"), "v.yaml:1: expected a YAML map"));
  CHECK(has(err(""), "v.yaml: expected a YAML map"));
  const std::string bad = err("version: 1\nkind: testhw\nsm: [1, 2\n");
  CHECK(has(bad, "v.yaml:"));
  CHECK(has(bad, ": not valid YAML"));
}

TEST_CASE("config errors: wrong shapes (a map for a value, a value for a section, duplicates)") {
  CHECK(has(load_error("sm:\n  subcores: {a: 1}\n"), "t.yaml:4: sm.subcores: expected an integer, got a map"));
  CHECK(has(load_error("sm: 4\n"), "t.yaml:3: sm: expected a section (a map) with keys count, subcores"));
  CHECK(has(load_error("sm: {subcores: 4}\nmma: {shape: x}\n"), "t.yaml:4: mma: expected a list of records"));
  CHECK(has(load_error("sm: {subcores: 4}\nmma: [5]\n"), "t.yaml:4: mma[0]: expected a record (a map)"));
  CHECK(has(load_error("sm:\n  subcores: 4\n  subcores: 5\n"), "t.yaml:5: sm.subcores: duplicate key"));
  CHECK(has(load_error("sm: {subcores: 4}\nsm.subcores: 5\n"), "t.yaml:4: sm.subcores: duplicate key"));
  CHECK(has(load_error("sm:\n  subcores:\n"), "t.yaml:4: sm.subcores: expected an integer, got nothing"));
}

TEST_CASE("config errors: a bad field in a list record names the record and the field") {
  const std::string body =
      "sm: {subcores: 4}\n"
      "mma:\n"
      "  - {shape: m16n8k16, latency: 33}\n"
      "  - shape: m16n8k8\n"
      "    latncy: 18\n";
  const std::string e = load_error(body);
  CHECK(has(e, "t.yaml:7: mma[1].latncy: unknown key 'latncy'"));
  CHECK(has(e, "did you mean 'latency'?"));
  CHECK(has(load_error("sm: {subcores: 4}\nmma:\n  - {shape: a, latency: 0}\n"),
            "t.yaml:5: mma[0].latency: expected a cycle count like 35cycles (at least 1cycles), got '0'"));
}

TEST_CASE("config errors: --set with an unknown path, a bad value or no '='") {
  const std::string body = "sm: {subcores: 4}\n";
  CHECK(has(load_error(body, {"sm.cout=3"}), "--set: sm.cout: unknown parameter; did you mean 'sm.count'?"));
  CHECK(has(load_error(body, {"frobnicate=3"}), "--set: frobnicate: unknown parameter; see `tcsim config describe testhw`"));
  CHECK(has(load_error(body, {"sm.count"}), "--set: expected KEY=VALUE"));
  CHECK(has(load_error(body, {"sm.count=abc"}), "--set: sm.count: expected an integer like 80, got 'abc'"));
  CHECK(has(load_error(body, {"sm.count=[1,2]"}), "--set: sm.count: expected an integer, got a list"));
  CHECK(has(load_error(body, {"sm=3"}), "--set: sm: is a section"));
  CHECK(has(load_error(body, {"kind=gpu"}), "--set: kind: cannot be overridden"));
}
