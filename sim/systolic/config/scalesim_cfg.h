#pragma once
// SCALE-Sim .cfg files (INI; spec/systolic.md section 7) -> SystolicConfig with
// semantics scalesim_v2. Keys are case-insensitive, `key: value` or `key = value`, `#`/`;` comments.
// v2 keys are used; v3-only keys ([layout], [sparsity], ReadRequestBuffer, UseRamulatorTrace ...)
// are accepted and ignored (v2 ignores them too); any other key is an error (file:line: key).
#include <filesystem>
#include <string>

#include "systolic/config/systolic_config.h"

namespace tcsim::systolic {

SystolicConfig read_scalesim_cfg(const std::filesystem::path& file);
SystolicConfig parse_scalesim_cfg(const std::string& text, const std::string& name);

// The config written back as a SCALE-Sim v2 .cfg (for config.resolved output and round trips).
std::string format_scalesim_cfg(const SystolicConfig& c);

}  // namespace tcsim::systolic
