#pragma once
// DRAM read traffic estimated per fold tile, for layers too large to replay address by address
// and for faithful semantics: a fold re-reads its operand tile unless the previous fold used the
// same tile and it fits in the usable buffer, or the whole operand fits (then it is read once).
#include <cstdint>

#include "systolic/calc_read_buffer.h"
#include "systolic/demand_streams.h"
#include "systolic/fold_schedule.h"
#include "systolic/layer.h"

namespace tcsim::systolic {

DramSpan estimate_dram_reads(const Layer& layer, const FoldSchedule& s, Operand op, std::int64_t capacity_words,
                             std::int64_t footprint_words);

}  // namespace tcsim::systolic
