#pragma once
// Occupancy: the CTAs of a kernel one SM holds at once (resident_ctas, from its warps, registers
// and shared memory), and the rounds of resident CTAs on the busiest SM for kernels without a tile
// program (cta_rounds: memory-bound kernels, GEMVs, whose CTAs need few registers and no shared
// memory, so warps and CTA slots set the occupancy), and the CTAs running in a round (running_ctas).
#include <algorithm>
#include <cstdint>

#include "gpu/gpu_config.h"

namespace tcsim::gpu {

// CTAs of `warps` warps at `regs_per_thread` registers and `smem_bytes` of shared memory one SM
// holds at once: CTA slots, warps, registers (allocated per warp in units of 256) and shared memory
// bound it; 0 where one CTA does not fit.
inline int resident_ctas(const GpuConfig& g, int warps, int regs_per_thread, std::uint64_t smem_bytes) {
  if (warps * 32 > g.max_threads_per_cta || smem_bytes > g.max_smem_per_cta) return 0;
  int c = std::min(g.max_ctas_per_sm, g.max_warps_per_sm / warps);
  const std::int64_t regs_per_warp = (std::int64_t(regs_per_thread) * 32 + 255) / 256 * 256;
  c = int(std::min<std::int64_t>(c, g.registers_per_sm / (regs_per_warp * warps)));
  if (smem_bytes > 0) c = int(std::min<std::uint64_t>(std::uint64_t(c), g.max_smem_per_sm / smem_bytes));
  return std::max(c, 0);
}

struct CtaRounds {
  int warps_per_cta = 1;
  std::int64_t occupancy = 1;  // CTAs one SM holds at once
  std::int64_t per_sm = 0;     // CTAs of the busiest SM
  std::int64_t resident = 1;   // of those, at once: min(occupancy, per_sm)
  std::int64_t rounds = 0;     // ceil(per_sm / resident)
};

inline CtaRounds cta_rounds(const GpuConfig& g, int threads_per_cta, std::int64_t ctas) {
  CtaRounds r;
  r.warps_per_cta = (threads_per_cta + 31) / 32;
  r.occupancy = std::max<std::int64_t>(1, std::min<std::int64_t>(g.max_ctas_per_sm, g.max_warps_per_sm / r.warps_per_cta));
  r.per_sm = (ctas + g.sm_count - 1) / g.sm_count;
  r.resident = std::max<std::int64_t>(1, std::min(r.occupancy, r.per_sm));
  r.rounds = (r.per_sm + r.resident - 1) / r.resident;
  return r;
}

// CTAs running GPU-wide in round `round` of a grid of `ctas` whose rounds run in step, `wave` at
// most at once, when the busiest SM holds `n` of them: min(a wave, the CTAs not yet run), and at
// least its own n. Only the last full round and the partial one can hold fewer than a wave. An SM
// holding n of them gets n / running of the GPU's bandwidth (memory kernels, GEMM rounds).
inline double running_ctas(double ctas, double wave, std::int64_t round, std::int64_t n) {
  return std::clamp(ctas - double(round) * wave, double(n), wave);
}

}  // namespace tcsim::gpu
