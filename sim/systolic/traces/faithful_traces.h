#pragma once
// --traces in `semantics: faithful`: the six per-cycle trace CSVs of one layer on the faithful
// timeline (faithful.h), in SCALE-Sim's layout (the cycle, then one cell per port or word).
//
// Addresses are element (word) addresses plus the config's operand offsets, as in scalesim_v2: one
// cell is one element of the operand's size (in_bytes for ifmap and filter, out_bytes for the
// ofmap, from the formats with sram.bytes_from_formats, else word_size), so bytes = cells x size.
// In the SRAM traces padding positions are -1 (zeros, never read); the DRAM traces have no -1.
// P = max(T, R) is the fold period; folds run column folds outer, K (row) folds inner, and overlap
// as faithful.h describes:
//   os: fold g's ifmap port r reads A(m, k) at g P + r + k, filter port c reads B(k, n) at
//       g P + c + k, and output (m, n) is written by port c when PE (r, c) finishes, g P + r + c + K - 1;
//   ws: fold g's weights are loaded (filter ports, last row first) in cycles g P .. g P + R - 1, its
//       ifmap port r reads A(m, k) at R + g P + r + m, and column c writes the partial sum of output
//       row m at 2R - 1 + g P + c + m (accumulated in the ofmap buffer);
//   is: as ws with the inputs preloaded (ifmap ports) and the filters streamed (filter ports).
// The SRAM traces have one row per cycle of the compute timeline (faithful_compute_cycles rows).
// DRAM traces (their cell counts equal the report's DRAM words; first/last rows its start/stop):
//   reads : faithful_reads / for_each_faithful_read: the whole operand (when it fits in half its
//           buffer: the input elements some window touches, or the filter's K*N) or one fold's
//           operand tile (the distinct input elements of its im2col block, InputElementCursor's
//           order, each once, no padding; or its filter entries), spread evenly over the fold
//           period before the fold needs it: fold g's over (g-1) P .. g P - 1, fold 0's before
//           compute. That is the bandwidth the layer needs not to stall, as in SCALE-Sim's
//           CALC mode; with a DRAM bandwidth too low for it the report adds stall cycles, which the
//           traces do not show.
//   writes: each output word in the cycle it is written to the SRAM: every os output; for ws/is the
//           last K fold's (final) outputs, or every partial sum when they go to DRAM.
#include <filesystem>

#include "systolic/schedule/layer.h"
#include "systolic/config/systolic_config.h"

namespace tcsim::systolic {

void write_faithful_traces(const std::filesystem::path& dir, const Layer& layer, const SystolicConfig& c);

}  // namespace tcsim::systolic
