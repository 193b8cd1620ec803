#pragma once
// DRAM read traffic estimated per fold tile, for layers too large to replay address by address
// (scalesim_v2): a fold re-reads its operand tile unless the previous fold used the same tile and
// it fits in the usable buffer, or the whole operand fits (then it is read once).
//
// For `semantics: faithful` (faithful.h), the ifmap tile a fold reads from DRAM is not its im2col
// block but the distinct input elements the block's windows touch: `distinct_input_elements`
// counts them exactly (pixels x channels, padding excluded, overlapping windows counted once) and
// `InputElementCursor` lists them, each once.
#include <cstdint>
#include <utility>
#include <vector>

#include "systolic/memory/calc_read_buffer.h"
#include "systolic/schedule/demand_streams.h"
#include "systolic/schedule/fold_schedule.h"
#include "systolic/schedule/layer.h"

namespace tcsim::systolic {

DramSpan estimate_dram_reads(const Layer& layer, const FoldSchedule& s, Operand op, std::int64_t capacity_words,
                             std::int64_t footprint_words);

// A block of the im2col matrix: entries (m, k) with m in [m0, m1) (output positions, raster order
// over (oy, ox)) and k in [k0, k1) (k = (fy * Fw + fx) * C + c, layer.h). Non-empty ranges.
struct Im2colBlock {
  std::int64_t m0 = 0, m1 = 0, k0 = 0, k1 = 0;
};

// The number of distinct input elements (iy, ix, c) inside the input that the block's entries
// read. Exact: per channel group (the channels whose filter positions in the block form the same
// range), per input row, the union of the column intervals (or, when the stride exceeds the
// filter positions used, the comb of teeth) of the output rows whose windows cover that row.
// Cost: O(input rows x filter rows / stride x teeth) per channel group (at most 4 groups); O(1)
// when the windows can neither overlap nor reach padding (GEMM layers, 1x1 stride-1 convs).
std::int64_t distinct_input_elements(const Layer& layer, const Im2colBlock& b);

// The same elements one at a time, each once: channel group by group, input row by row, column by
// column, channel by channel. Memory: one input row of one channel group.
class InputElementCursor {
 public:
  InputElementCursor(const Layer& layer, const Im2colBlock& b);
  // The next element's word address (without the operand offset), or -1 when all were listed.
  std::int64_t next();

  // A set of channels whose filter positions in the block are the same range [pa, pb] (positions
  // p = fy * Fw + fx, inclusive).
  struct ChannelGroup {
    std::int64_t c0 = 0, c1 = 0;  // channels [c0, c1)
    std::int64_t pa = 0, pb = 0;
  };

 private:
  bool fill_row();
  const Layer& l_;
  Im2colBlock b_;
  std::vector<ChannelGroup> groups_;
  std::size_t group_ = 0;
  std::int64_t iy_ = 0, iy_end_ = 0;  // rows left in the current group: [iy_, iy_end_)
  bool started_ = false;
  std::vector<std::pair<std::int64_t, std::int64_t>> intervals_;
  std::vector<std::int64_t> row_;
  std::size_t pos_ = 0;
};

}  // namespace tcsim::systolic
