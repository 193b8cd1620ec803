#include "cli/result_attributes.h"
#include "cli/validate/validate_networks.h"
#include "cli/validate/mape_gate.h"

#include <cmath>
#include <cstdio>
#include <iostream>

#include "common/error.h"
#include "common/text/strings.h"
#include "engine/load_accelerator.h"
#include "engine/network/network_validation.h"
#include "io/writers.h"
#include "workload/network/measured_networks.h"

namespace tcsim::cli {


bool is_network_measurement(const std::string& file) {
  return workload::is_neusight_model_json(file) || workload::is_dle_throughput_csv(file) ||
         workload::is_torch_steps_csv(file) || workload::is_deepbench_rnn_csv(file);
}

int validate_network_files(const ValidateFilesRequest& req) {
  std::vector<workload::MeasuredNetworkRow> rows;
  for (const auto& f : req.inputs) {
    if (workload::is_neusight_model_json(f)) {
      auto r = workload::read_neusight_model_json(f);
      rows.insert(rows.end(), r.begin(), r.end());
    } else if (workload::is_dle_throughput_csv(f)) {
      auto r = workload::read_dle_throughput_csv(f);
      rows.insert(rows.end(), r.begin(), r.end());
    } else if (workload::is_torch_steps_csv(f)) {
      auto r = workload::read_torch_steps_csv(f);
      rows.insert(rows.end(), r.begin(), r.end());
    } else if (workload::is_deepbench_rnn_csv(f)) {
      auto r = workload::read_deepbench_rnn_csv(f);
      rows.insert(rows.end(), r.begin(), r.end());
    } else {
      throw InputError(f, "not a whole-network measurement (NeuSight model JSON, NVIDIA throughput CSV, "
                          "torch_profile.py steps CSV or DeepBench recurrent-layer CSV); "
                          "validate kernel measurements in a separate run");
    }
  }
  const engine::LoadedAccelerator loaded = engine::load_accelerator_with_config(req.config_path, req.overrides);
  engine::require_gpu_config(loaded, req.config_path, "validate compares measured GPU network throughputs with a GPU model");
  const engine::NetworkValidationReport rep =
      engine::validate_networks(*loaded.accelerator, rows, req.models_dir, req.jobs);

  io::ResultSet rs;
  rs.attributes = result_attributes(req.command_line, req.config_path, loaded.resolved_yaml, loaded.accelerator->name(),
                                    {{"inputs", join(req.inputs, " ")}});
  rs.tables.push_back(engine::network_validation_rows_table(rep));
  rs.tables.push_back(engine::network_validation_metrics_table(rep));
  if (req.format == "csv") std::cout << io::format_csv(rs.tables[0]);
  else if (req.format == "json") std::cout << io::format_json(rs);
  else
    std::cout << io::format_text_table(io::select_columns(
                     rs.tables[0], {"name", "measured_us", "predicted_us", "error_pct", "bound", "note", "skipped"}))
              << "\n"
              << io::format_text_table(rs.tables[1]);
  std::cout.flush();
  if (!req.output_dir.empty()) io::write_result_folder(req.output_dir, rs, true);

  const engine::ErrorSummary& e = rep.groups.front().errors;
  if (rep.skipped > 0)
    std::cerr << "tcsim validate: " << rep.skipped << " of " << rep.rows.size()
              << " runs not compared (other GPU, no shipped model, or not comparable: see the skipped column)\n";
  if (e.rows == 0)
    std::cerr << "tcsim validate: no network run of the input is on " << loaded.accelerator->name() << ": nothing compared\n";
  else
    std::cerr << "tcsim validate: " << e.rows << " network runs on " << loaded.accelerator->name() << ": MAPE "
              << format_number("%.2f", e.mape_pct) << "%, median " << format_number("%.2f", e.median_ape_pct) << "%, bias "
              << format_number("%+.2f", e.bias_pct) << "%\n";
  return mape_gate("tcsim validate", req.has_max_mape, req.max_mape, e.rows, e.mape_pct, "run");
}

}  // namespace tcsim::cli
