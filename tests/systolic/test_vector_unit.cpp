// The vector unit of a systolic config (sim/systolic/vector): its keys and their errors, the
// roofline of arithmetic, buffer and DRAM cycles, and tcsim network's memory-bound layers on it.
#include <doctest/doctest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <utility>

#include "common/error.h"
#include "config/config.h"
#include "systolic/config/systolic_schema.h"
#include "systolic/systolic_model.h"
#include "systolic/vector/vector_unit.h"
#include "test_support.h"

using namespace tcsim;
using namespace tcsim::systolic;

namespace {

std::string src(const std::string& rel) { return "'" + (test::source_dir() / rel).string() + "'"; }

const std::string kBase =
    "version: 1\nkind: systolic\nname: vu\nsemantics: faithful\nclock: 1GHz\narray:\n  rows: 32\n  cols: 32\n"
    "sram:\n  ifmap: 1MiB\ndram:\n  bandwidth: 100GB/s\n";

SystolicConfig load(const std::string& extra) {
  return config_from(config::Config::from_yaml_text(kBase + extra, config_schema(), "vu.yaml"));
}

std::string error_of(const std::string& extra) {
  try {
    load(extra);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

Kernel memory_op(const char* op, std::int64_t elements, double bytes_each_way, double flops_per_element) {
  Kernel k;
  k.kind = Kernel::Kind::memory;
  k.name = op;
  k.memory.op = op;
  k.memory.elements = elements;
  k.bytes_read = static_cast<std::uint64_t>(bytes_each_way);
  k.bytes_written = static_cast<std::uint64_t>(bytes_each_way);
  k.flops_nontensor = flops_per_element * static_cast<double>(elements);
  return k;
}

}  // namespace

TEST_CASE("systolic vector unit: keys, defaults and bad values") {
  CHECK_FALSE(load("").vector.present());  // default: none
  const SystolicConfig c = load("vector:\n  lanes: 128\n  sram_bandwidth: 256B/clk\n  latency: 20cycles\n");
  CHECK(c.vector.lanes == 128);
  CHECK(c.vector.sram_bytes_per_cycle == 256);
  CHECK(c.vector.latency_cycles == 20);
  // Lanes without the buffer's bandwidth, a bandwidth without a unit, negative lanes, unknown keys.
  CHECK(error_of("vector:\n  lanes: 128\n").find("vu.yaml:14: vector.lanes: a vector unit needs vector.sram_bandwidth") !=
        std::string::npos);
  CHECK(error_of("vector:\n  lanes: 128\n  sram_bandwidth: 2000000B/clk\n").find("vu.yaml:15: vector.sram_bandwidth: expected none or at most") !=
        std::string::npos);
  CHECK(error_of("vector:\n  lanes: 128\n  sram_bandwidth: 256\n").find("vector.sram_bandwidth: expected none or a "
                                                                         "value like 512B/clk") != std::string::npos);
  CHECK(error_of("vector:\n  lanes: -1\n  sram_bandwidth: 256B/clk\n").find("vector.lanes") != std::string::npos);
  CHECK(error_of("vector:\n  lane: 128\n") != "");
}

TEST_CASE("systolic vector unit: the longest of arithmetic, buffer and DRAM cycles, plus the latency") {
  const SystolicConfig c = load("vector:\n  lanes: 128\n  sram_bandwidth: 256B/clk\n  latency: 20cycles\n");
  // 64 Ki fp16 elements read and written (128 KiB each way) fit in the 1 MiB buffer.
  // Arithmetic: 65536 x 8 / 128 = 4096 cycles; buffer: 262144 / 256 = 1024: arithmetic-bound.
  const KernelResult gelu = run_vector_kernel(memory_op("gelu", 65536, 131072, 8), c);
  CHECK(gelu.cycles == 4096 + 20);
  CHECK(gelu.time_s == doctest::Approx(4116e-9));
  CHECK(gelu.bound == "vector");
  CHECK(gelu.get("dram_read_bytes").value() == 0);
  // An add (1 op per element): the buffer bounds it.
  const KernelResult add = run_vector_kernel(memory_op("add", 65536, 131072, 1), c);
  CHECK(add.cycles == 1024 + 20);
  CHECK(add.bound == "sram");
  // 1 Mi elements (2 MiB each way) exceed the 1 MiB buffer: DRAM at 100 GB/s / 1 GHz = 100 B/cycle.
  const KernelResult big = run_vector_kernel(memory_op("add", 1 << 20, 2097152, 1), c);
  CHECK(big.cycles == doctest::Approx(4194304.0 / 100 + 20));
  CHECK(big.bound == "dram");
  CHECK(big.get("dram_write_bytes").value() == 2097152);
  // Parameters a training step's optimizer reads are cold: DRAM however small.
  Kernel adam = memory_op("adam", 1024, 16384, 12);
  adam.memory.cold = true;
  CHECK(run_vector_kernel(adam, c).bound == "dram");
  // Without dram.bandwidth in CALC mode the DRAM keeps up: the buffer bounds the large add, with a note.
  SystolicConfig calc = c;
  calc.dram_bandwidth_bytes_per_s = 0;
  const KernelResult free_dram = run_vector_kernel(memory_op("add", 1 << 20, 2097152, 1), calc);
  CHECK(free_dram.bound == "sram");
  CHECK_FALSE(free_dram.notes.empty());
  // The model runs memory kernels on it; without a unit it refuses them with the key to set.
  CHECK(SystolicModel(c).run(memory_op("relu", 4096, 8192, 1)).bound == "sram");
  const SystolicModel none(load(""));
  CHECK_THROWS_WITH_AS(none.run(memory_op("relu", 4096, 8192, 1)),
                       doctest::Contains("no vector unit (vector.lanes in the config)"), InputError);
}

TEST_CASE("tcsim network on a systolic config with a vector unit: every layer modelled, the unit in the table") {
  const std::string base = "network -c " + src("configs/systolic/tpu_v1.yaml") + " " +
                           src("models/resnet18.yaml") + " --batch 1 --precision int8";
  const auto without = test::run_tcsim(base);
  REQUIRE_MESSAGE(without.exit_code == 0, without.err);
  CHECK(without.out.find("not modelled") != std::string::npos);
  const auto with = test::run_tcsim(base + " --set vector.lanes=256 --set vector.sram_bandwidth=512B/clk");
  REQUIRE_MESSAGE(with.exit_code == 0, with.err);
  CHECK(with.out.find("not modelled") == std::string::npos);
  CHECK(with.out.find(" vector ") != std::string::npos);
  // The memory-bound layers add their time: the step is longer than the array's layers alone.
  auto total_ms = [](const std::string& out) {
    const auto at = out.find("Total: ");
    REQUIRE(at != std::string::npos);
    return std::stod(out.substr(at + 7));
  };
  CHECK(total_ms(with.out) > total_ms(without.out));
}

TEST_CASE("the shipped vector-unit sweep: more lanes or more buffer bandwidth never makes a step slower") {
  const auto out = test::temp_dir("vector_sweep");
  const auto r = test::run_tcsim("sweep " + src("configs/sweeps/systolic_vector_unit.yaml") + " -o '" + out.string() +
                                 "' -j 2");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  // (workload, lanes, bandwidth) -> step time, from summary.csv's columns by name.
  std::ifstream in(out / "summary.csv");
  std::string line;
  REQUIRE(std::getline(in, line));
  auto split = [](const std::string& text) {
    std::vector<std::string> fields;
    std::stringstream ss(text);
    for (std::string f; std::getline(ss, f, ',');) fields.push_back(f);
    return fields;
  };
  const std::vector<std::string> header = split(line);
  auto column = [&](const std::string& name) {
    for (std::size_t i = 0; i < header.size(); ++i)
      if (header[i] == name) return i;
    FAIL("no column " << name);
    return std::size_t{0};
  };
  const std::size_t c_work = column("workload"), c_lanes = column("vector.lanes"),
                    c_bw = column("vector.sram_bandwidth_si"), c_time = column("step_time_s");
  std::map<std::string, std::map<std::pair<int, int>, double>> steps;
  while (std::getline(in, line)) {
    const auto f = split(line);
    steps[f[c_work]][{std::stoi(f[c_lanes]), std::stoi(f[c_bw])}] = std::stod(f[c_time]);
  }
  REQUIRE(steps.size() == 2);
  for (const auto& entry : steps) {  // named copies, not structured bindings: clang 14 cannot capture those
    const std::string workload = entry.first;
    const auto& times = entry.second;
    REQUIRE(times.size() == 12);
    for (const auto& a : times)
      for (const auto& b : times) {
        const bool more = b.first.first >= a.first.first && b.first.second >= a.first.second;
        const double t = a.second, u = b.second;
        if (more) CHECK_MESSAGE(u <= t, workload);
      }
    // BERT-base's softmax, GELU and norms: 8x the lanes take over a fifth off the step.
    if (workload == "bert_base") CHECK(times.at({512, 1024}) < 0.8 * times.at({64, 256}));
  }
}
