#pragma once
// The mapping the model picks for a kernel and the per-warp program it runs: what
// `tcsim trace dump` prints.
#include <cstdint>
#include <string>
#include <vector>

#include "gpu/gemm/gemm_estimate.h"
#include "gpu/gemm/gemm_plan.h"
#include "workload/kernel.h"

namespace tcsim::gpu {

// The fastest candidate (all mappings x split-K) for a planned GEMM.
Estimate choose_mapping(const GpuConfig& g, const GemmPlan& plan, SmTimeCache& cache);

struct KernelProgram {
  GemmPlan plan;
  Estimate chosen;
  WarpProgram program;   // with the kernel's full number of k-iterations
};

KernelProgram kernel_program(const GpuConfig& g, const Kernel& kernel);

// The program as text, as seen by warp `warp` of a CTA (warp 0 also runs the leader-only
// instructions), with a header naming the kernel, mapping and instruction table row.
std::string dump_program(const GpuConfig& g, const KernelProgram& kp, int warp);

// The first `max_lines` issue events of warp `warp` of CTA 0 in a simulation of the first
// iterations: "cycle  section iteration  instruction".
std::string dump_timeline(const GpuConfig& g, const KernelProgram& kp, int warp, int max_lines);

}  // namespace tcsim::gpu
