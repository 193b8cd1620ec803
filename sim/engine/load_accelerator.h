#pragma once
// Builds the Accelerator a hardware config describes: the model is picked by the config's kind
// (YAML top-level `kind: gpu` -> gpu::GpuModel; `kind: systolic` or a SCALE-Sim `.cfg` ->
// systolic::SystolicModel). Used by `tcsim run` (GPU backend), `tcsim validate`, and later by
// network estimation and sweeps.
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "workload/accelerator.h"

namespace tcsim::engine {

// "gpu", "systolic" (the YAML `kind:`) or "scalesim_cfg" (a file ending in .cfg). InputError
// (file, line, "kind") when the file is missing, not YAML, or has no kind.
std::string config_kind(const std::filesystem::path& config_file);

struct LoadedAccelerator {
  std::unique_ptr<Accelerator> accelerator;
  std::string kind;            // as config_kind()
  std::string resolved_yaml;   // the config with every value and default (config.resolved.yaml)
};

// Loads the config (applying `overrides`, "a.b=v" as given to --set) and builds its model.
// InputError for bad configs and for kinds no model handles.
LoadedAccelerator load_accelerator_with_config(const std::filesystem::path& config_file,
                                               const std::vector<std::string>& overrides = {});

// InputError naming the config file unless `loaded` is a GPU model: `purpose` says what needs one
// ("validate compares measured GPU kernel times with a GPU model").
void require_gpu_config(const LoadedAccelerator& loaded, const std::filesystem::path& config_file,
                        const std::string& purpose);

// The config's checks only (keys, types, units, ranges), not the model's checks of how values fit
// together: a sweep checks each axis value alone with it. Returns the resolved config text.
std::string resolve_config_yaml(const std::filesystem::path& config_file, const std::vector<std::string>& overrides = {});

// The part of a resolved config that can change Accelerator::run's results: the resolved text less
// what only the other getters read (GPU: name, host.* and dram.size). Two configs with the same
// text give the same kernel results (the sweep's kernel cache is keyed by it).
std::string kernel_relevant_config(const std::string& kind, const std::string& resolved_yaml);

std::unique_ptr<Accelerator> load_accelerator(const std::filesystem::path& config_file,
                                              const std::vector<std::string>& overrides = {});

}  // namespace tcsim::engine
