#pragma once
// The vector unit of a systolic-array config (SystolicConfig::vector): the memory-bound kernels of a
// network (Kernel::Kind::memory: activations, norms, softmax, residual adds, pooling, embedding
// gathers, the optimizer step) as a roofline of three resources, each busy for
//   arithmetic  Kernel::flops_nontensor / lanes            (the lowering's operations per element)
//   buffer      (bytes_read + bytes_written) / sram_bytes_per_cycle
//   DRAM        the same bytes / SystolicConfig::dram_bytes_per_cycle, when they do not fit in the activation
//               buffer (sram.ifmap) or the kernel's inputs are cold (a training step's parameters)
// plus vector.latency cycles per kernel. The three overlap (a streaming unit: loads, arithmetic
// and stores pipelined), so the kernel takes the longest; `bound` names it.
#include "systolic/config/systolic_config.h"
#include "workload/kernel.h"
#include "workload/kernel_result.h"

namespace tcsim::systolic {

// One run of a memory-bound kernel (Kernel::Kind::memory) on the config's vector unit
// (config.vector.present()): SystolicModel::run dispatches there and refuses the kernel without one.
KernelResult run_vector_kernel(const Kernel& kernel, const SystolicConfig& config);

}  // namespace tcsim::systolic
