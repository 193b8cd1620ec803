#include "cli/validate/profile_commands.h"

#include <algorithm>
#include <cmath>
#include <iostream>

#include "cli/result_attributes.h"
#include "cli/validate/mape_gate.h"
#include "common/error.h"
#include "common/text/strings.h"
#include "engine/load_accelerator.h"
#include "engine/profile/profile_estimate.h"
#include "engine/validation/validation_metrics.h"
#include "io/writers.h"
#include "workload/profile/readers/read_profile.h"

namespace tcsim::cli {

int run_profile_command(const ProfileRequest& req) {
  const workload::Profile profile = workload::read_profile(req.input);
  if (profile.kernels.empty())
    throw InputError(req.input, "no GPU kernels in the profile (torch.profiler: activities must include "
                                "ProfilerActivity.CUDA; nsys: --trace=cuda)");
  const engine::LoadedAccelerator loaded = engine::load_accelerator_with_config(req.config_path, req.overrides);
  engine::require_gpu_config(loaded, req.config_path,
                             req.replay ? "replay re-times a GPU profile's kernels on a GPU model"
                                        : "validate compares a GPU profile's kernels with a GPU model");
  const engine::ProfileEstimate e = engine::estimate_profile(*loaded.accelerator, profile, req.precision, req.jobs);

  Attributes more = {{"profile", req.input}, {"profile_format", profile.format}};
  for (const auto& [k, v] : profile.meta) more.emplace_back("profile." + k, v);
  if (req.precision) more.emplace_back("precision", workload::to_string(*req.precision));
  io::ResultSet rs;
  rs.attributes = result_attributes(req.command_line, req.config_path, loaded.resolved_yaml, loaded.accelerator->name(), more);
  rs.tables.push_back(engine::profile_calls_table(e, req.replay));
  rs.tables.push_back(engine::profile_families_table(e, req.replay));
  rs.tables.push_back(engine::profile_not_mapped_table(e));
  rs.tables.push_back(engine::profile_step_table(e, req.replay));
  if (req.format == "csv") {
    std::cout << io::format_csv(rs.tables[0]);
  } else if (req.format == "json") {
    std::cout << io::format_json(rs);
  } else {
    // The calls with the most measured time first (all of them in summary.csv).
    io::Table top = io::select_columns(rs.tables[0], {"name", "phase", "shape", "measured_us", "predicted_us",
                                                      req.replay ? "speedup" : "error_pct", "measured_tflops",
                                                      "measured_tensor_core_pct", "bound"});
    std::vector<std::size_t> order(top.rows.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      return e.mapping.calls[a].measured_us > e.mapping.calls[b].measured_us;
    });
    constexpr std::size_t kTopCalls = 10;
    io::Table shown = top;
    shown.rows.clear();
    for (std::size_t i = 0; i < order.size() && i < kTopCalls; ++i) shown.rows.push_back(top.rows[order[i]]);
    std::cout << "op calls with the most measured time (" << std::min(order.size(), kTopCalls) << " of " << order.size()
              << "; all in summary.csv with -o):\n"
              << io::format_text_table(shown) << "\n" << io::format_text_table(rs.tables[1]) << "\n";
    if (!rs.tables[2].rows.empty()) {
      constexpr std::size_t kShown = 20;  // the largest; all of them in not_mapped.csv
      io::Table top = rs.tables[2];
      const std::size_t more = top.rows.size() > kShown ? top.rows.size() - kShown : 0;
      if (more) top.rows.resize(kShown);
      std::cout << "not mapped (listed, at their measured time):\n" << io::format_text_table(top);
      if (more) std::cout << "... and " << more << " more (not_mapped.csv with -o, or --format json)\n";
      std::cout << "\n";
    }
    std::cout << io::format_text_table(rs.tables[3]);
  }
  std::cout.flush();
  if (!req.output_dir.empty()) io::write_result_dir(req.output_dir, rs, true);

  const char* verb = req.replay ? "tcsim replay" : "tcsim validate";
  const double mapped = e.measured_us > 0 ? 100 * (e.measured_us - e.not_mapped_us) / e.measured_us : 0;
  std::cerr << verb << ": " << e.mapping.kernels << " kernels in " << e.calls.size() << " op calls, "
            << format_number("%.1f", mapped) << "% of the measured kernel time simulated on " << loaded.accelerator->name()
            << " (" << e.distinct_kernels << " distinct kernels); " << e.not_mapped_calls << " calls not mapped ("
            << format_number("%.4g", e.not_mapped_us) << " us, kept at their measured time)\n";
  if (!req.replay) {
    std::vector<double> measured, predicted;
    for (std::size_t i = 0; i < e.calls.size(); ++i)
      if (e.calls[i].simulated && e.mapping.calls[i].measured_us > 0)
        measured.push_back(e.mapping.calls[i].measured_us), predicted.push_back(e.calls[i].predicted_us);
    const engine::ErrorSummary err = engine::summarize_errors(measured, predicted);
    std::cerr << verb << ": " << err.rows << " calls compared: MAPE " << format_number("%.2f", err.mape_pct) << "%, median APE "
              << format_number("%.2f", err.median_ape_pct) << "%, bias " << format_number("%+.2f", err.bias_pct)
              << "%; tensor cores: " << format_number("%.1f", e.measured_us > 0 ? 100 * e.measured_tensor_core_us / e.measured_us : 0)
              << "% of the measured kernel time, " << format_number("%.1f", e.predicted_us > 0 ? 100 * e.predicted_tensor_core_us / e.predicted_us : 0)
              << "% predicted\n";
    if (const int rc = mape_gate(verb, req.has_max_mape, req.max_mape, err.rows, err.mape_pct, "call"); rc != 0) return rc;
  }
  if (req.replay)
    std::cerr << verb << ": measured step " << format_number("%.4g", e.mapping.span_us) << " us -> predicted "
              << format_number("%.4g", e.step_us) << " us (speedup " << format_number("%.3g", e.step_us > 0 ? e.mapping.span_us / e.step_us : 0)
              << "x)\n";
  return 0;
}

}  // namespace tcsim::cli
