#pragma once
// Everything that determines a kernel's result (not its name or count): identical keys are
// simulated once (network_estimate.h within a step, sweep/caching_accelerator.h across a sweep).
#include <string>

#include "workload/kernel.h"

namespace tcsim::engine {

std::string kernel_key(const Kernel& k);

}  // namespace tcsim::engine
