#pragma once
// What one eager launch costs the host, the rule network steps (network/network_estimate.cpp) and
// profiled steps (profile/profile_estimate.cpp) share: a forward op's kernel costs its class's
// host.op_overhead (host.kernel_overhead where the config gives none) times autograd's factor (1
// outside an eager training step); a backward or optimizer launch costs host.kernel_overhead, as
// host.autograd_factor was fitted. `k` null: a call the model does not map (its class unknown).
#include "workload/accelerator.h"

namespace tcsim::engine {

inline double launch_host_s(const Accelerator& acc, const Kernel* k, bool forward, double autograd) {
  if (!forward) return acc.host_overhead_s();
  return (k ? acc.host_op_overhead_s(host_op_class(*k)) : acc.host_overhead_s()) * autograd;
}

}  // namespace tcsim::engine
