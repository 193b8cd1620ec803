#pragma once
// How long one memory trip of a loop kernel takes when a sub-core's warps share its issue slots.
//
// Each of the sub-core's `warps` cycles between waiting for its loads (a delay of `delay` cycles,
// any number of warps at once) and issuing that trip's instructions on the scheduler, which needs
// `service` cycles of issue per warp and trip and shares its issue slots among the warps that are
// ready (processor sharing: a warp that cannot issue waits while the scheduler issues another's).
// This closed network of a delay station and a processor-sharing queue has a product-form
// solution whatever the service-time distribution (BCMP), and exact Mean Value Analysis gives its
// cycle time (Lazowska et al., "Quantitative System Performance", 1984, ch. 6). It tends to
// max(warps x service, delay + service) at both ends and is longer near the knee, where the warps'
// issue and their waits are comparable: there the warps that come back from memory together queue
// for the scheduler, and a later trip's waits cannot hide the issue of a warp that is still queued.
#include <algorithm>

namespace tcsim::gpu {

// Cycles from one of a warp's trips to its next (delay + residence at the scheduler), warps >= 1.
inline double warp_trip_cycles(int warps, double service, double delay) {
  double queued = 0, residence = service;
  for (int k = 1; k <= warps; ++k) {
    residence = service * (1 + queued);  // the arriving warp waits for the ones queued (MVA)
    const double throughput = double(k) / (delay + residence);
    queued = throughput * residence;  // Little's law at the scheduler
  }
  return std::max(delay + residence, double(std::max(warps, 1)) * service);
}

}  // namespace tcsim::gpu
