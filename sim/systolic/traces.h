#pragma once
// SCALE-Sim-style per-cycle SRAM traces of one layer (--traces): IFMAP_SRAM_TRACE.csv,
// FILTER_SRAM_TRACE.csv and OFMAP_SRAM_TRACE.csv, one line per cycle: the cycle (reads: +1 for
// the hit latency, as SCALE-Sim prints it), then the word address at each array port, -1 when idle.
// Written row by row (bounded memory). In scalesim_v2 CALC mode the DRAM read traces
// (IFMAP_DRAM_TRACE.csv, FILTER_DRAM_TRACE.csv, see dram_traces.h) are written beside them.
#include <cstdint>
#include <filesystem>

#include "systolic/layer.h"
#include "systolic/systolic_config.h"

namespace tcsim::systolic {

// Trace cells (cycles x ports, summed over the three files) of a layer.
std::int64_t trace_cells(const Layer& layer, const SystolicConfig& c);
constexpr std::int64_t kMaxTraceCells = 50'000'000;

// Writes the three SRAM traces (and the DRAM read traces where supported) into `dir` (created). Throws InputError("--traces", ...) when the
// layer has more than kMaxTraceCells cells.
void write_sram_traces(const std::filesystem::path& dir, const Layer& layer, const SystolicConfig& c,
                       const std::string& layer_label);

}  // namespace tcsim::systolic
