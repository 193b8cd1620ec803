// Registers the `kind: systolic` schema so that `tcsim config describe|check|show` and the engine find it.
#include "config/registry.h"
#include "systolic/config/systolic_schema.h"

static const bool tcsim_systolic_schema_registered =
    tcsim::config::register_schema("systolic", &tcsim::systolic::config_schema);
