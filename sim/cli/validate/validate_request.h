#pragma once
// What `tcsim validate` hands the readers of whole measured sets (whole networks, best-rate
// leaderboards): the config, the inputs and how to report. Profiles take their own ProfileRequest.
#include <string>
#include <vector>

namespace tcsim::cli {

struct ValidateFilesRequest {
  std::string config_path;
  std::vector<std::string> overrides, inputs;
  std::string models_dir, output_dir, format;  // models_dir: whole networks only
  double max_mape = -1;
  bool has_max_mape = false;
  int jobs = 1;                                 // whole networks only
  std::string command_line;
};

}  // namespace tcsim::cli
