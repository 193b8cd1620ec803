#include "gpu/power/energy_model.h"

#include <algorithm>
#include <string_view>

namespace tcsim::gpu {

double EnergyBreakdown::total_j() const {
  double s = 0;
  for (const auto& [name, j] : parts) s += j;
  return s;
}

double EnergyBreakdown::dynamic_j() const {
  double s = 0;
  for (const auto& [name, j] : parts)
    if (std::string_view(name) != "leakage" && std::string_view(name) != "idle") s += j;
  return s;
}

EnergyBreakdown kernel_energy(const PowerConfig& p, const Activity& a, FormatId ab, double voltage_ratio,
                              double busy_s, double total_s) {
  const EventEnergies& e = p.energy;
  const double v2 = voltage_ratio * voltage_ratio;
  EnergyBreakdown b;
  b.parts = {{"issue", v2 * a.warp_instructions * e.instruction_j},
             {"cuda_core", v2 * a.ffma * e.ffma_j},
             {"sfu", v2 * a.mufu * e.mufu_j},
             {"register_file", v2 * a.rf_reads * e.rf_read_j},
             {"tensor", v2 * a.tensor_fma * e.mma_j(ab)},
             {"shared_memory", v2 * (a.smem_bytes * e.smem_byte_j + a.l1_bytes * e.l1_byte_j)},
             {"l2", v2 * a.l2_bytes * e.l2_byte_j},
             {"dram", a.dram_bytes * e.dram_byte_j},
             {"leakage", p.leakage_w * voltage_ratio * busy_s},
             {"idle", p.idle_w * std::max(total_s, busy_s)}};
  return b;
}

double busy_power_w(const PowerConfig& p, const Activity& a, FormatId ab, double voltage_ratio, double busy_s) {
  if (busy_s <= 0) return p.idle_w;
  return kernel_energy(p, a, ab, voltage_ratio, busy_s, busy_s).total_j() / busy_s;
}

}  // namespace tcsim::gpu
