#pragma once
// The `kind: systolic` YAML config: its Schema (for `tcsim config describe|check|show`) and the
// conversion to SystolicConfig. Paths (see `tcsim config describe systolic`):
//   name, semantics, clock
//   array.rows, array.cols, array.dataflow, array.formats
//   sram.ifmap, sram.filter, sram.ofmap, sram.word_size, sram.bytes_from_formats
//   address.ifmap_offset, address.filter_offset, address.ofmap_offset
//   dram.mode, dram.words_per_cycle, dram.bandwidth, dram.size
//   vector.lanes, vector.sram_bandwidth, vector.latency
#include <string>
#include <vector>

#include "config/config.h"
#include "config/schema.h"
#include "systolic/config/systolic_config.h"

namespace tcsim::systolic {

const config::Schema& config_schema();
// Semantic checks (SRAM too small for a fold, ...) report the YAML location of the field.
SystolicConfig config_from(const config::Config& cfg);
// array.formats: "any" (empty: every format) or a comma-separated list of format names, the
// native one first, each optionally /N (N cycles per MAC, 1 to kMaxMacCycles); an unknown or
// repeated name or a bad N is an InputError at `where`.
std::vector<ArrayFormat> parse_array_formats(const std::string& text, const std::string& where);
// A SystolicConfig as `kind: systolic` YAML (what config.resolved.yaml holds for a .cfg input);
// it loads back to the same config.
std::string format_systolic_yaml(const SystolicConfig& c, const std::string& comment = "");

}  // namespace tcsim::systolic
