// tcsim sweep: a design-space sweep from a YAML spec (configs/sweeps/README.md), resumable and
// sharded; the work is in sim/engine/sweep/.
#include <unistd.h>

#include <cstdio>
#include <iostream>

#include "cli/verbs.h"
#include "common/error.h"
#include "common/text/strings.h"
#include "engine/sweep/sweep_runner.h"
#include "engine/sweep/output/sweep_table.h"

namespace po = boost::program_options;

namespace tcsim::cli {
namespace {

// "I/N" -> (I, N); InputError unless 0 <= I < N.
void parse_shard(const std::string& text, int& shard, int& shards) {
  const auto slash = text.find('/');
  try {
    if (slash == std::string::npos) throw std::invalid_argument("no slash");
    std::size_t a = 0, b = 0;
    shard = std::stoi(text.substr(0, slash), &a);
    shards = std::stoi(text.substr(slash + 1), &b);
    if (a != slash || b != text.size() - slash - 1) throw std::invalid_argument("trailing text");
  } catch (const std::logic_error&) {
    throw InputError("--shard", "expected I/N (0 <= I < N, e.g. 0/4), got '" + text + "'");
  }
  if (shards < 1 || shard < 0 || shard >= shards)
    throw InputError("--shard", "expected I/N with 0 <= I < N, got '" + text + "': shard index out of range");
}

int sweep_verb(const std::vector<std::string>& args) {
  std::string output, shard_text = "0/1";
  std::vector<std::string> positional;
  int jobs = 0;
  bool dry_run = false;
  po::options_description opts("Options");
  opts.add_options()
      ("output,o", po::value(&output), "output folder: sweep.manifest, spec.resolved.yaml, points/*.rec (one per finished run), "
                                       "then summary.csv and results.h5; running the same command again resumes")
      ("jobs,j", po::value(&jobs), "worker threads running (point, workload) pairs (default: all cores)")
      ("shard", po::value(&shard_text), "I/N: run only the I-th (0-based) of N disjoint slices; combine with tcsim merge")
      ("dry-run", po::bool_switch(&dry_run), "list the points (after constraints) and an estimate of the run time; simulate nothing")
      ("spec", po::value(&positional)->composing(), "the sweep spec (configs/sweeps/*.yaml)");
  po::positional_options_description pos;
  pos.add("spec", -1);
  po::variables_map vm;
  const std::string example =
      "  tcsim sweep configs/sweeps/a100_tensor_cores_hbm.yaml -o out/sweep -j 2\n"
      "  tcsim sweep configs/sweeps/systolic_array_dataflow_sram.yaml --dry-run\n"
      "  tcsim sweep configs/sweeps/h100_l2_sms.yaml -o out/shard0 --shard 0/4   # then: tcsim merge out/shard* -o out/all\n"
      "Metrics (spec metrics:, default all):\n" + engine::sweep::metric_help();
  if (!parse_options(args, "tcsim sweep SPEC.yaml -o DIR [-j N] [--shard I/N] [--dry-run]", example, opts, &pos, vm)) return 0;
  if (positional.size() != 1) throw InputError("tcsim sweep", "expected one sweep spec (configs/sweeps/*.yaml)");
  if (vm.count("jobs") && jobs < 1) throw InputError("--jobs", "expected at least 1 thread");
  int shard = 0, shards = 1;
  parse_shard(shard_text, shard, shards);
  if (!dry_run && output.empty()) throw InputError("--output", "expected -o DIR (or --dry-run)");

  const engine::sweep::PreparedSweep p = engine::sweep::prepare_sweep(positional[0]);
  if (dry_run) {
    std::cout << engine::sweep::dry_run_report(p, jobs, shard, shards);
    return 0;
  }
  engine::sweep::SweepOptions o;
  o.out_dir = output;
  o.jobs = jobs;
  o.shard = shard;
  o.shards = shards;
  o.progress_bar = ::isatty(STDERR_FILENO) != 0;
  o.log = &std::cerr;
  if (p.expansion.dropped > 0)
    std::cerr << "tcsim sweep: " << p.expansion.dropped << " of " << p.expansion.candidates
              << " combinations dropped by the constraints\n";
  const auto st = engine::sweep::run_sweep(p, o);
  const double W = double(p.workloads.size());
  const std::uint64_t simulated = st.model_calls - st.model_hits;
  const double hit = st.kernel_lookups > 0 ? 100.0 * (1.0 - double(simulated) / double(st.kernel_lookups)) : 0;
  std::cerr << "tcsim sweep: " << st.ran << " runs (" << format_number("%.4g", double(st.ran) / W) << " points x "
            << p.workloads.size() << " workloads) in " << format_number("%.3g", st.wall_s) << " s, "
            << format_number("%.3g", st.wall_s > 0 ? double(st.ran) / W / st.wall_s : 0) << " points/s";
  if (st.resumed > 0) std::cerr << "; " << st.resumed << " runs were already done";
  std::cerr << "\ntcsim sweep: kernel cache: " << st.kernel_lookups << " kernel lookups, " << simulated
            << " simulated, hit rate " << format_number("%.1f", st.kernel_lookups > 0 ? std::max(0.0, hit) : 0.0)
            << "% (across points and workloads: " << st.model_hits << " of " << st.model_calls << " model calls; "
            << st.models_built << " distinct configs built)\ntcsim sweep: wrote " << output << "\n";
  return 0;
}

}  // namespace
}  // namespace tcsim::cli

TCSIM_REGISTER_VERB(sweep, "sweep", "design-space sweep from a YAML spec (configs/sweeps/): resumable, sharded",
                    tcsim::cli::sweep_verb)
