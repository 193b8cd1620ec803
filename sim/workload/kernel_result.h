#pragma once
// What an Accelerator reports for one Kernel. Metric names carry their unit in the name
// (time_us, dram_read_bytes, tensor_util_frac ...), so every writer can print them as columns.
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tcsim {

struct KernelResult {
  std::string name;
  double cycles = 0;     // core-clock cycles of one run of the kernel
  double time_s = 0;     // wall time of one run (cycles / clock, plus launch overhead where modelled)
  double flops = 0;      // useful floating-point (or integer) operations of one run
  std::string bound;     // what limits it: tensor, cuda_core, shared_memory, l2, dram, latency, compute, memory ...
  std::string mapping;   // the mapping chosen, in words (CTA tile, warp tile, stages, split-K; or folds)
  std::vector<std::pair<std::string, double>> metrics;  // ordered; unit in the name
  std::vector<std::string> notes;                       // e.g. "steady state extrapolated after 8 of 512 iterations"

  double tflops() const { return time_s > 0 ? flops / time_s / 1e12 : 0; }
  void set(const std::string& metric, double value);
  std::optional<double> get(const std::string& metric) const;
  // The kernel launches a run makes and the fixed time each adds: the "launches" metric (what a
  // truncating profiler cuts per kernel, engine/validation/validation.cpp) and "launch_overhead_us".
  void set_launches(double launches, double each_s) {
    set("launch_overhead_us", launches * each_s * 1e6);
    set("launches", launches);
  }
};

}  // namespace tcsim
