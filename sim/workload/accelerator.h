#pragma once
// The interface both accelerator models implement (GpuModel in sim/gpu, SystolicModel in
// sim/systolic). It lives in workload/ rather than engine/ so that the models, which sit below
// engine/ in the dependency order, can implement it; engine/ (networks, sweeps, validation) only
// talks to this interface.
#include <string>
#include <vector>

#include "workload/host_op_class.h"
#include "workload/kernel.h"
#include "workload/kernel_result.h"

namespace tcsim {

class Accelerator {
 public:
  virtual ~Accelerator() = default;
  virtual std::string name() const = 0;       // e.g. "V100-SXM2", "scalesim 32x32 os"
  virtual double clock_hz() const = 0;        // 0 when the model has no clock (cycles only)
  // Simulates one run of `kernel`. Deterministic: same kernel, same config -> same result.
  // Throws InputError for a kernel the hardware cannot run (with the reason).
  virtual KernelResult run(const Kernel& kernel) const = 0;
  // CPU time an eager framework (PyTorch) spends to launch one kernel; a step whose kernels take
  // less GPU time than this is host-bound. 0 when the model has no host (systolic arrays).
  virtual double host_overhead_s() const { return 0; }
  // What one op of class `c` costs the host in an inference (no autograd) step: the class's own
  // cost where the config gives one, else host_overhead_s.
  virtual double host_op_overhead_s(HostOpClass) const { return host_overhead_s(); }
  // What an op of a training step's forward pass costs the host, as a multiple of host_overhead_s
  // (autograd records the backward graph as the forward runs). 1 without a host.
  virtual double host_autograd_factor() const { return 1; }
  // Device memory a workload may use, in bytes (0 when the config does not say).
  virtual double memory_bytes() const { return 0; }
  // CPU time from an eager op's call to its kernel's launch (the part of host_overhead_s before
  // the launch): an op timed alone on an idle GPU starts its kernel this late. 0 without a host.
  virtual double host_launch_delay_s() const { return 0; }
  // GPU time between a kernel's end and the start of the next kernel queued behind it in a stream
  // (eager launches): not in run()'s time, which is the kernel's own, as a profiler reports it; a
  // loop's or a step's time per launch adds it. 0 where the model has none (or its launch cost
  // includes it).
  virtual double queue_gap_s() const { return 0; }
  // Whether run() reports energy (the `energy_j` metric), and the board's power while it idles
  // (waiting for the host between kernels).
  virtual bool models_energy() const { return false; }
  // Whether run() costs Kernel::epilogue_inputs (a GEMM or convolution that reads a residual in its
  // epilogue); a network lowering fuses residual adds into such kernels only then.
  virtual bool reads_epilogue_inputs() const { return false; }
  virtual double idle_power_w() const { return 0; }
  // A board's power limit acts on the power averaged over the firmware's window (tens to hundreds
  // of ms; the lent H100 held 1980 MHz for 80 ms of a long GEMM before stepping down), so the
  // kernels of a loop's step share one clock. power_capped_clocks(): the clocks the firmware may
  // pick, highest first (empty: no limit to enforce; run() is final); run_fixed_clock(): a kernel
  // at one of them, whatever its power (run() caps each kernel at its own steady state, as a
  // benchmark loop of that kernel alone runs); power_limit_w(): the limit.
  virtual std::vector<double> power_capped_clocks() const { return {}; }
  virtual KernelResult run_fixed_clock(const Kernel& kernel, double /*clock_hz*/) const { return run(kernel); }
  virtual double power_limit_w() const { return 0; }
};

}  // namespace tcsim
