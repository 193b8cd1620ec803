#pragma once
// SCALE-Sim-style per-cycle DRAM traces of one layer (--traces), scalesim_v2 semantics:
// IFMAP_DRAM_TRACE.csv and FILTER_DRAM_TRACE.csv (CALC mode here; USER mode in user_traces.h) and
// OFMAP_DRAM_TRACE.csv (both modes: OfmapDramTrace). One row per cycle of a transfer: the cycle,
// then the word addresses (plus the operand's offset) moved in that cycle, -1 for a slot SCALE-Sim
// counts but that carries no address. The cells of each file add up to the report's DRAM count and
// its first/last rows are the report's DRAM start/stop cycles.
#include <cstdint>
#include <filesystem>
#include <vector>

#include "systolic/schedule/fold_schedule.h"
#include "systolic/schedule/layer.h"
#include "systolic/memory/ofmap_write_buffer.h"
#include "systolic/config/systolic_config.h"
#include "systolic/traces/trace_file.h"

namespace tcsim::systolic {

// CALC mode: IFMAP/FILTER_DRAM_TRACE.csv (the epoch rule of CalcReadBuffer with addresses) and
// OFMAP_DRAM_TRACE.csv, into `dir` (which must exist). Memory: one epoch of misses (half the
// operand SRAM) and one stamp per operand address. The caller checks the size limit first.
void write_calc_dram_traces(const std::filesystem::path& dir, const Layer& layer, const SystolicConfig& c);

// OFMAP_DRAM_TRACE.csv from the drains of an OfmapWriteBuffer (give it observer()): as in
// write_buffer.py, one row per DRAM line in drain order, at the cycle the line is written, with
// the next `fill` output addresses in write order (demand rows in order, ports in order) plus
// counted - fill cells of -1 (SCALE-Sim's partial-line artefact; the empty slots of a drain's last
// line, which it does not count, are left out). So the cells add up to the reported DRAM writes,
// the addresses to the OFMAP SRAM writes, and the first and last rows are the report's start and
// stop cycles. As in write_buffer.py, a drain may start in the cycle the previous one ends (two rows
// with one cycle), and the final flush starts at the last compute cycle even while a drain is still
// writing (the cycles go back; the report's stop is the flush's end).
class OfmapDramTrace {
 public:
  OfmapDramTrace(const std::filesystem::path& path, const Layer& layer, const FoldSchedule& s, std::int64_t offset);
  OfmapWriteBuffer::LineObserver observer() {
    return [this](std::int64_t cycle, std::int64_t fill, std::int64_t counted) { line(cycle, fill, counted); };
  }
  void commit() { f_.commit(); }

 private:
  void line(std::int64_t cycle, std::int64_t fill, std::int64_t counted);
  std::int64_t next_address();
  TraceFile f_;
  const FoldSchedule& s_;
  std::int64_t N_, offset_;
  std::int64_t next_row_ = 0;  // the demand row whose writes come next
  std::vector<std::int64_t> row_, cells_;
  std::size_t pos_ = 0;
};

}  // namespace tcsim::systolic
