#include "systolic/traces/traces.h"

#include <algorithm>

#include "common/error.h"
#include "systolic/schedule/demand_streams.h"
#include "systolic/traces/dram_traces.h"
#include "systolic/faithful.h"
#include "systolic/traces/faithful_traces.h"
#include "systolic/schedule/fold_schedule.h"
#include "systolic/traces/sram_traces.h"
#include "systolic/traces/user_traces.h"

namespace tcsim::systolic {

std::int64_t trace_cells(const Layer& layer, const SystolicConfig& c, const LayerReport& r) {
  const FoldSchedule s = make_schedule(layer, c.rows, c.cols, c.dataflow);
  const std::int64_t sram_rows = c.semantics == Semantics::faithful ? faithful_compute_cycles(s) : s.total_rows();
  std::int64_t cells = sram_rows * (c.rows + 2 * c.cols + 3);
  for (const AccessSpan* d : {&r.dram_ifmap, &r.dram_filter, &r.dram_ofmap})
    cells += d->count + static_cast<std::int64_t>(std::max(0.0, d->stop - d->start + 1));
  return cells;
}

void check_trace_size(const Layer& layer, const SystolicConfig& c, const LayerReport& report,
                      const std::string& layer_label) {
  // The faithful traces have one row per step of the full-rate pipeline.
  if (layer.mac_cycles > 1)
    throw InputError("--traces", layer_label + " runs at 1/" + std::to_string(layer.mac_cycles) +
                                     " of the native MAC rate (array.formats); per-cycle traces are written for "
                                     "full-rate formats only. Leave out --traces or list the format without /N.");
  const std::int64_t cells = trace_cells(layer, c, report);
  if (cells > kMaxTraceCells)
    throw InputError("--traces", layer_label + " is too large for per-cycle traces: " + std::to_string(cells) +
                                     " trace cells (cycles x ports and DRAM words); the limit is " +
                                     std::to_string(kMaxTraceCells) +
                                     " per layer. Leave out --traces or simulate smaller layers.");
}

void write_layer_traces(const std::filesystem::path& dir, const Layer& layer, const SystolicConfig& c,
                        const LayerReport& report, const std::string& layer_label) {
  check_trace_size(layer, c, report, layer_label);
  std::filesystem::create_directories(dir);
  if (c.semantics == Semantics::faithful) {
    write_faithful_traces(dir, layer, c);
    return;
  }
  if (c.bandwidth_mode == BandwidthMode::user) {
    write_user_traces(dir, layer, c);
    return;
  }
  const FoldSchedule s = make_schedule(layer, c.rows, c.cols, c.dataflow);
  const Im2col A(layer);
  SramTraceWriter sram(dir, layer, s, A, c);
  for (std::int64_t i = 0; i < s.total_rows(); ++i) sram.row(i, i + 1, i + 1, i);  // reads: 1-cycle hit latency
  sram.commit();
  write_calc_dram_traces(dir, layer, c);
}

}  // namespace tcsim::systolic
