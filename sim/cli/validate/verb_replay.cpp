// tcsim replay: a profiled run estimated on another config (and precision), op call by op call.
#include <iostream>

#include "cli/validate/profile_commands.h"
#include "cli/verbs.h"
#include "common/error.h"
#include "common/text/strings.h"
#include "engine/kernel_runner.h"
#include "engine/network/network_workload.h"

namespace po = boost::program_options;

namespace tcsim::cli {
namespace {

int replay_verb(const std::vector<std::string>& args) {
  ProfileRequest req;
  req.replay = true;
  std::string precision, clock_mode;
  std::vector<std::string> inputs;
  int jobs = 0;
  po::options_description opts("Options");
  opts.add_options()
      ("config,c", po::value(&req.config_path)->required(), "the hardware to replay on (GPU YAML)")
      ("clock", po::value(&clock_mode), kClockHelp)
      ("set", po::value(&req.overrides)->composing(), "override a config value: --set dram.bandwidth=1TB/s (repeatable)")
      ("precision", po::value(&precision),
       "run the profiled ops in this precision mode instead (fp32, tf32, amp-fp16, amp-bf16, fp16, bf16, fp8, int8)")
      ("output,o", po::value(&req.output_dir), "write calls (summary.csv), families.csv, not_mapped.csv, step.csv here")
      ("jobs,j", po::value(&jobs), "worker threads (default: 1, for results independent of thread timing)")
      ("format", po::value(&req.format), "terminal output: table, csv (the calls) or json")
      ("input", po::value(&inputs)->composing(), "the profile");
  po::positional_options_description pos;
  pos.add("input", -1);
  po::variables_map vm;
  const std::string example =
      "  tcsim replay -c configs/gpu/h100.yaml resnet50_train.json\n"
      "  tcsim replay -c configs/gpu/a100.yaml bert_fp32.json --precision amp-bf16 -o out/replay\n"
      "The profile: a PyTorch profiler trace, an Nsight Systems SQLite export or an Nsight Compute CSV\n"
      "(traces/README.md). Each op call that tcsim maps is\n"
      "simulated on the config (in --precision when given); the others keep their measured time.\n"
      "Exit codes: 0 ok, 2 bad input.";
  if (!parse_options(args, "tcsim replay -c CONFIG PROFILE [options]", example, opts, &pos, vm)) return 0;
  apply_clock_option(clock_mode, req.overrides);
  check_format_option(req.format);
  if (inputs.size() != 1) throw InputError("tcsim replay", "give exactly one profile");
  req.input = inputs.front();
  if (!precision.empty()) req.precision = engine::parse_precision_or_throw(precision, "--precision");
  req.jobs = vm.count("jobs") ? engine::resolve_jobs(jobs) : 1;
  req.command_line = "tcsim replay " + join(args, " ");
  return run_profile_command(req);
}

}  // namespace
}  // namespace tcsim::cli

TCSIM_REGISTER_VERB(replay, "replay", "estimate a profiled run (PyTorch profiler trace, nsys export) on another GPU or precision",
                    tcsim::cli::replay_verb)
