#pragma once
// Shared helper of the GPU tests: the shipped configs.
#include <filesystem>
#include <string>

#include "config/config.h"
#include "gpu/gpu_config.h"
#include "test_support.h"

namespace tcsim::gpu::test {

inline GpuConfig shipped(const std::string& name) {
  const auto path = tcsim::test::source_dir() / "configs" / "gpu" / (name + ".yaml");
  return GpuConfig::from(config::Config::load(path, config_schema()));
}

}  // namespace tcsim::gpu::test
