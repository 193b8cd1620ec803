#pragma once
// `tcsim sweep`: runs every (point, workload) pair of a spec on a pool of threads, committing each
// finished pair to DIR/points/<task>.rec as it completes (atomically), so that a killed sweep
// resumes where it stopped; when every pair of the shard is done it assembles summary.csv and
// results.h5 in task order (so a resumed run writes the same bytes as an uninterrupted one, for
// any -j). Folder layout and resume rules: sim/engine/README.md, "Sweeps".
#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <string>
#include <vector>

#include "engine/sweep/spec/sweep_points.h"
#include "engine/sweep/spec/sweep_spec.h"
#include "engine/sweep/sweep_workload.h"

namespace tcsim::engine::sweep {

struct PreparedSweep {
  SweepSpec spec;
  Expansion expansion;
  std::vector<LoadedWorkload> workloads;
  std::string resolved_spec;   // spec.resolved.yaml
  std::string hash;            // of everything that determines the results (configs, models, traces)
  std::size_t tasks() const { return expansion.points.size() * workloads.size(); }
};

// Reads and checks everything (spec, axis values, constraints, metrics, workloads) without
// simulating: InputError for any bad input, before a file is written.
PreparedSweep prepare_sweep(const std::filesystem::path& spec_file);

struct SweepOptions {
  std::filesystem::path out_dir;
  int jobs = 0;                 // 0: all cores
  int shard = 0, shards = 1;    // this process runs tasks t with t % shards == shard
  bool progress_bar = false;    // a redrawn bar (a terminal); else one line per 10%
  std::ostream* log = nullptr;  // progress and the summary line (stderr); nullptr: quiet
};

struct SweepStats {
  std::size_t shard_tasks = 0, resumed = 0, ran = 0;
  std::uint64_t kernel_lookups = 0;   // lowered kernels of every step run, trace rows
  std::uint64_t model_calls = 0, model_hits = 0;  // Accelerator::run calls, and those the cache answered
  std::uint64_t models_built = 0;
  double wall_s = 0;
};

// InputError when out_dir holds another sweep (or another shard of this one), or is not a sweep
// folder and not empty; when the shard is out of range.
SweepStats run_sweep(const PreparedSweep& s, const SweepOptions& o);

// The --dry-run listing: a table of the points (after constraints) and a rough run-time estimate.
std::string dry_run_report(const PreparedSweep& s, int jobs, int shard, int shards);

// Combines the output folders of all shards of one sweep into out_dir, equal to the folder a
// single-process sweep writes. InputError when the folders are not the shards of one sweep, a
// shard is missing, repeated or unfinished, or out_dir is not empty.
void merge_sweeps(const std::vector<std::filesystem::path>& dirs, const std::filesystem::path& out_dir);

}  // namespace tcsim::engine::sweep
