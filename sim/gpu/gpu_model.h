#pragma once
// The cycle-approximate GPU model: maps a GEMM (or a convolution's implicit GEMM) onto CTA/warp
// tiles like CUTLASS/cuBLAS would, replays the per-warp instruction programs of one SM's resident
// CTAs cycle by cycle (sm_sim.h), and scales the SM's time to the GPU through waves and the
// L2/DRAM traffic of the tile order. See sim/gpu/README.md.
#include <memory>
#include <string>
#include <vector>

#include "gpu/gpu_config.h"
#include "workload/accelerator.h"

namespace tcsim::gpu {

class GpuModel : public Accelerator {
 public:
  explicit GpuModel(GpuConfig config);
  ~GpuModel() override;
  GpuModel(const GpuModel&) = delete;
  GpuModel& operator=(const GpuModel&) = delete;

  std::string name() const override { return config_.name; }
  double clock_hz() const override { return config_.clock_hz; }
  // Thread-safe (the per-candidate cache is internally locked); deterministic. With power.mode
  // boost the kernel runs at the highest clock step the power limit allows (power/clock_governor.h);
  // every result carries clock_mhz, power_bound, energy_j, avg_power_w and the energy per unit.
  KernelResult run(const Kernel& kernel) const override;
  // The same at `clock_hz` (a clock step of power_capped_clocks()), whatever its power: the clock a
  // power limit averaged over a loop's window gives the loop's kernels together.
  KernelResult run_fixed_clock(const Kernel& kernel, double clock_hz) const override;
  // With power.mode boost, the firmware's clock steps from the config clock down (power.clock_steps).
  std::vector<double> power_capped_clocks() const override;
  double power_limit_w() const override { return config_.power.limit_w; }
  double memory_bytes() const override { return config_.dram_size_bytes; }
  // CPU time PyTorch spends dispatching one op (config host.kernel_overhead).
  double host_overhead_s() const override { return config_.host_kernel_overhead_s; }
  // Its class's cost (config host.op_overhead.<class>, else host.kernel_overhead).
  double host_op_overhead_s(HostOpClass c) const override { return config_.host_op_overhead_s[std::size_t(c)]; }
  double host_autograd_factor() const override { return config_.host_autograd_factor; }
  double host_launch_delay_s() const override { return config_.host_launch_delay_s; }
  double queue_gap_s() const override { return config_.queue_gap_s; }
  bool models_energy() const override { return true; }
  bool reads_epilogue_inputs() const override { return true; }
  double idle_power_w() const override { return config_.power.idle_w; }

  const GpuConfig& config() const { return config_; }

 private:
  // run() (fixed_hz 0: the per-kernel governor) and run_fixed_clock().
  KernelResult run_clocked(const Kernel& kernel, double fixed_hz) const;
  // The timing model of a memory-bound or attention kernel at the clock of `g` (config_ with
  // another clock while the governor searches). GEMMs and convolutions: run() itself.
  KernelResult run_at_clock(const GpuConfig& g, const Kernel& kernel) const;
  GpuConfig config_;
  struct Cache;
  std::unique_ptr<Cache> cache_;
};

}  // namespace tcsim::gpu
