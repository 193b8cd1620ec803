// tcsim validate: simulate measured kernels and report the error of the predictions.
// Exit codes: 0 ok, 2 bad input, 3 MAPE above --max-mape (or nothing could be compared).
#include <cmath>
#include <cstdio>
#include <iostream>

#include "cli/validate/profile_commands.h"
#include "cli/validate/mape_gate.h"
#include "cli/result_attributes.h"
#include "cli/validate/validate_best_of_sizes.h"
#include "cli/validate/validate_networks.h"
#include "cli/verbs.h"
#include "common/error.h"
#include "common/text/strings.h"
#include "engine/kernel_runner.h"
#include "engine/load_accelerator.h"
#include "engine/validation/validation.h"
#include "io/writers.h"
#include "workload/csv/csv_text.h"
#include "workload/measured/best_of_sizes.h"
#include "workload/measured/deepbench.h"
#include "workload/measured/measured.h"
#include "workload/measured/measured_h5.h"
#include "workload/profile/readers/read_profile.h"

namespace po = boost::program_options;

namespace tcsim::cli {
namespace {


io::Table terminal_rows(const io::Table& full) {
  return io::select_columns(full, {"name", "measured_us", "predicted_us", "error_pct", "bound", "mapping", "skipped"});
}

int validate_verb(const std::vector<std::string>& args) {
  std::string config_path, output_dir, format = "table", precision, models_dir = "models";
  std::vector<std::string> overrides, inputs;
  double max_mape = -1, min_measured_us = 0;
  int jobs = 0;
  po::options_description opts("Options");
  std::string clock_mode;
  opts.add_options()
      ("config,c", po::value(&config_path)->required(), "hardware config (YAML with `kind: gpu|systolic`, or a SCALE-Sim .cfg)")
      ("clock", po::value(&clock_mode), kClockHelp)
      ("set", po::value(&overrides)->composing(), "override a config value: --set dram.bandwidth=1TB/s (repeatable)")
      ("output,o", po::value(&output_dir), "write summary.csv (rows), metrics.csv, summary.json, results.h5, config.resolved.yaml here")
      ("max-mape", po::value(&max_mape), "exit with code 3 when the MAPE over all rows exceeds this (percent)")
      ("min-measured-us", po::value(&min_measured_us),
       "leave rows measured faster than this out of the metrics (framework-timed data: host overhead)")
      ("precision", po::value(&precision), "fp16 or fp32: the DeepBench sheet, when the file name does not say")
      ("models", po::value(&models_dir), "where the networks of whole-network measurements are (default: models)")
      ("jobs,j", po::value(&jobs), "worker threads (default: all cores)")
      ("format", po::value(&format), "terminal output: table, csv or json")
      ("input", po::value(&inputs)->composing(), "measured-data files");
  po::positional_options_description pos;
  pos.add("input", -1);
  po::variables_map vm;
  const std::string example =
      "  tcsim validate -c configs/gpu/v100.yaml ../shared/data/deepbench/v100_train_fp16_dense_matrix_multiplication.csv\n"
      "  tcsim validate -c configs/gpu/h100.yaml validation/measured/h100/gemm.csv --max-mape 15 -o out/val\n"
      "Measured files: tcsim's schema (op-trace columns + time_us, validation/measured/README.md) as CSV, or as\n"
      "HDF5 (.h5/.hdf5, group /measured), DeepBench GEMM/convolution CSVs, NeuSight kernel CSVs\n"
      "(shared/data/neusight/kernels/<GPU>/<op>.csv) or Vidur profiles (shared/data/vidur/**/mlp.csv),\n"
      "detected by header. NeuSight times include PyTorch's host overhead (config host.kernel_overhead).\n"
      "Whole networks: NeuSight model files (<model>-<inf|train>-<seq>-<batch>.json) and NVIDIA's\n"
      "throughput CSV (../shared/data/networks/dle_single_gpu.csv; validation/published/lambda_pytorch has Lambda's\n"
      "runs in its schema, with an optional memory_format column), run with models/<model>.yaml; DeepBench's\n"
      "recurrent-layer CSVs (v100_train_<fp16|fp32>_recurrent_layers_<lstm|gru|vanilla>.csv), one-layer networks.\n"
      "Best rates over sizes: a CSV with a best_tflops column (validation/published/torch_matmul/best_of_sizes.csv),\n"
      "each row of the config's board run at every size, the best predicted rate against the best measured.\n"
      "Profiles: a PyTorch profiler trace (torch.profiler, record_shapes=True; Chrome-trace JSON, or .json.gz),\n"
      "an Nsight Systems SQLite export or an Nsight Compute CSV: each op call simulated beside its kernels'\n"
      "measured time, per family, not-mapped calls listed (traces/README.md); --max-mape on the simulated calls.\n"
      "Exit codes: 0 ok, 2 bad input, 3 MAPE above --max-mape.";
  if (!parse_options(args, "tcsim validate -c CONFIG MEASURED.csv... [options]", example, opts, &pos, vm)) return 0;
  apply_clock_option(clock_mode, overrides);
  check_format_option(format);
  if (vm.count("max-mape") && !(max_mape >= 0)) throw InputError("--max-mape", "expected a percentage >= 0");
  if (!(min_measured_us >= 0) || !std::isfinite(min_measured_us))
    throw InputError("--min-measured-us", "expected a time in microseconds >= 0");
  std::optional<workload::DeepBenchPrecision> prec;
  if (precision == "fp16") prec = workload::DeepBenchPrecision::fp16_mixed;
  else if (precision == "fp32") prec = workload::DeepBenchPrecision::fp32;
  else if (!precision.empty()) throw InputError("--precision", "expected fp16 or fp32, got '" + precision + "'");
  if (inputs.empty()) throw InputError("tcsim validate", "give at least one measured-data file");
  if (workload::is_profile_file(inputs.front())) {  // a profiled run: profile_commands.cpp
    if (inputs.size() != 1) throw InputError("tcsim validate", "give one profile at a time");
    ProfileRequest req;
    req.config_path = config_path, req.overrides = overrides, req.input = inputs.front();
    // One thread unless -j is given: the GPU model's shared SM-time caches can make a kernel's
    // result depend on which kernels other threads simulated first (seen on conv dgrad/wgrad).
    req.output_dir = output_dir, req.format = format, req.jobs = vm.count("jobs") ? engine::resolve_jobs(jobs) : 1;
    req.command_line = "tcsim validate " + join(args, " ");
    req.max_mape = max_mape, req.has_max_mape = vm.count("max-mape") > 0;
    return run_profile_command(req);
  }
  const bool best_rates = workload::is_best_of_sizes_csv(inputs.front());
  if (best_rates || is_network_measurement(inputs.front())) {
    const ValidateFilesRequest req{config_path, overrides, inputs,   models_dir,               output_dir,
                                   format,      max_mape,  vm.count("max-mape") > 0, engine::resolve_jobs(jobs),
                                   "tcsim validate " + join(args, " ")};
    return best_rates ? validate_best_of_sizes_files(req)   // best rates over sizes: validate_best_of_sizes.cpp
                      : validate_network_files(req);        // whole networks: validate_networks.cpp
  }

  std::vector<workload::MeasuredRow> rows;
  std::vector<std::pair<std::string, std::string>> meta;
  for (std::size_t fi = 0; fi < inputs.size(); ++fi) {
    const std::string& file = inputs[fi];
    // Attribute names must be unique: with several files, each file's metadata gets its index.
    const std::string prefix = inputs.size() == 1 ? "measured." : "measured." + std::to_string(fi + 1) + ".";
    workload::MeasuredSet s;
    if (workload::is_measured_h5_name(file)) {
      s = workload::read_measured_h5(file);  // HDF5 form of our schema (workload/measured/measured_h5.h)
    } else if (prec) {
      const auto csv_header = workload::read_csv(file).header;
      s = workload::deepbench_section(csv_header) != workload::DeepBenchSection::unknown
              ? workload::read_deepbench(file, prec)
              : workload::read_measured(file);
    } else {
      s = workload::read_measured(file);
    }
    meta.emplace_back(prefix + "file", file);
    meta.emplace_back(prefix + "schema", s.schema);
    for (const auto& [k, v] : s.meta) meta.emplace_back(prefix + k, v);
    rows.insert(rows.end(), s.rows.begin(), s.rows.end());
  }
  if (rows.empty()) throw InputError(join(inputs, " "), "no measured rows");

  const engine::LoadedAccelerator loaded = engine::load_accelerator_with_config(config_path, overrides);
  engine::require_gpu_config(loaded, config_path, "validate compares measured GPU kernel times with a GPU model");
  const engine::ValidationReport report = engine::validate(*loaded.accelerator, rows, engine::resolve_jobs(jobs), min_measured_us * 1e-6);

  io::ResultSet rs;
  rs.attributes = result_attributes("tcsim validate " + join(args, " "), config_path, loaded.resolved_yaml,
                                    loaded.accelerator->name(), meta);
  rs.tables.push_back(engine::validation_rows_table(report));
  rs.tables.push_back(engine::validation_metrics_table(report));

  if (format == "csv") {
    std::cout << io::format_csv(rs.tables[0]);
  } else if (format == "json") {
    std::cout << io::format_json(rs);
  } else {
    std::cout << io::format_text_table(terminal_rows(rs.tables[0])) << "\n" << io::format_text_table(rs.tables[1]);
  }
  std::cout.flush();
  if (!output_dir.empty()) io::write_result_folder(output_dir, rs, true);

  if (report.skipped > 0) {
    for (const auto& r : report.rows)
      if (!r.simulated) {
        std::cerr << "tcsim validate: warning: " << report.skipped << " of " << report.rows.size()
                  << " rows not simulated and left out of the metrics (first: " << r.measured.origin << ": "
                  << r.skip_reason << ")\n";
        break;
      }
  }
  std::size_t truncated = 0;
  double resolution_s = 0;
  for (const auto& r : report.rows)
    if (r.simulated && r.measured.truncated_to_s > 0) ++truncated, resolution_s = r.measured.truncated_to_s;
  if (truncated > 0)
    std::cerr << "tcsim validate: " << truncated << " rows compared as their profiler reported them: each kernel's duration "
              << "truncated to " << format_number("%g", resolution_s * 1e6) << " us, half of it less per kernel launch "
              << "(predicted_us; each row's notes give the model's own time)\n";
  const engine::GroupSummary& all = report.overall();
  const engine::ErrorSummary& e = all.errors;
  std::cerr << "tcsim validate: " << e.rows << " rows on " << loaded.accelerator->name() << ": MAPE "
            << format_number("%.2f", e.mape_pct) << "%, median APE " << format_number("%.2f", e.median_ape_pct) << "%, bias "
            << format_number("%+.2f", e.bias_pct) << "%, worst " << format_number("%.1f", e.max_ape_pct) << "% (" << all.worst_name << ", "
            << all.worst_origin << "), pearson " << format_number("%.4f", e.pearson) << " (log " << format_number("%.4f", e.pearson_log)
            << ")\n";
  return mape_gate("tcsim validate", vm.count("max-mape") > 0, max_mape, e.rows, e.mape_pct, "row");
}

}  // namespace
}  // namespace tcsim::cli

TCSIM_REGISTER_VERB(validate, "validate", "simulate measured kernels (ours, DeepBench, NeuSight, Vidur, profiles) and report the prediction error",
                    tcsim::cli::validate_verb)
