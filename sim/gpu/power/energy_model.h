#pragma once
// The energy of one kernel run and the board power while it runs:
//   E = (V/Vr)^2 x sum(core events x energy per event) + DRAM bytes x energy per byte
//     + leakage x (V/Vr) x busy time + idle x total time
// Vr is the reference voltage the per-event energies are stated at (PowerConfig::voltage_ratio). The
// DRAM sits on its own supply, so its energy does not follow the core voltage. Busy time is the
// kernel's cycles at its clock; the rest of its time (launch gaps) costs idle power only.
#include <string>
#include <utility>
#include <vector>

#include "gpu/power/activity.h"
#include "gpu/power/power_config.h"

namespace tcsim::gpu {

struct EnergyBreakdown {
  // Joules per unit, in report order: issue, cuda_core, sfu, register_file, tensor, shared_memory
  // (+ L1), l2, dram, leakage, idle.
  std::vector<std::pair<const char*, double>> parts;  // names are literals: cheap in the governor's search
  double total_j() const;
  double dynamic_j() const;  // everything but leakage and idle
};

// `ab`: the operand format of the tensor-core MACs.
EnergyBreakdown kernel_energy(const PowerConfig& p, const Activity& a, FormatId ab, double voltage_ratio,
                              double busy_s, double total_s);

// Board power while the kernel runs (its energy over its busy time, the idle floor included).
double busy_power_w(const PowerConfig& p, const Activity& a, FormatId ab, double voltage_ratio, double busy_s);

}  // namespace tcsim::gpu
