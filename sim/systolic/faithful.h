#pragma once
// `semantics: faithful`: what the hardware would do, not what SCALE-Sim v2 computes
// (differences listed in sim/systolic/README.md).
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "systolic/schedule/demand_streams.h"
#include "systolic/memory/dram_estimate.h"
#include "systolic/schedule/fold_schedule.h"
#include "systolic/schedule/layer.h"
#include "systolic/reports/layer_report.h"
#include "systolic/config/systolic_config.h"

namespace tcsim::systolic {

struct FaithfulResult {
  std::int64_t cycles = 0;        // number of cycles (not the last index)
  std::int64_t compute_cycles = 0;
  std::int64_t stall_cycles = 0;  // cycles beyond compute spent waiting for DRAM
  // DRAM words and the cycles of the traces' transfers (faithful_traces.h): reads of fold g in the
  // fold period before g * P (fold 0: cycles -P .. -1), writes when the outputs leave the array.
  AccessSpan dram_ifmap, dram_filter, dram_ofmap;
  // SRAM start/stop cycles on the same timeline (faithful_traces.h's SRAM traces): the first and
  // last cycle with an ifmap/filter read of an element (padding is not read) or an ofmap write.
  // Only start/stop are set; the counts are the model's.
  AccessSpan sram_ifmap, sram_filter, sram_ofmap;
  std::vector<std::string> notes;
};

// Cycles with overlapped folds:
//   os: folds * max(K, R) + R + C - 2        (accumulators double-buffered: drain overlaps next fold)
//   ws: R + folds * max(M, R) + R + C - 2    (weights double-buffered: next load overlaps streaming)
//   is: R + folds * max(N, R) + R + C - 2
std::int64_t faithful_compute_cycles(const FoldSchedule& s);

// The cycles one fold occupies on the overlapped timeline, max(T, R): fold g (column folds outer)
// streams from g * P (os) or loads its stationary tile from g * P and streams from R + g * P (ws, is).
std::int64_t faithful_fold_period(const FoldSchedule& s);

// ws/is: true when the partial sums of every K fold go to DRAM (one T x C output tile does not fit
// in half the ofmap buffer); otherwise only the last K fold's (final) outputs do.
bool faithful_partial_sums_to_dram(const FoldSchedule& s, const SystolicConfig& c, std::int64_t out_bytes);

// The faithful DRAM reads of one operand, in words (elements). The ifmap is counted in distinct
// input elements, not im2col entries: a transfer brings the input pixels x channels that its
// windows touch, once each, and never the padding (dram_estimate.h, `distinct_input_elements`).
struct FaithfulReads {
  std::int64_t capacity = 0;   // half the operand's buffer, in words
  std::int64_t footprint = 0;  // ifmap: the input elements any window touches; filter: K * N
};
FaithfulReads faithful_reads(const Layer& layer, const SystolicConfig& c, Operand op, std::int64_t in_bytes);
// The transfers in order: when the footprint fits in the capacity, the whole operand once for fold
// 0 (whole = true, `words` = the footprint); otherwise fold g's operand tile (fold order, `words`
// = faithful_tile_words), except when fold g uses the previous fold's tile and it fits. A transfer
// for fold g is needed by cycle g * P.
void for_each_faithful_read(const Layer& layer, const FoldSchedule& s, Operand op, const FaithfulReads& r,
                            const std::function<void(std::int64_t fold, bool whole, std::int64_t words)>& visit);
// The im2col block fold (fr, fc) reads from the ifmap: os rows [fr R, fr R + ru) x all K; ws all M x
// columns [fr R, fr R + ru); is the K range [fr R, fr R + ru) x the M range [fc C, fc C + cu).
Im2colBlock faithful_ifmap_block(const Layer& layer, const FoldSchedule& s, std::int64_t fr, std::int64_t fc);
// Words of fold (fr, fc)'s operand tile: the distinct input elements of its ifmap block, or its
// filter entries.
std::int64_t faithful_tile_words(const Layer& layer, const FoldSchedule& s, Operand op, std::int64_t fr,
                                 std::int64_t fc);

// `word_bytes`: bytes per operand word (from the kernel's formats, or the config).
FaithfulResult faithful_layer(const Layer& layer, const FoldSchedule& s, const SystolicConfig& c,
                              std::int64_t in_bytes = 1, std::int64_t out_bytes = 1);

}  // namespace tcsim::systolic
