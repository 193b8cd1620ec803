#pragma once
// SCALE-Sim v2 USER bandwidth mode (InterfaceBandwidth: USER): the demand rows are replayed one by
// one through the USER read buffers (ifmap, filter) and the stalling OFMAP write buffer, as
// memory/double_buffered_scratchpad_mem.py does:
//   row i is issued at cycle = i + stalls so far; each read buffer serves the row's addresses
//   (offset = 1 + its stall), the write buffer its writes (at the same cycle, not delayed by this
//   row's read stalls); stalls += max(ifmap offset - 1, filter offset - 1, ofmap delay);
//   Total Cycles = the write buffer's serviced cycle of the last row; at the end the write buffer
//   flushes from that cycle.
// The read buffers need the operand's prefetch order: the compute model's prefetch matrix
// (os: the im2col tiles of each row fold stacked, T x R each, and the filter tiles of each column
// fold, K x C each, padded with -1) unrolled along its anti-diagonals.
#include <cstdint>
#include <functional>

#include "systolic/memory/calc_read_buffer.h"
#include "systolic/schedule/demand_streams.h"
#include "systolic/schedule/fold_schedule.h"
#include "systolic/schedule/layer.h"
#include "systolic/memory/ofmap_write_buffer.h"
#include "systolic/config/systolic_config.h"

namespace tcsim::systolic {

struct UserReplay {
  std::int64_t total_cycles = 0;   // serviced cycle of the last demand row (SCALE-Sim's Total Cycles)
  std::int64_t stall_cycles = 0;
  RowSpan sram_ifmap, sram_filter, sram_ofmap;  // serviced cycles of the first/last demand rows
  DramSpan dram_ifmap, dram_filter, dram_ofmap;
  std::int64_t ifmap_prefetches = 0, filter_prefetches = 0;  // DRAM prefetches after the initial fill
};

// Optional observers of a replay (--traces, user_traces.h). `row`: demand row i (0-based, fold
// major) issued at `cycle`, its reads served at ifmap_cycle / filter_cycle (cycle + 1 + the row's
// read stalls) and its writes at ofmap_cycle. `ofmap_line`: every DRAM line the write buffer drains.
struct UserReplayHooks {
  std::function<void(std::int64_t i, std::int64_t cycle, std::int64_t ifmap_cycle, std::int64_t filter_cycle,
                     std::int64_t ofmap_cycle)>
      row;
  OfmapWriteBuffer::LineObserver ofmap_line;
};

// Whether the replay fits in bounded memory (the prefetch order of each operand is indexed).
bool user_bandwidth_fits(const Layer& layer, const FoldSchedule& s);

// ri, rf, ro: first/last demand rows with an entry, per operand.
UserReplay replay_user_bandwidth(const Layer& layer, const FoldSchedule& s, const Im2col& A, const SystolicConfig& c,
                                 RowSpan ri, RowSpan rf, RowSpan ro, const UserReplayHooks* hooks = nullptr);

// SCALE-Sim's DRAM line width in USER mode: `Bandwidth` words per cycle, rounded to whole words.
std::int64_t user_line_words(const SystolicConfig& c);

// Calls visit(address or -1) for every entry of the operand's prefetch matrix in SCALE-Sim's fetch
// order (read_buffer.py's fetch matrix, row-major: -1 where a fold tile is padded to the array
// edge or a window overhangs the input); returns the number of entries.
std::int64_t for_each_fetch_entry(const Layer& layer, const FoldSchedule& s, const Im2col& A, Operand op,
                                  const std::function<void(std::int64_t)>& visit);

}  // namespace tcsim::systolic
