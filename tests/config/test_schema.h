#pragma once
// A small schema of every parameter type, for the config tests (no model's schema is needed).
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include "common/error.h"
#include "config/schema.h"

namespace tcsim::config_test {

inline const config::Schema& test_schema() {
  using config::ParamType;
  static const config::Schema s = [] {
    const double inf = INFINITY;
    config::Schema s("testhw", "A test accelerator with one parameter of each type.");
    s.add({"name", ParamType::string, "tiny", "a display name"});
    s.add({"sm.count", ParamType::integer, "80", "number of SMs", 1, 1024});
    s.add({"sm.subcores", ParamType::integer, "", "sub-cores per SM", 1, 8});
    s.add({"sm.clock", ParamType::frequency, "1.53GHz", "core clock", 1e6, 1e10});
    s.add({"sm.shared_memory", ParamType::bytes, "96KiB", "shared memory per SM", 1024});
    s.add({"sm.scheduler", ParamType::choice, "gto", "warp scheduler policy", -inf, inf, {"gto", "lrr", "oldest"}});
    s.add({"memory.dram.bandwidth", ParamType::bandwidth, "900GB/s", "DRAM bandwidth", 1e9});
    s.add({"memory.dram.latency", ParamType::time, "400ns", "DRAM latency"});
    s.add({"memory.l2.size", ParamType::bytes, "6MiB", "L2 size"});
    s.add({"memory.l2.read_bandwidth", ParamType::bytes_per_cycle, "64B/clk", "L2 read bandwidth per SM"});
    s.add({"launch", ParamType::cycles, "35cycles", "kernel launch overhead", 0, 1e6});
    s.add({"efficiency", ParamType::number, "0.9", "achievable fraction of the peak", 0, 1});
    s.add({"ecc", ParamType::boolean, "false", "ECC on"});
    config::Schema mma("mma", "one MMA instruction");
    mma.add({"shape", ParamType::string, "", "shape, e.g. m16n8k16"});
    mma.add({"latency", ParamType::cycles, "", "dependent-issue latency", 1});
    mma.add({"issue_interval", ParamType::cycles, "4", "cycles between independent issues", 1});
    s.add_list("mma", mma, "the MMA instruction table");
    return s;
  }();
  return s;
}

// A fresh folder under the temp dir for one test's files.
inline std::filesystem::path fresh_dir(const std::string& name) {
  auto d = std::filesystem::temp_directory_path() / ("tcsim_cfgtest_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d;
}

inline void write_text(const std::filesystem::path& p, const std::string& text) {
  std::filesystem::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

}  // namespace tcsim::config_test

namespace tcsim::config_test {
// The message of the InputError `f` throws ("" when it throws none; other exceptions propagate).
template <class F>
std::string input_error_of(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}
}  // namespace tcsim::config_test
