#pragma once
// Rounds of resident CTAs on the busiest SM for kernels without a tile program (memory-bound
// kernels, GEMVs): their CTAs need few registers and no shared memory, so warps and CTA slots
// set the occupancy.
#include <algorithm>
#include <cstdint>

#include "gpu/gpu_config.h"

namespace tcsim::gpu {

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

}  // namespace tcsim::gpu
