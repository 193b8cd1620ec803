#pragma once
// `tcsim validate` on a leaderboard of best matmul rates over several sizes
// (workload/measured/best_of_sizes.h): the rows of the config's board, compared rate for rate.
#include "cli/validate/validate_request.h"

namespace tcsim::cli {

// Returns the exit code (3 when the MAPE exceeds --max-mape); InputError for bad input.
int validate_best_of_sizes_files(const ValidateFilesRequest& req);

}  // namespace tcsim::cli
