#pragma once
// Simulates a profiled run (workload/profile/) on an Accelerator: every op call tcsim can map is
// run as the Kernels op_kernels.h gives it (identical kernels simulated once, engine/kernel_key.h)
// and set beside its measured time. Used by `tcsim validate` on a profile (same GPU: how close is
// the model, kernel by kernel) and by `tcsim replay` (another GPU or precision: how long would the
// step take). The step is replayed through the eager launch queue of `tcsim network`
// (network/launch_queue.h); calls that are not mapped keep their measured time there.
#include <optional>
#include <string>
#include <vector>

#include "io/table.h"
#include "workload/accelerator.h"
#include "workload/profile/profile.h"
#include "workload/profile/profile_mapping.h"

namespace tcsim::engine {

struct CallEstimate {
  bool simulated = false;           // mapped and run by the model
  std::string reason;               // when not: not mapped (the mapping's reason) or the model's error
  double predicted_us = 0;          // of the call (its kernels, counts included)
  double predicted_tensor_core_us = 0;  // of its GEMM, convolution and attention kernels in a tensor-core format
  std::string bound, mapping;       // of its longest kernel
  double flops = 0;                 // useful work of the call (its kernels' flops, counts included)
};

struct ProfileEstimate {
  workload::ProfileMapping mapping;
  std::vector<CallEstimate> calls;  // parallel to mapping.calls
  std::string accelerator;
  std::int64_t distinct_kernels = 0;
  // Totals. measured_*: the profile; predicted_*: simulated calls, plus measured time of the rest.
  double measured_us = 0, measured_tensor_core_us = 0, measured_mapped_us = 0;
  double predicted_mapped_us = 0, predicted_us = 0, predicted_tensor_core_us = 0;
  double not_mapped_us = 0;         // measured time of the calls not simulated
  std::int64_t not_mapped_calls = 0;
  double step_us = 0;               // the launch queue: predicted kernels (and the unmapped ones) with host launches
  double host_idle_us = 0;          // of it, the GPU waiting for the host
  // With a power limit: the clock the step's kernels share (as a network step's, network_estimate.h).
  // 0: no limit to enforce.
  double step_clock_hz = 0;
};

ProfileEstimate estimate_profile(const Accelerator& acc, const workload::Profile& profile,
                                 std::optional<workload::Precision> precision, int jobs);

// Tables: "calls" (one per op call), "families" (per op family), "not_mapped" (what was not
// simulated, by name and reason, with its share of the measured time) and "step" (one row).
io::Table profile_calls_table(const ProfileEstimate& e, bool replay);
io::Table profile_families_table(const ProfileEstimate& e, bool replay);
io::Table profile_not_mapped_table(const ProfileEstimate& e);
io::Table profile_step_table(const ProfileEstimate& e, bool replay);

}  // namespace tcsim::engine
