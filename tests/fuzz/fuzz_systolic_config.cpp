// Systolic config YAML (schema, base:, --set) and the SystolicModel it builds. Input: first line
// = one --set override, then YAML.
#include "config/config.h"
#include "fuzz_support.h"
#include "systolic/systolic_model.h"
#include "systolic/config/systolic_schema.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto parts = tcsim::fuzz::first_line(tcsim::fuzz::text_of(data, size));
  const std::string& set = parts.first;
  const std::string& yaml = parts.second;
  return tcsim::fuzz::run([&] {
    std::vector<std::string> overrides;
    if (set.find('=') != std::string::npos) overrides.push_back(set);
    const auto name = std::string(TCSIM_SOURCE_DIR) + "/configs/systolic/fuzz.yaml";
    const auto cfg = tcsim::config::Config::from_yaml_text(yaml, tcsim::systolic::config_schema(), name, overrides);
    const tcsim::systolic::SystolicModel model(tcsim::systolic::config_from(cfg));
    (void)model.run(tcsim::make_gemm("g", 40, 36, 20));
  });
}
