#include "cli/validate/validate_best_of_sizes.h"

#include <iostream>

#include "cli/result_attributes.h"
#include "cli/validate/mape_gate.h"
#include "common/error.h"
#include "common/text/strings.h"
#include "engine/load_accelerator.h"
#include "engine/validation/best_of_sizes.h"
#include "io/writers.h"

namespace tcsim::cli {

int validate_best_of_sizes_files(const ValidateFilesRequest& req) {
  std::vector<workload::BestOfSizesRow> rows;
  for (const auto& f : req.inputs) {
    if (!workload::is_best_of_sizes_csv(f))
      throw InputError(f, "not a best-of-sizes leaderboard (a CSV with a best_tflops column); validate other "
                          "measurements in a separate run");
    auto r = workload::read_best_of_sizes(f);
    rows.insert(rows.end(), r.begin(), r.end());
  }
  const engine::LoadedAccelerator loaded = engine::load_accelerator_with_config(req.config_path, req.overrides);
  engine::require_gpu_config(loaded, req.config_path, "validate compares measured GPU matmul rates with a GPU model");
  const engine::BestOfSizesReport rep = engine::validate_best_of_sizes(*loaded.accelerator, rows);

  io::ResultSet rs;
  rs.attributes = result_attributes(req.command_line, req.config_path, loaded.resolved_yaml, loaded.accelerator->name(),
                                    {{"inputs", join(req.inputs, " ")}});
  rs.tables.push_back(engine::best_of_sizes_rows_table(rep));
  if (req.format == "csv") std::cout << io::format_csv(rs.tables[0]);
  else if (req.format == "json") std::cout << io::format_json(rs);
  else
    std::cout << io::format_text_table(io::select_columns(rs.tables[0], {"device", "dtype", "measured_tflops", "predicted_tflops",
                                                                         "error_pct", "best_n", "clock_mhz", "skipped"}));
  std::cout.flush();
  if (!req.output_dir.empty()) io::write_result_folder(req.output_dir, rs, true);

  const engine::ErrorSummary& e = rep.errors;
  if (e.rows == 0)
    std::cerr << "tcsim validate: no row of the input is on " << loaded.accelerator->name() << " (best rates over sizes; "
              << rep.rows.size() << " rows of other boards or not comparable): nothing compared\n";
  else
    std::cerr << "tcsim validate: " << e.rows << " rows on " << loaded.accelerator->name() << " (best rates over sizes; "
              << rep.rows.size() - e.rows << " of " << rep.rows.size() << " rows other boards or not comparable): MAPE "
              << format_number("%.2f", e.mape_pct) << "%, median APE " << format_number("%.2f", e.median_ape_pct) << "%, bias "
              << format_number("%+.2f", e.bias_pct) << "% (+: the model's best rate is below the measured)\n";
  return mape_gate("tcsim validate", req.has_max_mape, req.max_mape, e.rows, e.mape_pct, "row");
}

}  // namespace tcsim::cli
