#include "engine/load_accelerator.h"

#include <yaml-cpp/yaml.h>

#include "common/error.h"
#include "config/config.h"
#include "config/registry.h"
#include "gpu/gpu_config.h"
#include "gpu/gpu_model.h"
#include "systolic/config/scalesim_cfg.h"
#include "systolic/systolic_model.h"
#include "systolic/config/systolic_schema.h"

namespace tcsim::engine {

std::string config_kind(const std::filesystem::path& path) {
  if (path.extension() == ".cfg") {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) throw InputError(path.string(), "config file not found");
    return "scalesim_cfg";
  }
  return config::read_kind(path);
}

LoadedAccelerator load_accelerator_with_config(const std::filesystem::path& file,
                                               const std::vector<std::string>& overrides) {
  LoadedAccelerator out;
  out.kind = config_kind(file);
  if (out.kind == "gpu") {
    const config::Config cfg = config::Config::load(file, gpu::config_schema(), overrides);
    out.accelerator = std::make_unique<gpu::GpuModel>(gpu::GpuConfig::from(cfg));
    out.resolved_yaml = cfg.resolved_yaml();
    return out;
  }
  if (out.kind == "scalesim_cfg") {
    if (!overrides.empty())
      throw InputError("--set", "overrides apply to YAML configs; a SCALE-Sim .cfg is used as written");
    systolic::SystolicConfig cfg = systolic::read_scalesim_cfg(file);
    out.resolved_yaml = systolic::format_systolic_yaml(cfg, "resolved from the SCALE-Sim config " + file.string());
    out.accelerator = std::make_unique<systolic::SystolicModel>(std::move(cfg));
    return out;
  }
  if (out.kind == "systolic") {
    const config::Config cfg = config::Config::load(file, systolic::config_schema(), overrides);
    out.accelerator = std::make_unique<systolic::SystolicModel>(systolic::config_from(cfg));
    out.resolved_yaml = cfg.resolved_yaml();
    return out;
  }
  throw InputError(location(file.string(), 0, "kind"),
                   "no model for kind '" + out.kind + "'; expected gpu or systolic (or a SCALE-Sim .cfg)");
}

void require_gpu_config(const LoadedAccelerator& loaded, const std::filesystem::path& config_file,
                        const std::string& purpose) {
  if (loaded.kind == "gpu") return;
  throw InputError(config_file.string(), purpose + "; this is a " +
                                             (loaded.kind == "scalesim_cfg" ? "SCALE-Sim .cfg" : loaded.kind) +
                                             " config (give a `kind: gpu` config, e.g. configs/gpu/a100.yaml)");
}

std::string resolve_config_yaml(const std::filesystem::path& file, const std::vector<std::string>& overrides) {
  const std::string kind = config_kind(file);
  if (kind == "gpu") return config::Config::load(file, gpu::config_schema(), overrides).resolved_yaml();
  if (kind == "systolic") return config::Config::load(file, systolic::config_schema(), overrides).resolved_yaml();
  return load_accelerator_with_config(file, overrides).resolved_yaml;
}

std::string kernel_relevant_config(const std::string& kind, const std::string& resolved_yaml) {
  YAML::Node y = YAML::Load(resolved_yaml);
  if (!y.IsMap()) return resolved_yaml;
  y.remove("name");
  if (kind == "gpu") {
    // gpu_model.h: host.* feeds host_overhead_s / host_launch_delay_s, dram.size memory_bytes().
    y.remove("host");
    if (y["dram"] && y["dram"].IsMap()) y["dram"].remove("size");
  }
  YAML::Emitter e;
  e << y;
  return e.c_str();
}

std::unique_ptr<Accelerator> load_accelerator(const std::filesystem::path& file,
                                              const std::vector<std::string>& overrides) {
  return load_accelerator_with_config(file, overrides).accelerator;
}

}  // namespace tcsim::engine
