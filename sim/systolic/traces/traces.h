#pragma once
// --traces: SCALE-Sim-style per-cycle trace CSVs of one layer, written into a folder:
// IFMAP/FILTER/OFMAP_SRAM_TRACE.csv and IFMAP/FILTER/OFMAP_DRAM_TRACE.csv, one row per cycle (the
// cycle, then addresses, -1 for an idle port or an empty slot). What they contain per mode:
//   scalesim_v2 CALC : sram_traces.h (stall-free cycles) and dram_traces.h
//   scalesim_v2 USER : user_traces.h (the replay's stalled cycles, read_buffer.py's prefetch lines)
//   faithful         : faithful_traces.h (overlapped folds, padding, the faithful DRAM traffic)
// Every file is streamed row by row to a temporary name and renamed when complete.
#include <cstdint>
#include <filesystem>
#include <string>

#include "systolic/schedule/layer.h"
#include "systolic/reports/layer_report.h"
#include "systolic/config/systolic_config.h"

namespace tcsim::systolic {

// Cells (rows and addresses, the six files together) the traces of a layer would have, from its
// report (run_layer): SRAM cycles x (ports + 1), plus each DRAM file's reported count and span.
std::int64_t trace_cells(const Layer& layer, const SystolicConfig& c, const LayerReport& report);
// Layers above this are refused: the traces are for small layers (50M cells is about 0.4 GB of CSV).
constexpr std::int64_t kMaxTraceCells = 50'000'000;
// About 8 bytes of CSV per cell (an address and a comma): what --traces-max-size is compared with.
constexpr double kTraceBytesPerCell = 8;

// Throws InputError("--traces", ...) naming `layer_label` when the layer exceeds kMaxTraceCells.
void check_trace_size(const Layer& layer, const SystolicConfig& c, const LayerReport& report,
                      const std::string& layer_label);

// Writes the six traces into `dir` (created). `report` is the layer's run_layer() result (used for
// the size check only). Checks the size first, so a refused layer writes nothing.
void write_layer_traces(const std::filesystem::path& dir, const Layer& layer, const SystolicConfig& c,
                        const LayerReport& report, const std::string& layer_label);

}  // namespace tcsim::systolic
