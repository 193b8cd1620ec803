#pragma once
// SCALE-Sim-style per-cycle DRAM read traces of one layer (--traces), CALC bandwidth mode:
// IFMAP_DRAM_TRACE.csv and FILTER_DRAM_TRACE.csv, one line per cycle of each DRAM transfer: the
// cycle, then the word addresses read from DRAM in that cycle. They replay the demand stream
// through the same epoch rule as CalcReadBuffer (spec section 6), so the number of addresses per
// file equals the report's DRAM reads and the first/last rows are its DRAM start/stop cycles.
// Streamed row by row; the only buffer is one epoch of misses (half the operand SRAM in words).
#include <filesystem>

#include "systolic/layer.h"
#include "systolic/systolic_config.h"

namespace tcsim::systolic {

// True where DRAM read traces are written: scalesim_v2 semantics in CALC bandwidth mode.
bool dram_traces_supported(const SystolicConfig& c);

// Writes IFMAP_DRAM_TRACE.csv and FILTER_DRAM_TRACE.csv into `dir` (which must exist). The caller
// checks the size limit (trace_cells) first.
void write_dram_read_traces(const std::filesystem::path& dir, const Layer& layer, const SystolicConfig& c);

}  // namespace tcsim::systolic
