#pragma once
// The tables of `tcsim network`: per layer, per kernel, the step's totals, the memory footprint,
// and the precision comparison. Column names carry their units.
#include <string>
#include <vector>

#include "engine/network/network_estimate.h"
#include "io/table.h"

namespace tcsim::engine {

io::Table network_layers_table(const NetworkEstimate& e);   // "layers": one row per layer (+ the step's kernels)
io::Table network_kernels_table(const NetworkEstimate& e);  // "kernels": one row per lowered kernel
io::Table network_totals_table(const NetworkEstimate& e);   // "totals": one row
io::Table network_memory_table(const NetworkEstimate& e);   // "memory": one row, bytes per kind
// "compare": one row per estimate (precision mode), speedups over the row whose precision is
// fp32 (else the first row), time split into tensor-core/GEMM, memory-bound and host wait.
io::Table network_compare_table(const std::vector<NetworkEstimate>& modes);
// "compare_by_kind": per layer kind, the time in each mode (columns <mode>_time_us) and the speedup
// of each over the baseline: where mixed precision gains and where it does not.
io::Table network_compare_by_kind_table(const std::vector<NetworkEstimate>& modes);

// Sentences for people: for each mode against the baseline, the layer kinds that gain the most
// time and those that gain nothing (< 10%) while holding >= 5% of the step.
std::vector<std::string> compare_summary(const std::vector<NetworkEstimate>& modes);

// The n layers with the most time (the step's own kernels included), as a table.
io::Table network_top_layers_table(const NetworkEstimate& e, std::size_t n);

}  // namespace tcsim::engine
