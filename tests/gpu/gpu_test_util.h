#pragma once
// Shared helpers of the GPU tests: the shipped configs and the DeepBench V100 GEMM rows.
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "config/config.h"
#include "gpu/gpu_config.h"
#include "test_support.h"

namespace tcsim::gpu::test {

inline GpuConfig shipped(const std::string& name) {
  const auto path = tcsim::test::source_dir() / "configs" / "gpu" / (name + ".yaml");
  return GpuConfig::from(config::Config::load(path, config_schema()));
}

struct DeepBenchGemm {
  std::int64_t m = 0, n = 0, k = 0;
  bool ta = false, tb = false;
  double time_ms = 0;
};

// Rows of a DeepBench GEMM CSV (source,M,N,K,A Transpose,B Transpose,Time (msec),TERAFLOPS).
inline std::vector<DeepBenchGemm> read_deepbench_gemm(const std::filesystem::path& file) {
  std::vector<DeepBenchGemm> rows;
  std::ifstream in(file);
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::string cur;
    for (char c : line) {
      if (c == ',') f.push_back(cur), cur.clear();
      else if (c != '\r') cur += c;
    }
    f.push_back(cur);
    if (f.size() < 7) continue;
    DeepBenchGemm r;
    r.m = std::stoll(f[1]), r.n = std::stoll(f[2]), r.k = std::stoll(f[3]);
    r.ta = f[4] == "T", r.tb = f[5] == "T";
    r.time_ms = std::stod(f[6]);
    rows.push_back(r);
  }
  return rows;
}

}  // namespace tcsim::gpu::test
