#pragma once
// `tcsim validate` on a leaderboard of best matmul rates over several sizes
// (workload/measured/best_of_sizes.h): the rows of the config's board, compared rate for rate.
#include <string>
#include <vector>

namespace tcsim::cli {

struct BestOfSizesRequest {
  std::string config_path;
  std::vector<std::string> overrides, inputs;
  std::string output_dir, format, command_line;
  double max_mape = -1;
  bool has_max_mape = false;
};

// Returns the exit code (3 when the MAPE exceeds --max-mape); InputError for bad input.
int validate_best_of_sizes_files(const BestOfSizesRequest& req);

}  // namespace tcsim::cli
