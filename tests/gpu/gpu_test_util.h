#pragma once
// Shared helper of the GPU tests: the shipped configs.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "common/error.h"

#include "config/config.h"
#include "gpu/gpu_config.h"
#include "test_support.h"

namespace tcsim::gpu::test {

inline GpuConfig shipped(const std::string& name) {
  const auto path = tcsim::test::source_dir() / "configs" / "gpu" / (name + ".yaml");
  return GpuConfig::from(config::Config::load(path, config_schema()));
}

// The text of a shipped config, to edit in a test.
inline std::string config_text(const std::string& name) {
  std::ifstream in(tcsim::test::source_dir() / "configs" / "gpu" / (name + ".yaml"));
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The InputError message loading `text` (as "v100.yaml", with --set `sets`) gives; "" if it loads.
inline std::string load_error(const std::string& text, const std::vector<std::string>& sets = {}) {
  try {
    GpuConfig::from(config::Config::from_yaml_text(text, config_schema(), "v100.yaml", sets));
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// `s` with the first `from` replaced by `to` (which must be there).
inline std::string replace(std::string s, const std::string& from, const std::string& to) {
  const auto at = s.find(from);
  REQUIRE(at != std::string::npos);
  return s.replace(at, from.size(), to);
}

}  // namespace tcsim::gpu::test
