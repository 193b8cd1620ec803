// tcsim run: simulate a workload (op trace, single GEMMs, SCALE-Sim topology) on one hardware config.
#include <iostream>

#include "cli/run/run_request.h"
#include "cli/verbs.h"
#include "common/error.h"
#include "common/text/strings.h"
#include "engine/load_accelerator.h"

namespace po = boost::program_options;

namespace tcsim::cli {
namespace {

std::vector<RunBackend>& backends() {
  static std::vector<RunBackend> b;
  return b;
}

int run_verb(const std::vector<std::string>& args) {
  RunRequest req;
  po::options_description opts("Options");
  std::string clock_mode;
  opts.add_options()
      ("config,c", po::value(&req.config_path)->required(), "hardware config (YAML with `kind: gpu|systolic`, or a SCALE-Sim .cfg)")
      ("clock", po::value(&clock_mode), kClockHelp)
      ("set", po::value(&req.overrides)->composing(), "override a config value: --set dram.bandwidth=1TB/s (repeatable)")
      ("output,o", po::value(&req.output_dir), "write summary.csv, summary.json, results.h5, config.resolved.yaml here")
      ("gemm", po::value(&req.gemms)->composing(), "a single GEMM MxNxK[xBATCH] instead of a trace (repeatable)")
      ("formats", po::value(&req.formats), "operand formats of --gemm as a.b.acc, e.g. f16.f16.f32, s8.s8.s32, s4.s4.s32, b1.b1.s32, e4m3.e4m3.f32")
      ("sparse", po::value(&req.sparse), "2:4: --gemm's A operand is 2:4 structured sparse (mma.sp, sm_80+)")
      ("warm-l2", po::bool_switch(&req.warm_l2), "GPU: time every GEMM as in a back-to-back benchmark loop: operands that fit in L2 stay there")
      ("topology", po::value(&req.topology), "a SCALE-Sim topology CSV (conv or GEMM form)")
      ("topology-kind", po::value(&req.topology_kind), "conv or gemm (SCALE-Sim's -i); default: detected from the header")
      ("traces", po::bool_switch(&req.traces), "also write per-cycle SRAM/DRAM trace CSVs (systolic, small layers)")
      ("traces-max-size", po::value(&req.traces_max_size), "size budget of all trace CSVs together (default 1GiB); a run whose traces would exceed it stops before writing any")
      ("jobs,j", po::value(&req.jobs), "worker threads (default: all cores)")
      ("seed", po::value(&req.seed), "random seed")
      ("format", po::value(&req.format), "terminal output: table, csv or json")
      ("input", po::value(&req.inputs)->composing(), "op-trace CSV files");
  po::positional_options_description pos;
  pos.add("input", -1);
  po::variables_map vm;
  const std::string example =
      "  tcsim run -c configs/gpu/v100.yaml traces/gemm/deepbench.csv -o out/v100\n"
      "  tcsim run -c configs/gpu/a100.yaml --gemm 4096x4096x4096 --formats f16.f16.f32\n"
      "  tcsim run -c configs/systolic/scalesim_32x32_os.yaml --topology resnet18.csv -o out/rn18";
  if (!parse_options(args, "tcsim run -c CONFIG [TRACE.csv ...] [options]", example, opts, &pos, vm)) return 0;
  apply_clock_option(clock_mode, req.overrides);
  check_format_option(req.format);
  req.command_line = "tcsim run " + join(args, " ");
  req.config_kind = engine::config_kind(req.config_path);
  for (const auto& b : backends())
    if (b.kind == req.config_kind) return b.run(req);
  throw InputError(location(req.config_path, 0, "kind"),
                   "no model for kind '" + req.config_kind + "'; expected gpu or systolic");
}

}  // namespace

bool register_run_backend(RunBackend backend) {
  backends().push_back(std::move(backend));
  return true;
}

}  // namespace tcsim::cli

TCSIM_REGISTER_VERB(run, "run", "simulate a GEMM trace or SCALE-Sim topology on a GPU or systolic config", tcsim::cli::run_verb)
