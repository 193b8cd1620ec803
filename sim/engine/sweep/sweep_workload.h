#pragma once
// Runs one workload of a sweep (a network step or an op trace) on one point's accelerator and
// keeps what the metrics need.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/network/network_workload.h"
#include "engine/sweep/spec/sweep_spec.h"
#include "workload/accelerator.h"

namespace tcsim::engine::sweep {

struct LoadedWorkload {
  WorkloadSpec spec;
  std::optional<NetworkWorkload> network;  // model: workloads
  std::vector<Kernel> kernels;             // trace: workloads
  std::vector<std::string> where;          // trace rows' file:line
};

// Reads the model or trace once; InputError naming the spec line.
LoadedWorkload load_workload(const WorkloadSpec& w, const std::string& spec_file);

struct LayerRow {
  std::string layer, kind;
  std::int64_t count = 1;
  double time_s = 0, energy_j = 0;
};

struct WorkloadRun {
  std::string status = "ok";        // or why the point could not run it (the model's message)
  std::string item = "sample";      // sample | token | trace
  double items = 1;                 // per step
  double step_time_s = 0, flops = 0;
  bool energy_modelled = false;
  double energy_j = 0;
  std::int64_t kernels = 0;         // kernel lookups (lowered kernels of a step, trace rows)
  std::int64_t distinct_kernels = 0, launches = 0;
  std::vector<LayerRow> layers;
};

// A kernel or precision the accelerator rejects (InputError) gives a run with that status;
// other exceptions propagate (bugs).
WorkloadRun run_workload(const Accelerator& acc, const LoadedWorkload& w);

}  // namespace tcsim::engine::sweep
