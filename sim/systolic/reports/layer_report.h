#pragma once
// Everything SCALE-Sim v2 reports for one layer (COMPUTE_REPORT, BANDWIDTH_REPORT and
// DETAILED_ACCESS_REPORT columns), plus what we add (folds, MACs, time, notes).
#include <cstdint>
#include <string>
#include <vector>

namespace tcsim::systolic {

struct AccessSpan {
  double start = 0, stop = 0;  // cycles (SCALE-Sim prints them as floats: "33.0")
  std::int64_t count = 0;      // words
  bool exact = true;
};

struct LayerReport {
  std::string name;
  std::int64_t total_cycles = 0;  // SCALE-Sim's "Total Cycles": index of the last ofmap write
  std::int64_t stall_cycles = 0;
  double overall_util_pct = 0;
  double mapping_efficiency_pct = 0;
  double compute_util_pct = 0;
  AccessSpan sram_ifmap, sram_filter, sram_ofmap;  // reads, reads, writes
  AccessSpan dram_ifmap, dram_filter, dram_ofmap;
  double macs = 0;
  std::int64_t row_folds = 0, col_folds = 0, fold_cycles = 0;
  double time_s = 0;  // faithful with a clock; 0 otherwise
  std::int64_t word_bytes = 1;      // bytes per operand (ifmap, filter) element
  std::int64_t out_word_bytes = 1;  // bytes per ofmap element (faithful: the output format's size)
  std::vector<std::string> notes;

  double avg_bw(const AccessSpan& sram) const {  // SRAM words per cycle over Total Cycles
    return total_cycles > 0 ? static_cast<double>(sram.count) / static_cast<double>(total_cycles) : 0;
  }
  static double dram_bw(const AccessSpan& d) {  // words per cycle over the DRAM span
    const double span = d.stop - d.start + 1;
    return span > 0 ? static_cast<double>(d.count) / span : 0;
  }
};

}  // namespace tcsim::systolic
