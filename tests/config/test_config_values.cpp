// Loading values of every parameter type, with units, defaults, has() and where().
#include <doctest/doctest.h>

#include "config/config.h"
#include "test_schema.h"

using tcsim::config::Config;
using tcsim::config_test::test_schema;

namespace {
const char* kHeader = "version: 1\nkind: testhw\n";
}

TEST_CASE("config: every parameter type parses its units") {
  const std::string text = std::string(kHeader) +
                           "name: \"big one\"\n"
                           "sm:\n"
                           "  count: 108\n"
                           "  subcores: 4\n"
                           "  clock: 1410MHz\n"
                           "  shared_memory: 164KiB\n"
                           "  scheduler: lrr\n"
                           "memory:\n"
                           "  dram: {bandwidth: 1.555TB/s, latency: 0.5us}\n"
                           "  l2:\n"
                           "    size: 40MB\n"
                           "    read_bandwidth: 128B/clk\n"
                           "launch: 2000\n"
                           "efficiency: 0.75\n"
                           "ecc: true\n";
  const Config c = Config::from_yaml_text(text, test_schema(), "a100.yaml");
  CHECK(c.string("name") == "big one");
  CHECK(c.integer("sm.count") == 108);
  CHECK(c.integer("sm.subcores") == 4);
  CHECK(c.frequency_hz("sm.clock") == 1.41e9);
  CHECK(c.bytes("sm.shared_memory") == 164 * 1024);
  CHECK(c.string("sm.scheduler") == "lrr");
  CHECK(c.bandwidth_bytes_per_s("memory.dram.bandwidth") == 1.555e12);
  CHECK(c.time_s("memory.dram.latency") == doctest::Approx(0.5e-6).epsilon(1e-15));
  CHECK(c.bytes("memory.l2.size") == 40000000u);
  CHECK(c.bytes_per_cycle("memory.l2.read_bandwidth") == 128.0);
  CHECK(c.cycles("launch") == 2000.0);
  CHECK(c.number("efficiency") == 0.75);
  CHECK(c.boolean("ecc") == true);
  CHECK(c.list("mma").empty());
  CHECK(c.text("sm.shared_memory") == "164KiB");  // the unit form is kept
}

TEST_CASE("config: defaults fill what is not given; has() tells them apart") {
  const Config c = Config::from_yaml_text(std::string(kHeader) + "sm:\n  subcores: 2\n", test_schema(), "min.yaml");
  CHECK(c.integer("sm.count") == 80);
  CHECK(c.bytes("sm.shared_memory") == 96 * 1024);
  CHECK(c.bandwidth_bytes_per_s("memory.dram.bandwidth") == 9e11);
  CHECK(c.time_s("memory.dram.latency") == doctest::Approx(400e-9).epsilon(1e-15));
  CHECK(c.bytes("memory.l2.size") == 6u * 1024 * 1024);
  CHECK(c.cycles("launch") == 35.0);
  CHECK(c.boolean("ecc") == false);
  CHECK(c.has("sm.subcores"));
  CHECK_FALSE(c.has("sm.count"));
  CHECK_FALSE(c.has("mma"));
  CHECK(c.where("sm.subcores") == "min.yaml:4: sm.subcores");
  CHECK(c.where("sm.count") == "min.yaml: sm.count");
}

TEST_CASE("config: dotted keys are a shorthand for nested sections") {
  const Config c = Config::from_yaml_text(std::string(kHeader) + "sm.subcores: 2\nmemory.dram.bandwidth: 1TB/s\n",
                                          test_schema());
  CHECK(c.integer("sm.subcores") == 2);
  CHECK(c.bandwidth_bytes_per_s("memory.dram.bandwidth") == 1e12);
}

TEST_CASE("config: list records are validated and read with their own defaults") {
  const std::string text = std::string(kHeader) +
                           "sm: {subcores: 4}\n"
                           "mma:\n"
                           "  - {shape: m16n8k16, latency: 33}\n"
                           "  - shape: m16n8k8\n"
                           "    latency: 18cycles\n"
                           "    issue_interval: 2\n";
  const Config c = Config::from_yaml_text(text, test_schema(), "l.yaml");
  const auto mma = c.list("mma");
  REQUIRE(mma.size() == 2);
  CHECK(mma[0].string("shape") == "m16n8k16");
  CHECK(mma[0].cycles("latency") == 33.0);
  CHECK(mma[0].cycles("issue_interval") == 4.0);
  CHECK(mma[1].cycles("latency") == 18.0);
  CHECK(mma[1].cycles("issue_interval") == 2.0);
  CHECK(mma[1].where("latency") == "l.yaml:7: mma[1].latency");
  CHECK(c.has("mma"));
}

TEST_CASE("config: reading a parameter as the wrong type or an undeclared path is a bug (logic_error)") {
  const Config c = Config::from_yaml_text(std::string(kHeader) + "sm: {subcores: 2}\n", test_schema());
  CHECK_THROWS_AS((void)c.bytes("sm.count"), std::logic_error);
  CHECK_THROWS_AS((void)c.integer("sm.nope"), std::logic_error);
  CHECK_THROWS_AS((void)c.list("sm.count"), std::logic_error);
  CHECK(c.string("sm.scheduler") == "gto");  // string() also reads a choice
}

TEST_CASE("config: a Config is a cheap copy sharing its values") {
  const Config a = Config::from_yaml_text(std::string(kHeader) + "sm: {subcores: 2}\n", test_schema());
  const Config b = a;  // NOLINT: the copy is the point
  CHECK(b.integer("sm.subcores") == 2);
  CHECK(b.same_values(a));
}
