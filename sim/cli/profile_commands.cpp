#include "cli/profile_commands.h"

#include <iostream>

#include "cli/result_attributes.h"
#include "common/strings.h"
#include "engine/load_accelerator.h"
#include "engine/profile/profile_estimate.h"
#include "io/writers.h"
#include "workload/profile/readers/read_profile.h"

namespace tcsim::cli {

int run_profile_command(const ProfileRequest& req) {
  const workload::Profile profile = workload::read_profile(req.input);
  const engine::LoadedAccelerator loaded = engine::load_accelerator_with_config(req.config_path, req.overrides);
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
    std::cout << io::format_text_table(rs.tables[1]) << "\n";
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
  if (req.replay)
    std::cerr << verb << ": measured step " << format_number("%.4g", e.mapping.span_us) << " us -> predicted "
              << format_number("%.4g", e.step_us) << " us (speedup " << format_number("%.3g", e.step_us > 0 ? e.mapping.span_us / e.step_us : 0)
              << "x)\n";
  return 0;
}

}  // namespace tcsim::cli
