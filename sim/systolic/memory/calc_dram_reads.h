#pragma once
// CALC-mode DRAM reads of one operand (scalesim_v2 semantics): SCALE-Sim's read buffer
// (calc_read_buffer.h) driven by the operand's demand order, with fast paths that give the same
// counts and start/stop cycles without touching every access in order (see README "How it stays
// fast"), and the plain per-access replay they are tested against.
#include <cstdint>

#include "systolic/memory/calc_read_buffer.h"
#include "systolic/schedule/demand_streams.h"
#include "systolic/schedule/fold_schedule.h"
#include "systolic/schedule/layer.h"

namespace tcsim::systolic {

// DRAM reads, start and stop cycle of `op`. sram_words: the operand's whole SRAM; sram_reads: its
// SRAM read count (closed form, -1 entries included); first_row: the first demand row with a valid
// address. Layers beyond SystolicModel's replay limits get a per-fold-tile estimate (exact = false).
DramSpan calc_dram_reads(const Layer& layer, const FoldSchedule& s, const Im2col& A, Operand op,
                         std::uint64_t sram_words, std::int64_t sram_reads, std::int64_t first_row);

// The straightforward replay: every demand entry through CalcReadBuffer::access, in order. Slow;
// the reference for tests of the fast paths.
DramSpan calc_dram_reads_reference(const Layer& layer, const FoldSchedule& s, const Im2col& A, Operand op,
                                   std::uint64_t sram_words);

// Distinct valid input addresses touched by the layer's windows (rows x cols x channels).
std::int64_t ifmap_footprint(const Layer& layer);

}  // namespace tcsim::systolic
