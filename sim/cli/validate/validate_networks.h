#pragma once
// `tcsim validate` on whole-network measurements (NeuSight model files, NVIDIA's throughput CSV):
// each row is estimated with `tcsim network`'s engine and compared step for step.
#include <string>

#include "cli/validate/validate_request.h"

namespace tcsim::cli {

// True for a file `validate_network_files` reads.
bool is_network_measurement(const std::string& file);
// Returns the exit code (3 when the MAPE exceeds --max-mape); InputError for bad input, and when
// the inputs mix whole-network and kernel measurements.
int validate_network_files(const ValidateFilesRequest& req);

}  // namespace tcsim::cli
