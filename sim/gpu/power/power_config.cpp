#include "gpu/power/power_config.h"

#include <algorithm>
#include <cmath>

#include "common/error.h"
#include "common/text/units.h"
#include "config/config.h"

namespace tcsim::gpu {

double EventEnergies::mma_j(FormatId ab) const {
  switch (ab) {
    case FormatId::bf16: return mma_bf16_j;
    case FormatId::tf32: return mma_tf32_j;
    case FormatId::e4m3:
    case FormatId::e5m2: return mma_fp8_j;
    case FormatId::int8:
    case FormatId::uint8:
    case FormatId::int4:
    case FormatId::uint4: return mma_int8_j;
    default: return mma_fp16_j;
  }
}

double PowerConfig::voltage_at(double clock_hz) const {
  if (vf.empty()) return 1.0;
  if (clock_hz <= vf.front().clock_hz) return vf.front().voltage_v;
  if (clock_hz >= vf.back().clock_hz) return vf.back().voltage_v;
  for (std::size_t i = 1; i < vf.size(); ++i) {
    if (clock_hz > vf[i].clock_hz) continue;
    const VfPoint& a = vf[i - 1];
    const VfPoint& b = vf[i];
    return a.voltage_v + (b.voltage_v - a.voltage_v) * (clock_hz - a.clock_hz) / (b.clock_hz - a.clock_hz);
  }
  return vf.back().voltage_v;
}

double PowerConfig::voltage_ratio(double clock_hz) const {
  if (vf.empty()) return 1.0;
  return voltage_at(clock_hz) / (reference_voltage_v > 0 ? reference_voltage_v : vf.back().voltage_v);
}

std::vector<double> PowerConfig::clock_steps(double max_clock_hz) const {
  std::vector<double> out;
  const double step = std::max(clock_step_hz, 1e3);
  // From the top down; an exact multiple below the top keeps the steps on the firmware's grid.
  for (double f = max_clock_hz; f >= min_clock_hz * (1 - 1e-12) && out.size() < 100000; f -= step) out.push_back(f);
  if (out.empty()) out.push_back(max_clock_hz);
  return out;
}

PowerConfig read_power_config(const config::Config& c, double clock_hz) {
  PowerConfig p;
  p.mode = c.string("power.mode") == "boost" ? PowerConfig::Mode::boost : PowerConfig::Mode::fixed;
  p.limit_w = c.power_w("power.limit");
  p.idle_w = c.power_w("power.idle");
  p.leakage_w = c.power_w("power.leakage");
  p.min_clock_hz = c.frequency_hz("power.min_clock");
  p.clock_step_hz = c.frequency_hz("power.clock_step");
  EventEnergies& e = p.energy;
  e.instruction_j = c.energy_j("power.energy.instruction");
  e.ffma_j = c.energy_j("power.energy.ffma");
  e.mufu_j = c.energy_j("power.energy.mufu");
  e.rf_read_j = c.energy_j("power.energy.rf_read");
  e.mma_fp16_j = c.energy_j("power.energy.mma_fp16");
  e.mma_bf16_j = c.energy_j("power.energy.mma_bf16");
  e.mma_tf32_j = c.energy_j("power.energy.mma_tf32");
  e.mma_fp8_j = c.energy_j("power.energy.mma_fp8");
  e.mma_int8_j = c.energy_j("power.energy.mma_int8");
  e.smem_byte_j = c.energy_per_byte_j("power.energy.smem");
  e.l1_byte_j = c.energy_per_byte_j("power.energy.l1");
  e.l2_byte_j = c.energy_per_byte_j("power.energy.l2");
  e.dram_byte_j = c.energy_per_byte_j("power.energy.dram");

  for (const auto& row : c.list("power.vf_curve")) {
    const VfPoint pt{row.frequency_hz("clock"), row.voltage_v("voltage")};
    if (!p.vf.empty() && pt.clock_hz <= p.vf.back().clock_hz)
      throw InputError(row.where("clock"), "expected the curve's clocks in increasing order, got " +
                                               units::format_frequency(pt.clock_hz) + " after " +
                                               units::format_frequency(p.vf.back().clock_hz));
    if (!p.vf.empty() && pt.voltage_v < p.vf.back().voltage_v)
      throw InputError(row.where("voltage"), "expected a monotone curve (voltage does not fall as the clock rises)");
    p.vf.push_back(pt);
  }

  p.reference_voltage_v = c.voltage_v("power.energy_voltage");
  if (p.reference_voltage_v > 0 && p.vf.empty())
    throw InputError(c.where("power.energy_voltage"), "a reference voltage needs power.vf_curve");
  if (p.reference_voltage_v > 0 && (p.reference_voltage_v < p.vf.front().voltage_v * (1 - 1e-9) ||
                                    p.reference_voltage_v > p.vf.back().voltage_v * (1 + 1e-9)))
    throw InputError(c.where("power.energy_voltage"),
                     "expected a voltage of the curve (" + units::format_voltage(p.vf.front().voltage_v) + " to " +
                         units::format_voltage(p.vf.back().voltage_v) + "), got " +
                         units::format_voltage(p.reference_voltage_v));

  if (!p.vf.empty() && clock_hz > p.vf.back().clock_hz * (1 + 1e-9))
    throw InputError(c.where("power.vf_curve"), "the curve ends at " + units::format_frequency(p.vf.back().clock_hz) +
                                                    ", below clock (" + units::format_frequency(clock_hz) +
                                                    "): extend it to the chip's highest clock");
  if (p.idle_w >= p.limit_w && p.limit_w > 0)
    throw InputError(c.where("power.idle"), "idle power (" + units::format_power(p.idle_w) +
                                                ") must be below power.limit (" + units::format_power(p.limit_w) + ")");
  if (p.min_clock_hz > clock_hz)
    throw InputError(c.where("power.min_clock"), "empty clock range: power.min_clock (" +
                                                     units::format_frequency(p.min_clock_hz) + ") is above clock (" +
                                                     units::format_frequency(clock_hz) + ")");
  if (p.mode == PowerConfig::Mode::boost) {
    if (p.limit_w <= 0) throw InputError(c.where("power.limit"), "power.mode boost needs a power limit above 0W");
    if (p.vf.size() < 2)
      throw InputError(c.where("power.vf_curve"), "power.mode boost needs a voltage-frequency curve of at least 2 points");
    if (p.min_clock_hz <= 0)
      throw InputError(c.where("power.min_clock"), "power.mode boost needs the lowest clock the firmware uses");
  }
  return p;
}

}  // namespace tcsim::gpu
