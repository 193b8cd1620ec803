#pragma once
// The unified L1's split between shared memory and cache. The driver sets the shared-memory
// carveout to one of the architecture's capacities, the smallest that holds what the resident CTAs
// allocate plus the 1 KB per CTA the system reserves on compute capability 8.0 and later; the rest
// of the L1 caches global loads (CUDA C++ Programming Guide, "Shared Memory" of compute capabilities
// 7.x, 8.x, 9.0 and 12.0: 0, 8, 16, 32, 64, 96 KB on 7.0; 32 or 64 KB on 7.5; 0, 8, 16, 32, 64, 100,
// 132, 164 KB on 8.0; up to 100 KB on 8.6, 8.9 and 12.0; up to 228 KB on 9.0).
#include <algorithm>
#include <cstdint>
#include <span>

#include "gpu/gpu_config.h"

namespace tcsim::gpu {

// Bytes of the SM's L1 left to cache global loads while `resident` CTAs of `smem_per_cta` bytes of
// shared memory run. No shared memory: the whole L1 (the kernels the memory model costs without a
// tile program leave it to the cache).
inline double l1_cache_bytes(const GpuConfig& g, double smem_per_cta, std::int64_t resident) {
  const double l1 = double(g.l1_size);
  if (smem_per_cta <= 0) return l1;
  const bool reserves = g.arch != "sm_70" && g.arch != "sm_75";
  const double need = double(resident) * (smem_per_cta + (reserves ? 1024.0 : 0.0));
  // Carveout capacities in KiB, smallest first (7.0, 7.5, 8.x, 9.0); max_smem_per_sm caps them.
  static constexpr double sm70[] = {0, 8, 16, 32, 64, 96}, sm75[] = {32, 64},
                          sm80[] = {0, 8, 16, 32, 64, 100, 132, 164}, sm90[] = {0, 8, 16, 32, 64, 100, 132, 164, 196, 228};
  std::span<const double> kib;  // another architecture: the carveout is what the CTAs need
  if (g.arch == "sm_70") kib = sm70;
  if (g.arch == "sm_75") kib = sm75;
  if (runs_sm80_kernels(g)) kib = sm80;
  if (g.arch == "sm_90") kib = sm90;
  double carveout = kib.empty() ? need : double(g.max_smem_per_sm);
  for (double k : kib)
    if (k * 1024.0 >= need && k * 1024.0 <= double(g.max_smem_per_sm)) {
      carveout = k * 1024.0;
      break;
    }
  return std::max(0.0, l1 - std::max(carveout, need));
}

}  // namespace tcsim::gpu
