#include "workload/kernel_result.h"

namespace tcsim {

void KernelResult::set(const std::string& metric, double value) {
  for (auto& [k, v] : metrics)
    if (k == metric) {
      v = value;
      return;
    }
  metrics.emplace_back(metric, value);
}

std::optional<double> KernelResult::get(const std::string& metric) const {
  for (const auto& [k, v] : metrics)
    if (k == metric) return v;
  return std::nullopt;
}

}  // namespace tcsim
