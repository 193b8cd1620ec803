// Registers the `kind: gpu` schema so that `tcsim config describe|check|show` and the engine find it.
#include "config/registry.h"
#include "gpu/gpu_config.h"

static const bool tcsim_gpu_schema_registered = tcsim::config::register_schema("gpu", &tcsim::gpu::config_schema);
