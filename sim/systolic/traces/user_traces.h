#pragma once
// --traces in SCALE-Sim v2's USER bandwidth mode: the six per-cycle trace CSVs of one layer, as
// memory/double_buffered_scratchpad_mem.py, read_buffer.py and write_buffer.py produce them.
//  * SRAM traces: one row per demand row at the cycle the replay serves it (stalls included).
//  * IFMAP/FILTER_DRAM_TRACE.csv: read_buffer.py's trace matrix. Its fetch matrix is the operand's
//    prefetch order (for_each_fetch_entry) cut into lines of `Bandwidth` words, -1 where the order
//    has padding. The initial fill is its first n0 = min(ceil(active / bw), lines) lines at cycles
//    -n0 .. -1; prefetch j (1-based) is L = ceil(prefetch_half / bw) lines at cycles
//    (j-1)(L+1) + 1 onward, back to back (each request waits for the previous one; the 1-cycle port
//    latency leaves a gap cycle), whatever the demand cycle that asked for it. Each row holds one
//    line, all `Bandwidth` cells; the chomped slots are -1 (see user_traces.cpp for v2's rules,
//    which we follow line by line, including that from the second prefetch on, all read the
//    same lines). So the cells add up to the report's DRAM reads (whole lines) and the first/last
//    rows are its DRAM start/stop cycles.
//  * OFMAP_DRAM_TRACE.csv: the write buffer's drains at `Bandwidth` words per cycle (OfmapDramTrace).
#include <filesystem>

#include "systolic/schedule/layer.h"
#include "systolic/config/systolic_config.h"

namespace tcsim::systolic {

// Writes the six traces into `dir` (which must exist). Memory: the replay's index (as for the
// report) plus at most the lines of two prefetches and the initial fill per read operand. Throws
// InputError("--traces", ...) for a layer too large to replay (the report then has no stalls).
void write_user_traces(const std::filesystem::path& dir, const Layer& layer, const SystolicConfig& c);

}  // namespace tcsim::systolic
