#pragma once
// A design-space sweep as written in configs/sweeps/*.yaml (format: configs/sweeps/README.md):
// a base hardware config, axes (config paths with values, ranges or named presets), how the axes
// combine (product or zip), constraints that drop points, the workloads run at every point, and
// the metrics recorded. Reading checks the spec's own shape; the axis values are checked against
// the config schema when the points are expanded (sweep_points.h).
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "engine/network/network_workload.h"

namespace tcsim::engine::sweep {

struct AxisValue {
  std::string label;                    // as it appears in the results ("2TB/s", "2x")
  std::vector<std::string> overrides;   // "a.b=v", as --set takes them
  std::optional<double> si;             // the label's value in SI units (bytes, B/s, Hz, W...), if numeric
};

struct Axis {
  std::string name;                     // column name: the config path, or `name:` for presets
  std::string path;                     // the config path; empty for preset axes
  std::vector<AxisValue> values;
  long line = 0;                        // in the spec file
};

struct WorkloadSpec {
  std::string name;                     // unique; the `workload` column
  bool trace = false;                   // an op-trace CSV instead of a network
  std::filesystem::path file;           // resolved (relative to the spec's folder)
  std::string file_as_written;
  std::optional<std::int64_t> batch, seq, kv_len;
  std::string precision = "fp32";       // networks: workload::parse_precision names
  std::string pass = "infer";           // infer | train
  NetworkRunChoices run;                // layout, framework, attention, kv_cache, cuda_graphs, ... (as tcsim network)
  long line = 0;
};

struct ConstraintSpec {
  std::string text;
  long line = 0;
};

struct SweepSpec {
  std::filesystem::path file;           // the spec file
  std::string name;                     // `name:` or the file's stem
  std::filesystem::path base;           // resolved hardware config
  std::string base_as_written;
  long base_line = 0;
  std::vector<Axis> axes;
  bool zip = false;                     // mode: zip (else product)
  long mode_line = 0;
  std::vector<ConstraintSpec> constraints;
  std::vector<WorkloadSpec> workloads;
  std::vector<std::string> metrics;     // empty: every metric (sweep_metrics.h)
  long metrics_line = 0;
  bool layer_detail = false;            // `detail: layers`: per-layer rows in results.h5
};

// Bounds (each point resolves a config before anything runs, ~1 ms): a range axis has at most
// kMaxAxisValues values, and a spec at most kMaxSweepPoints combinations before its constraints.
inline constexpr std::int64_t kMaxAxisValues = 10000;
inline constexpr double kMaxSweepPoints = 1e6;

// InputError("file:line: key", what was expected) for anything malformed.
SweepSpec read_sweep_spec(const std::filesystem::path& file);

// The SI value of a number with an optional unit ("2TB/s", "40MiB", "150W", "1.41GHz", "8");
// nullopt when it is not one.
std::optional<double> si_value(const std::string& text);

}  // namespace tcsim::engine::sweep
