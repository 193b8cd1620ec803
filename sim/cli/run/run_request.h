#pragma once
// `tcsim run` parses its options into a RunRequest and hands it to the first registered backend
// that accepts the config (the GPU backend for `kind: gpu` YAML, the systolic backend for
// `kind: systolic` YAML and SCALE-Sim .cfg files). Backends live in sim/cli/run_<model>.cpp and
// register themselves with TCSIM_REGISTER_RUN_BACKEND, so verb_run.cpp knows no model.
#include <cstdint>
#include <string>
#include <vector>

namespace tcsim::cli {

struct RunRequest {
  std::string config_path;              // -c/--config
  std::vector<std::string> overrides;   // --set a.b=v (repeatable), applied in order
  std::string output_dir;               // -o/--output; empty: terminal only
  std::vector<std::string> inputs;      // positional: op-trace CSVs (GPU) / topology CSVs
  std::vector<std::string> gemms;       // --gemm MxNxK (repeatable) or MxNxKxBATCH
  std::string formats;                  // --formats a.b.cd, e.g. f16.f16.f32 (applies to --gemm)
  std::string sparse;                   // --sparse 2:4: --gemm's A is 2:4 structured sparse
  bool warm_l2 = false;                 // --warm-l2: every GEMM timed back to back (Kernel::l2_warm)
  std::string topology;                 // --topology FILE.csv (SCALE-Sim topology)
  std::string topology_kind;            // --topology-kind conv|gemm (SCALE-Sim's -i); empty: detect
  bool traces = false;                  // --traces: per-cycle trace CSVs (systolic, small layers)
  std::string traces_max_size = "1GiB"; // --traces-max-size: budget for all trace CSVs together
  int jobs = 0;                         // -j/--jobs; 0: all cores
  std::uint64_t seed = 1;               // --seed
  std::string format = "table";         // --format table|csv|json (terminal output)
  std::string command_line;             // the whole command line, for output metadata
  std::string config_kind;              // engine::config_kind(): "gpu", "systolic" or "scalesim_cfg" (.cfg)
};

struct RunBackend {
  std::string kind;                        // matched against RunRequest::config_kind
  int (*run)(const RunRequest& request);   // returns the exit code; throws InputError on bad input
};

bool register_run_backend(RunBackend backend);

}  // namespace tcsim::cli

#define TCSIM_REGISTER_RUN_BACKEND(ident, kind, fn) \
  static const bool tcsim_run_backend_##ident = ::tcsim::cli::register_run_backend({kind, fn});
