#pragma once
// A profile's GPU work as op calls: each kernel goes with the op call that launched it (the
// innermost op tcsim knows, walking out from the op that launched it: aten::linear -> aten::addmm),
// and each op call becomes the tcsim Kernels of op_kernels.h. Kernels no op claims (launched
// outside a recorded op, memcpy/memset, NCCL) and ops tcsim cannot map stay as rows that are not
// mapped, with the reason: nothing is dropped.
#include <optional>
#include <string>
#include <vector>

#include "workload/network/precision.h"
#include "workload/profile/op_kernels.h"
#include "workload/profile/profile.h"

namespace tcsim::workload {

enum class ProfilePhase { forward, backward, optimizer, unknown };  // unknown: no op launched the kernel
const char* to_string(ProfilePhase p);

struct ProfiledCall {
  std::string name;                 // the op ("aten::addmm"), or the kernel's name when no op is known
  int op = -1;                      // index in Profile::ops
  std::vector<int> kernels;         // indices in Profile::kernels, in start order
  ProfilePhase phase = ProfilePhase::forward;
  OpKernels sim;                    // what tcsim runs for it (sim.mapped false: listed, not simulated)
  double measured_us = 0;           // its kernels' summed durations
  double measured_tensor_core_us = 0;  // of those whose names say tensor cores
  std::string first_kernel;         // the name of its longest kernel, for reports
  std::string metrics;              // that kernel's measured counters ("sm_throughput_pct=71.2 ..."), if any
  std::string origin;
};

struct ProfileMapping {
  std::vector<ProfiledCall> calls;  // in the order of their first kernel
  double kernel_time_us = 0;        // all kernels' durations summed
  double span_us = 0;               // first kernel start to last kernel end (the measured step, GPU side)
  std::size_t kernels = 0;
};

ProfileMapping map_profile(const Profile& p, std::optional<Precision> precision = std::nullopt);

}  // namespace tcsim::workload
