#pragma once
// `tcsim validate` on whole-network measurements (NeuSight model files, NVIDIA's throughput CSV):
// each row is estimated with `tcsim network`'s engine and compared step for step.
#include <string>
#include <vector>

namespace tcsim::cli {

struct NetworkValidateRequest {
  std::string config_path;
  std::vector<std::string> overrides, inputs;
  std::string models_dir, output_dir, format;
  double max_mape = -1;
  bool has_max_mape = false;
  int jobs = 1;
  std::string command_line;
};

// True for a file `validate_network_files` reads.
bool is_network_measurement(const std::string& file);
// Returns the exit code (3 when the MAPE exceeds --max-mape); InputError for bad input, and when
// the inputs mix whole-network and kernel measurements.
int validate_network_files(const NetworkValidateRequest& req);

}  // namespace tcsim::cli
