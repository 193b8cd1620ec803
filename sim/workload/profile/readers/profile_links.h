#pragma once
// What the profile readers share: ops nest by time on their thread; a kernel belongs to the
// innermost op around its launch (Nsight Systems: the NVTX range around the launch call); and,
// where a profile records no dtypes, the kernels' names say them.
#include <cstdint>
#include <vector>

#include "workload/profile/profile.h"

namespace tcsim::workload {

// Sets every op's `parent`: the op on the same thread (tid) that encloses it in time.
void link_op_parents(std::vector<ProfiledOp>& ops);

// Finds, per thread, the innermost op whose [start, start + dur] holds a time (parents linked first).
class OpLocator {
 public:
  explicit OpLocator(const std::vector<ProfiledOp>& ops);
  int innermost(std::int64_t tid, double time_us) const;  // -1 when none

 private:
  const std::vector<ProfiledOp>& ops_;
  std::vector<int> order_;  // by (tid, start)
};

// "c10::Half", "c10::BFloat16", "float" from a kernel's name (template arguments, cuBLAS/cuDNN
// precision letters), or "" when the name does not say.
std::string dtype_from_kernel_name(const std::string& name);

}  // namespace tcsim::workload
