#pragma once
// A profiled run as the profilers record it (PyTorch's Kineto trace, traces/README.md): the
// framework's CPU ops with the shapes and dtypes of their inputs, and the GPU kernels each op
// launched with their measured durations. Readers fill it; profile_mapping.h turns its op calls
// into tcsim Kernels.
#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace tcsim::workload {

using Dims = std::vector<std::int64_t>;

// One framework op call (aten::mm, aten::convolution_backward, ...).
struct ProfiledOp {
  std::string name;                 // "aten::addmm"
  double start_us = 0, dur_us = 0;
  std::int64_t tid = 0;
  int parent = -1;                  // the enclosing op on the same thread, -1 at top level
  // One entry per argument: a tensor's sizes; a tensor list's sizes (each element); [] otherwise.
  std::vector<Dims> input_dims;
  std::vector<std::vector<Dims>> input_lists;  // per argument, the sizes of a TensorList's tensors
  std::vector<std::string> input_types;        // "float", "c10::Half", "c10::BFloat16", "Scalar", ""
  std::vector<Dims> input_strides;             // empty when the trace has none
  std::vector<std::string> concrete;           // scalars and int lists as written ("[1, 1]", "True"), or ""
  std::string origin;                          // where it was read (file: event index)
};

// One GPU kernel launch.
struct ProfiledKernel {
  std::string name;
  double start_us = 0, dur_us = 0;
  std::int64_t device = 0, stream = 0;
  std::array<std::int64_t, 3> grid{0, 0, 0}, block{0, 0, 0};
  int op = -1;                      // the op call that launched it (innermost on the CPU stack), -1: none known
  std::string origin;
  // Hardware counters the profiler measured (Nsight Compute), unit in the name:
  // sm_throughput_pct, dram_throughput_pct, tensor_pipe_pct.
  std::vector<std::pair<std::string, double>> metrics;
};

struct Profile {
  std::string source;               // the file
  std::string format;               // "kineto"
  std::vector<ProfiledOp> ops;
  std::vector<ProfiledKernel> kernels;  // in start order
  std::vector<std::pair<std::string, std::string>> meta;  // device name, versions when recorded
};

}  // namespace tcsim::workload
