#pragma once
// Measured kernel timings, the input of `tcsim validate`.
//
// MeasuredRow is what every measured-data reader produces: the kernel that ran and its measured
// time. Two sources are read:
//  - our measured-data schema (validation/measured/README.md), written by validation/gpu/gemm_bench:
//    a CSV with the op-trace columns plus time_us (and tflops, repeats, kernel), and an optional
//    meta.yaml beside it (GPU, driver, CUDA, clocks, command, date) whose top-level scalars are
//    kept as metadata;
//  - DeepBench's result CSVs (workload/measured/deepbench.h);
//  - NeuSight's kernel CSVs (workload/measured/neusight.h) and Vidur's operator profiles (workload/measured/vidur.h).
// read_measured() detects which one a file is from its header.
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "workload/csv/csv_text.h"
#include "workload/kernel.h"

namespace tcsim::workload {

struct MeasuredRow {
  Kernel kernel;         // what ran (name, shape, formats, layout, pass)
  double time_s = 0;     // measured time of one run (of kernel.count runs, summed, where count > 1)
  std::string origin;    // "file:line" of the row, for reports
  std::string group;     // rows that belong together in summaries, e.g. "gemm fp16", "conv fwd fp32"
  // Host work inside the measured time, in units of one plain eager op call
  // (Accelerator::host_overhead_s): 0 for GPU-only times (profiler kernel times, back-to-back
  // loops); 1 for a PyTorch function timed with CUDA events around it on an idle GPU; more for call
  // paths with Python wrappers (nn.Module, lambdas; workload/measured/neusight.h). Validation predicts
  // such rows as host and kernel overlapped (engine/validation/validation.h).
  double host_calls = 0;
  // The profiler truncated each kernel's duration to this resolution before the row's kernels were
  // summed (0: not truncated). PyTorch's profiler before its nanosecond traces wrote whole
  // microseconds, cut, not rounded (libkineto's nsToUs, "No rounding!"): Vidur's A100 profiles.
  // Validation compares the prediction as such a profiler reports it, half the resolution less per
  // kernel launch: the expected truncation of a duration whose fraction is uniform.
  double truncated_to_s = 0;
};

struct MeasuredSet {
  std::string source;                                        // the file read
  std::string schema;                                        // "tcsim-measured" or "deepbench-gemm"/"deepbench-conv"
  std::vector<std::pair<std::string, std::string>> meta;    // e.g. gpu, driver, cuda (from meta.yaml)
  std::vector<MeasuredRow> rows;
};

// Our schema: the op-trace columns (workload/csv/op_trace.h; m, n, k required) plus time_us (required).
// A row whose time_us is empty, "nan" or "n/a" was not measured (e.g. a format the GPU lacks) and
// is skipped (meta "rows_not_measured" counts them); any other time must be a number > 0.
// Other columns (tflops, repeats, kernel, ...) are ignored. A row's group is its formats, e.g.
// "gemm fp16.fp16.fp32". meta.yaml beside the CSV, when present, adds its scalar values to meta
// with dotted keys ("clocks.sm_mhz").
MeasuredSet read_measured_schema(const std::filesystem::path& file);

// The rows of our schema from a parsed table (the CSV file, or the HDF5 form's /measured group
// turned into text): schema "tcsim-measured", source = csv.file, meta = {rows_not_measured}.
MeasuredSet measured_from_table(const CsvText& csv);

// meta.yaml's scalar values with dotted keys ("clocks.sm_mhz"), in file order; sequences of
// scalars are joined with spaces. Empty when the file does not exist; InputError when it is not YAML.
std::vector<std::pair<std::string, std::string>> read_meta_yaml(const std::filesystem::path& meta_yaml);

// Any supported measured file: our schema, a DeepBench GEMM/convolution CSV, a NeuSight kernel CSV or
// a Vidur profile CSV (detected by header).
MeasuredSet read_measured(const std::filesystem::path& file);

}  // namespace tcsim::workload
