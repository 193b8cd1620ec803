#pragma once
// The vector unit of a systolic-array config (SystolicConfig::vector): the memory-bound kernels of a
// network (Kernel::Kind::memory: activations, norms, softmax, residual adds, pooling, embedding
// gathers, the optimizer step) as a roofline of three resources, each busy for
//   arithmetic  Kernel::flops_nontensor / lanes            (the lowering's operations per element)
//   buffer      (bytes_read + bytes_written) / sram_bytes_per_cycle
//   DRAM        the same bytes / the DRAM's bytes per cycle, when they do not fit in the activation
//               buffer (sram.ifmap) or the kernel's inputs are cold (a training step's parameters)
// plus vector.latency cycles per kernel. The three overlap (a streaming unit: loads, arithmetic
// and stores pipelined), so the kernel takes the longest; `bound` names it.
#include "systolic/config/systolic_config.h"
#include "workload/kernel.h"
#include "workload/kernel_result.h"

namespace tcsim::systolic {

// DRAM bytes per cycle the vector unit streams at: dram.bandwidth / clock with both given, else
// the USER interface's words per cycle (dram.mode user), else 0: unlimited (SCALE-Sim's CALC mode
// assumes the DRAM keeps up).
double vector_dram_bytes_per_cycle(const SystolicConfig& c);

// One run of a memory-bound kernel on the config's vector unit (config.vector.present() required;
// the caller refuses the kernel otherwise).
KernelResult run_vector_kernel(const Kernel& kernel, const SystolicConfig& config);

}  // namespace tcsim::systolic
