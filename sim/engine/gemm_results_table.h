#pragma once
// The table of `tcsim run`: one row per kernel with its shape and formats, then the result
// (cycles, time_us, tflops, bound), every metric the model reported (first-seen order, units in
// the names), the mapping and the notes. Count-weighted totals are a separate one-row table.
#include <vector>

#include "io/table.h"
#include "workload/kernel.h"
#include "workload/kernel_result.h"

namespace tcsim::engine {

io::Table gemm_results_table(const std::vector<Kernel>& kernels, const std::vector<KernelResult>& results);

// The columns a person wants on a terminal: name, m, n, k, batch, time_us, tflops, bound, the
// utilisation metrics (names containing "util"), mapping.
io::Table terminal_view(const io::Table& full);

// One row: kernels, total_time_us (sum of time x count), total_flops, avg_tflops, total_cycles.
io::Table totals_table(const std::vector<Kernel>& kernels, const std::vector<KernelResult>& results);

}  // namespace tcsim::engine
