// tcsim run: simulate a workload (op trace, single GEMMs, SCALE-Sim topology) on one hardware config.
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <iostream>

#include "cli/run_request.h"
#include "cli/verbs.h"
#include "common/error.h"
#include "common/strings.h"

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
  opts.add_options()
      ("config,c", po::value(&req.config_path)->required(), "hardware config (YAML with `kind: gpu|systolic`, or a SCALE-Sim .cfg)")
      ("set", po::value(&req.overrides)->composing(), "override a config value: --set dram.bandwidth=1TB/s (repeatable)")
      ("output,o", po::value(&req.output_dir), "write summary.csv, summary.json, results.h5, config.resolved.yaml here")
      ("gemm", po::value(&req.gemms)->composing(), "a single GEMM MxNxK[xBATCH] instead of a trace (repeatable)")
      ("formats", po::value(&req.formats), "operand formats of --gemm as a.b.acc, e.g. f16.f16.f32")
      ("topology", po::value(&req.topology), "a SCALE-Sim topology CSV (conv or GEMM form)")
      ("topology-kind", po::value(&req.topology_kind), "conv or gemm (SCALE-Sim's -i); default: detected from the header")
      ("traces", po::bool_switch(&req.traces), "also write per-cycle SRAM/DRAM trace CSVs (systolic, small layers)")
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
  if (req.format != "table" && req.format != "csv" && req.format != "json")
    throw InputError("--format", "expected table, csv or json, got '" + req.format + "'");
  req.command_line = "tcsim run " + join(args, " ");
  req.config_kind = detect_config_kind(req.config_path);
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

std::string detect_config_kind(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) throw InputError(path, "config file not found");
  if (fs::path(path).extension() == ".cfg") return "scalesim_cfg";
  YAML::Node root;
  try {
    root = YAML::LoadFile(path);
  } catch (const YAML::Exception& e) {
    throw InputError(location(path, e.mark.line + 1), "not valid YAML: " + e.msg);
  }
  if (!root.IsMap() || !root["kind"])
    throw InputError(location(path, 1, "kind"), "expected a top-level `kind: gpu` or `kind: systolic`");
  try {
    return root["kind"].as<std::string>();
  } catch (const YAML::Exception&) {
    throw InputError(location(path, root["kind"].Mark().line + 1, "kind"), "expected gpu or systolic");
  }
}

}  // namespace tcsim::cli

TCSIM_REGISTER_VERB(run, "run", "simulate a GEMM trace or SCALE-Sim topology on a GPU or systolic config", tcsim::cli::run_verb)
