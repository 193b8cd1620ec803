#pragma once
// The power side of a GPU config (`power:` section): the board's power limit, its idle and
// leakage power, the voltage-frequency curve the boost firmware moves along, and the dynamic
// energy of each event the timing model counts. Read by gpu_config.cpp; used by
// energy_model.h (what a kernel costs) and clock_governor.h (the clock the limit allows).
#include <vector>

#include "numerics/formats/format_id.h"

namespace tcsim::config {
class Config;
}  // namespace tcsim::config

namespace tcsim::gpu {

struct VfPoint {
  double clock_hz = 0;
  double voltage_v = 0;
};

// Dynamic energy per event at the reference voltage: power.energy_voltage, by default the curve's
// last (highest) point, so that boards of one chip with different boost clocks share the chip's
// energies, and a board whose curve goes on above the chip's figures (a GeForce boost) keeps them.
struct EventEnergies {
  double instruction_j = 0;     // per warp instruction issued (fetch, decode, schedule, operand collect)
  double ffma_j = 0;            // per thread FP32 lane op (FFMA/FADD/FMUL) on the CUDA cores
  double mufu_j = 0;            // per thread special-function result (ex2, rcp, rsqrt)
  double rf_read_j = 0;         // per warp-register read (32 lanes x 32 bit)
  double mma_fp16_j = 0;        // per dense tensor-core MAC, by operand format
  double mma_bf16_j = 0;
  double mma_tf32_j = 0;
  double mma_fp8_j = 0;
  double mma_int8_j = 0;
  double smem_byte_j = 0;       // shared memory
  double l1_byte_j = 0;         // L1 (global loads through the SM's L1)
  double l2_byte_j = 0;         // L2 and the crossbar to it
  double dram_byte_j = 0;       // DRAM, interface included (its own rail: does not follow the core voltage)

  double mma_j(FormatId ab) const;  // by operand format (fp16-class formats share fp16's energy)
};

struct PowerConfig {
  enum class Mode { fixed, boost };
  Mode mode = Mode::fixed;      // fixed: every kernel at `clock`; boost: the highest clock the limit allows
  double limit_w = 0;           // board power limit
  double idle_w = 0;            // board at idle: memory refresh, fans, regulators, the idle chip
  double leakage_w = 0;         // extra static power of the busy chip at the reference voltage (scales with V)
  double min_clock_hz = 0;      // lowest clock the firmware lowers to under the power limit
  double clock_step_hz = 15e6;  // clock steps (the firmware's table)
  std::vector<VfPoint> vf;      // voltage against clock, clocks increasing, voltages not decreasing
  double reference_voltage_v = 0;  // the voltage `energy` and `leakage_w` are quoted at (0: vf's last point)
  EventEnergies energy;

  // Voltage at `clock_hz`: linear between points, flat beyond the ends (a floor below the first).
  double voltage_at(double clock_hz) const;
  // V(clock) / the reference voltage (1 without a curve): dynamic energy scales with its square,
  // leakage with it.
  double voltage_ratio(double clock_hz) const;
  // Clock steps the governor may pick, from `max_clock_hz` down to min_clock (max first).
  std::vector<double> clock_steps(double max_clock_hz) const;
};

// Reads the `power` section; throws InputError at the offending key for an empty clock range,
// an idle power above the limit, or a curve that is not monotone.
PowerConfig read_power_config(const config::Config& c, double clock_hz);

}  // namespace tcsim::gpu
