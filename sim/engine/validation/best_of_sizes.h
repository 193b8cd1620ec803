#pragma once
// Compares a leaderboard's best matmul rate over several sizes (workload/measured/best_of_sizes.h)
// with the model's: each row whose board is the accelerator's (workload::same_gpu) runs every size
// as its benchmark ran it (torch.mm of row-major N x N operands: NN, fp32 accumulation, the dtype's
// output), and the best predicted rate is compared with the best measured one. A rate is compared
// as a time: error_pct > 0 when the model's best rate is below the measured (the model is slow).
#include <cstdint>
#include <string>
#include <vector>

#include "engine/validation/validation_metrics.h"
#include "io/table.h"
#include "workload/accelerator.h"
#include "workload/measured/best_of_sizes.h"

namespace tcsim::engine {

struct BestOfSizesResult {
  workload::BestOfSizesRow measured;
  bool compared = false;
  std::string skipped;              // why not (another board, a format the model refuses)
  double predicted_tflops = 0;      // the best over the sizes
  std::int64_t best_n = 0;          // where the model's best lies
  double clock_mhz = 0;             // of that size's run
  double error_pct = 0;
};

struct BestOfSizesReport {
  std::vector<BestOfSizesResult> rows;
  ErrorSummary errors;              // over the compared rows
};

BestOfSizesReport validate_best_of_sizes(const Accelerator& acc, const std::vector<workload::BestOfSizesRow>& rows);
io::Table best_of_sizes_rows_table(const BestOfSizesReport& report);

}  // namespace tcsim::engine
