#pragma once
// `tcsim validate PROFILE` and `tcsim replay PROFILE`: a profiled run (workload/profile/) simulated
// call by call (engine/profile/profile_estimate.h).
#include <optional>
#include <string>
#include <vector>

#include "workload/network/precision.h"

namespace tcsim::cli {

struct ProfileRequest {
  std::string config_path;
  std::vector<std::string> overrides;
  std::string input, output_dir, format = "table";
  std::optional<workload::Precision> precision;  // replay only
  int jobs = 1;
  std::string command_line;
  bool replay = false;
  double max_mape = -1;        // validate: exit 3 when the MAPE over the simulated calls exceeds it
  bool has_max_mape = false;
};

// Prints the families, not-mapped and step tables (format table), all tables (json) or the calls
// (csv); writes calls as summary.csv plus families.csv, not_mapped.csv, step.csv with -o.
// Returns the exit code: 0, or 3 when --max-mape is exceeded (or nothing could be compared).
int run_profile_command(const ProfileRequest& req);

}  // namespace tcsim::cli
