#pragma once
// `semantics: faithful`: what the hardware would do, not what SCALE-Sim v2 computes
// (differences listed in sim/systolic/README.md).
#include <cstdint>
#include <string>
#include <vector>

#include "systolic/fold_schedule.h"
#include "systolic/layer.h"
#include "systolic/layer_report.h"
#include "systolic/systolic_config.h"

namespace tcsim::systolic {

struct FaithfulResult {
  std::int64_t cycles = 0;        // number of cycles (not the last index)
  std::int64_t compute_cycles = 0;
  std::int64_t stall_cycles = 0;  // cycles beyond compute spent waiting for DRAM
  AccessSpan dram_ifmap, dram_filter, dram_ofmap;
  std::vector<std::string> notes;
};

// Cycles with overlapped folds:
//   os: folds * max(K, R) + R + C - 2        (accumulators double-buffered: drain overlaps next fold)
//   ws: R + folds * max(M, R) + R + C - 2    (weights double-buffered: next load overlaps streaming)
//   is: R + folds * max(N, R) + R + C - 2
std::int64_t faithful_compute_cycles(const FoldSchedule& s);

// `word_bytes`: bytes per operand word (from the kernel's formats, or the config).
FaithfulResult faithful_layer(const Layer& layer, const FoldSchedule& s, const SystolicConfig& c,
                              std::int64_t in_bytes = 1, std::int64_t out_bytes = 1);

}  // namespace tcsim::systolic
