// GPU config YAML (sim/config loader with the gpu schema, base: relative to configs/gpu/, --set)
// and the GpuConfig it builds. Input: first line = one --set override ("" for none), then YAML.
#include "config/config.h"
#include "fuzz_support.h"
#include "gpu/gpu_config.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto parts = tcsim::fuzz::first_line(tcsim::fuzz::text_of(data, size));
  const std::string& set = parts.first;
  const std::string& yaml = parts.second;
  return tcsim::fuzz::run([&] {
    std::vector<std::string> overrides;
    if (set.find('=') != std::string::npos) overrides.push_back(set);
    const auto name = std::string(TCSIM_SOURCE_DIR) + "/configs/gpu/fuzz.yaml";  // base: v100.yaml resolves
    const auto cfg = tcsim::config::Config::from_yaml_text(yaml, tcsim::gpu::config_schema(), name, overrides);
    const auto g = tcsim::gpu::GpuConfig::from(cfg);
    g.validate();
  });
}
