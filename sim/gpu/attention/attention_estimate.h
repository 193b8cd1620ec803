#pragma once
// GPU-level cost of a fused-attention kernel: the plan (attention_plan.h), one SM's resident CTAs
// simulated cycle by cycle on the kernel's program (attention_program.h) with steady-state
// extrapolation of long K/V loops, the CTAs (whose loop lengths differ under a causal mask)
// list-scheduled over the SMs' CTA slots in launch order, the L2/DRAM traffic, and the extra
// kernels (split-KV combine; backward preprocessing and dQ conversion) with their launches.
#include <map>
#include <mutex>
#include <string>

#include "gpu/gpu_config.h"
#include "workload/kernel.h"
#include "workload/kernel_result.h"

namespace tcsim::gpu {

// SM runs keyed by (plan, iterations, resident CTAs, bandwidth share, latency); thread-safe.
class AttentionSmCache {
 public:
  bool find(const std::string& key, double& cycles, double& period) const;
  void put(const std::string& key, double cycles, double period);

 private:
  mutable std::mutex mu_;
  std::map<std::string, std::pair<double, double>> map_;
};

// allow_fa3: see plan_attention (GpuModel::run uses the default, the library's choice).
KernelResult estimate_attention(const GpuConfig& g, const Kernel& kernel, AttentionSmCache& cache, bool allow_fa3 = true);

}  // namespace tcsim::gpu
